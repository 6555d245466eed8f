/**
 * Subscription renewals (commerce.md §10.2) as due work (architecture.md "Asynchronous work"):
 * each subscription has one `subscription-renewal` record, due at its next billing (or at the
 * period end that cancels or completes it). The sweep (the minute schedule in the cloud; the
 * local timer and every manual-clock move) claims it before anything else happens, so two
 * sweeps never run one subscription at once. A run:
 *
 *   1. reads the subscription; a cancelled or completed one only removes the record, and a
 *      pending cancellation or a finished plan turns into `cancelled` / `completed` at the
 *      period end;
 *   2. prices the renewal: `reference_price` on the saved method plus tax from the current rules
 *      and the customer's billing address, no coupon;
 *   3. charges through the gateway of the subscription's mode, chosen as a sale's is
 *      (`saleGatewayOf`, commerce.md §4.7): the account's Stripe connection (off-session, the
 *      saved card's Stripe customer and PaymentMethod, `cartwheel-<payment_id>`), the built-in
 *      gateway in test mode without one, none in live mode without one (a failed renewal). The
 *      key derives from the subscription, the billing number and the attempt, so a run repeated
 *      after a crash (the lease lapsed) gets the gateway's first answer back and never takes the
 *      money twice;
 *   4. commits the outcome in one transaction, conditional on the subscription still having the
 *      billing count and failed attempts it was read with: success writes the payment, the order,
 *      the advanced period and the events; failure writes the failed payment, the grace period
 *      (or, after the last retry, the cancellation) and the events; both move or remove the due
 *      record under the run's claim.
 *
 * Off-session nobody can authenticate: Stripe's `authentication_required` decline, and a
 * `requires_action` answer (its PaymentIntent cancelled at Stripe), are failed renewals. A charge
 * still `processing`, or one Stripe did not answer, records nothing: the record is due again
 * shortly and the next run asks again under the same key (Stripe replays the first answer; a
 * `processing` one is then retrieved as it stands now). A charge that took money is always
 * recorded, once: when a cancellation or an update moved the subscription on between the charge
 * and the commit, the payment and the order of that period are written over the subscription as
 * it now is, and the cancellation stands (`recordApproved`).
 *
 * A crash before 4 leaves the record claimed until its lease lapses; the next run recomputes the
 * same payment id and key, and writes the outcome once. `fast_forward` (test mode) runs the same
 * function under a hold (`holdDue`) instead of waiting for the due time.
 */
import { derivedId } from '../../core/ids';
import { logger } from '../../core/logging';
import { isWaiting, type Platform, type ChargeResult, type FailedChargeOutcome, type StripeConnection } from '../../platform/ports';
import { stripeMinorAmount } from '../../platform/adapters/stripe-amounts';
import type { RecordScope } from '../../store/entity';
import { TransactionRejectedError, VersionConflictError } from '../../store/errors';
import { transact, writeOne, type TransactEntry } from '../../store/transact';
import { finishEntry, renewEntry, type DueClaim } from '../../work/due-work-store';
import type { DueHandler } from '../../work/runner';
import { readPaymentSettingsCached, readTaxSettingsCached } from '../../modules/accounts';
import { findCustomerRecord, type CustomerRecord } from '../../modules/customers';
import { eventEntries, type EventSpec } from '../../modules/events';
import { createOrderEntry, orderIdOfPayment, type OrderRecord } from '../../modules/orders';
import { chargeKey, gatewayErrorCode, newPaymentRecord, payments, type PaymentRecord } from '../../modules/payments';
import { findCustomerPaymentMethod } from '../../modules/payment-methods';
import { computeSale, taxLocationOf, type SaleTotals } from '../../modules/pricing';
import { DAY_MS, findSubscription, periodEnd, renewalOutcomeEntry, RENEWAL_KIND, type SubscriptionRecord } from '../../modules/subscriptions';
import { chargeCard, gatewayChargeOf, NOTHING_TO_CHARGE } from '../checkout/charge-card';
import { present } from '../checkout/entries';
import { saleGatewayOf, type SaleGateway } from '../checkout/sale-gateway';
import { orderSaleEntry, saleOfOrder } from '../../modules/reports';

/** How long a renewal run may hold its subscription before another run may take it. */
export const RENEWAL_LEASE_MS = 2 * 60_000;

/** How long a charge still processing (or not answered) waits before the next run asks again under its key. */
export const RENEWAL_WAIT_MS = 10 * 60_000;

/**
 * How late past its due time a Stripe attempt looks its PaymentIntent up (by the payment id in
 * its metadata) before creating one: Stripe keeps an idempotency key for 24 hours only, so a
 * create repeated later than that (a charge processing or unanswered for a day) could charge
 * again.
 */
export const STRIPE_LOOKUP_FIRST_MS = 12 * 60 * 60_000;

/** How a run left the subscription (`waiting`: the gateway has not settled the charge; asked again later). */
export type RenewalResult = 'renewed' | 'failed' | 'cancelled' | 'completed' | 'not-due' | 'gone' | 'waiting';

/** The payment id of attempt `attempt` (0-based) at billing `billing`: the charge's key derives from it. */
export function renewalPaymentId(scope: RecordScope, subscriptionId: string, billing: number, attempt: number): string {
  return derivedId(`renewal:${scope.accountId}:${scope.mode}:${subscriptionId}:${billing}:${attempt}`);
}

/** The renewal's amounts: the recurring subtotal plus current tax, for the customer's address (§10.2). */
function renewalTotals(subscription: SubscriptionRecord, customer: CustomerRecord | undefined, payment: Awaited<ReturnType<typeof readPaymentSettingsCached>>, tax: Awaited<ReturnType<typeof readTaxSettingsCached>>): SaleTotals {
  const { item } = subscription;
  const hasPhysical = item.type === 'physical';
  return computeSale({
    currency: subscription.currency,
    lines: [{ itemId: item.item_id, productId: item.product_id, name: item.name, type: item.type, quantity: item.quantity, unitPriceOriginal: item.price, taxCode: item.tax_code }],
    shipping: null,
    taxLocation: taxLocationOf({ hasPhysical, shippingAddress: customer?.shipping_address ?? null, billingAddress: customer?.billing_address ?? null, ipCountry: null }),
    customerTaxExempt: customer?.tax_exempt ?? false,
    payment,
    tax,
  });
}

/** The renewal order (§5.1, §5.2): the renewal's amounts, `subscription` set, meta copied from the subscription. */
function renewalOrder(scope: RecordScope, subscription: SubscriptionRecord, totals: SaleTotals, paymentId: string, now: number): OrderRecord {
  const { items, shipping_item, ...amounts } = totals;
  const line = items[0]!;
  return {
    order_id: orderIdOfPayment(scope, paymentId),
    account_id: scope.accountId,
    mode: scope.mode,
    payment_status: 'completed',
    fulfilled: line.type !== 'physical',
    totals: amounts,
    items: [{ ...line, subscription_plan: null, subscription_id: subscription.subscription_id, fulfilled: line.type !== 'physical', license: null, license_pending: false, license_service_id: null, meta: structuredClone(subscription.item.meta ?? null) }],
    shipping_item,
    total_refunded: 0,
    customer_ip_address: null,
    customer_ip_country: null,
    referrer: null,
    affiliate_id: null,
    promotion_code: null,
    promotion_id: null,
    customer_id: subscription.customer_id,
    cart_id: null,
    payment_id: paymentId,
    subscription_id: subscription.subscription_id,
    meta: structuredClone(subscription.meta ?? null),
    // Renewals send no confirmation email (none is made due).
    confirmation_email: 'sent',
    created_ms: now,
    modified_ms: now,
  };
}

/** The subscription as a period end leaves it: `cancelled` (a pending cancellation) or `completed` (the plan's last charge made). */
function endedAtPeriodEnd(subscription: SubscriptionRecord, status: 'cancelled' | 'completed', now: number): SubscriptionRecord {
  return {
    ...subscription,
    status,
    next_billing_ms: null,
    in_grace_period: false,
    retry_at_ms: null,
    ended_ms: subscription.period_end_ms,
    modified_ms: Math.max(now, subscription.modified_ms + 1),
  };
}

/** Commits `entries`; a refusal means the subscription or the claim moved on (another run, a cancel): the caller reads again. */
async function commit(entries: TransactEntry[]): Promise<boolean> {
  try {
    await transact(entries);
    return true;
  } catch (error) {
    if (error instanceof TransactionRejectedError || error instanceof VersionConflictError) return false;
    throw error;
  }
}

/**
 * Runs one renewal step of the subscription `claim` names, under that claim. `force` (test-mode
 * `fast_forward`) charges the next billing even before it is due. Answers what happened.
 */
export async function renewSubscription(platform: Platform, claim: DueClaim, force = false): Promise<RenewalResult> {
  const scope: RecordScope = { accountId: claim.record.account_id, mode: claim.record.mode };
  for (let round = 0; round < 5; round++) {
    const result = await renewOnce(platform, scope, claim, force);
    if (result !== 'retry') return result;
  }
  throw new Error(`Subscription ${claim.record.ref} kept changing during its renewal`);
}

async function renewOnce(platform: Platform, scope: RecordScope, claim: DueClaim, force: boolean): Promise<RenewalResult | 'retry'> {
  const subscriptionId = claim.record.ref;
  const subscription = await findSubscription(scope, subscriptionId);
  const now = platform.clock.nowMs();
  if (!subscription || subscription.status !== 'active') {
    // A run before this one died holding the record (attempts > 1): a charge it made before a cancellation is recorded first.
    if (subscription?.status === 'cancelled' && claim.record.attempts > 1) {
      const recorded = await recordChargeOfDeadRun(platform, scope, claim, subscription);
      if (recorded) return recorded;
    }
    await writeOne(finishEntry(claim)).catch((error: unknown) => {
      if (!(error instanceof TransactionRejectedError)) throw error;
    });
    return 'gone';
  }
  const periodOver = now >= subscription.period_end_ms;
  // A pending cancellation, or a plan whose last charge was made: the period end ends it.
  if (subscription.cancel_at_period_end || subscription.next_billing_ms === null) {
    if (!periodOver) {
      return (await commit([renewEntry(claim, subscription.period_end_ms, now)])) ? 'not-due' : 'retry';
    }
    const status = subscription.cancel_at_period_end ? 'cancelled' : 'completed';
    const ended = endedAtPeriodEnd(subscription, status, now);
    const events: EventSpec[] = status === 'cancelled' ? [{ type: 'subscription:cancelled', resource: 'subscription', id: subscriptionId, record: ended }] : [];
    return (await commit([renewalOutcomeEntry(subscription, ended), finishEntry(claim), ...eventEntries(scope, events, now)])) ? status : 'retry';
  }
  if (!force && now < subscription.next_billing_ms) {
    return (await commit([renewEntry(claim, subscription.next_billing_ms, now)])) ? 'not-due' : 'retry';
  }

  // 2: price it. 3: charge it, once per billing and attempt.
  const billing = subscription.billing_count + 1;
  const attempt = subscription.failed_attempts;
  const paymentId = renewalPaymentId(scope, subscriptionId, billing, attempt);
  const charge = await renewalChargeOf(platform, scope, subscription, paymentId, now - subscription.next_billing_ms);
  const { settings, totals } = charge;
  const result = await chargeRenewal(platform, charge);
  if (isWaiting(result.outcome)) {
    // Not settled (processing, no answer): nothing is recorded; the next run asks again under the same key.
    const at = platform.clock.nowMs();
    logger.info('A renewal charge is not settled yet; it is asked again later', { subscription_id: subscriptionId, payment_id: paymentId, outcome: result.outcome });
    return (await commit([renewEntry(claim, at + RENEWAL_WAIT_MS, at)])) ? 'waiting' : 'retry';
  }

  // 4: the outcome, once.
  const at = platform.clock.nowMs();
  const payment = renewalPayment(charge, subscription, result, at);
  if (result.outcome === 'approved') return recordApproved(scope, claim, subscription, billing, totals, payment, at);

  // Declined: retry on the account's retry days after the period end, or cancel after the last.
  const version = Math.max(at, subscription.modified_ms + 1);
  const retryDays = settings.subscription_payment_retry_days;
  const failedAttempts = attempt + 1;
  const finalFailure = failedAttempts > retryDays.length;
  const retryAt = finalFailure ? null : subscription.period_end_ms + retryDays[attempt]! * DAY_MS;
  const next: SubscriptionRecord = finalFailure
    ? {
        ...subscription,
        status: 'cancelled',
        cancellation_reason: 'payment_failure',
        cancelled_ms: at,
        ended_ms: at,
        next_billing_ms: null,
        in_grace_period: false,
        failed_attempts: failedAttempts,
        retry_at_ms: null,
        payment_ids: [...subscription.payment_ids, paymentId],
        modified_ms: version,
      }
    : {
        ...subscription,
        in_grace_period: true,
        failed_attempts: failedAttempts,
        retry_at_ms: retryAt,
        next_billing_ms: retryAt,
        payment_ids: [...subscription.payment_ids, paymentId],
        modified_ms: version,
      };
  const events: EventSpec[] = [
    { type: 'payment:created_failure', resource: 'payment', id: paymentId, record: payment },
    { type: 'subscription:renewal_failure', resource: 'subscription', id: subscriptionId, record: next },
    ...(finalFailure ? [{ type: 'subscription:cancelled', resource: 'subscription', id: subscriptionId, record: next } as EventSpec] : []),
  ];
  const committed = await commit([
    payments.putEntry(payment, { ifNew: true, name: 'payment.renewal' }),
    renewalOutcomeEntry(subscription, next),
    finalFailure ? finishEntry(claim) : renewEntry(claim, retryAt!, at),
    ...eventEntries(scope, events, at),
  ]);
  if (!committed) return 'retry';
  if (finalFailure) logger.info('A subscription was cancelled after its last renewal retry failed', { subscription_id: subscriptionId });
  return finalFailure ? 'cancelled' : 'failed';
}

/** What one renewal attempt charges, and through what. */
interface RenewalCharge {
  scope: RecordScope;
  paymentId: string;
  subscriptionId: string;
  totals: SaleTotals;
  method: Awaited<ReturnType<typeof findCustomerPaymentMethod>>;
  /** The mode's gateway (`saleGatewayOf`); undefined for a zero total or live mode without Stripe. */
  sale: SaleGateway | undefined;
  settings: Awaited<ReturnType<typeof readPaymentSettingsCached>>;
  /** The customer's billing postal code, when the saved card carries none (§10.2 address check). */
  postalCode: string | null;
  /** How long after its due time the attempt runs (negative when `fast_forward` runs it early). */
  lateMs: number;
}

/** What attempt `paymentId` of `subscription` charges, priced now, and the mode's gateway it goes through. */
async function renewalChargeOf(platform: Platform, scope: RecordScope, subscription: SubscriptionRecord, paymentId: string, lateMs: number): Promise<RenewalCharge> {
  const [settings, tax, customer, method] = await Promise.all([
    readPaymentSettingsCached(scope.accountId),
    readTaxSettingsCached(scope.accountId),
    findCustomerRecord(scope, subscription.customer_id),
    subscription.payment_method_id ? findCustomerPaymentMethod(scope, subscription.customer_id, subscription.payment_method_id) : Promise.resolve(undefined),
  ]);
  const totals = renewalTotals(subscription, customer, settings, tax);
  const sale = totals.total === 0 ? undefined : await saleGatewayOf(platform, scope, settings);
  return { scope, paymentId, totals, method, sale, settings, subscriptionId: subscription.subscription_id, postalCode: customer?.billing_address.postal_code ?? null, lateMs };
}

/**
 * The charge a dead run made for the attempt a cancellation interrupted, recorded once
 * (`recordApproved`) when the gateway has it approved under the attempt's key; undefined when
 * there is none (or it is already recorded), and the run just ends.
 */
async function recordChargeOfDeadRun(platform: Platform, scope: RecordScope, claim: DueClaim, subscription: SubscriptionRecord): Promise<RenewalResult | undefined> {
  const billing = subscription.billing_count + 1;
  const paymentId = renewalPaymentId(scope, subscription.subscription_id, billing, subscription.failed_attempts);
  if (await payments.find(scope, paymentId)) return undefined;
  const charge = await renewalChargeOf(platform, scope, subscription, paymentId, 0);
  if (!charge.sale || !charge.method) return undefined;
  const found = await charge.sale.gateway.lookup(chargeKey(scope, paymentId)).catch(() => undefined);
  if (found?.outcome !== 'approved') return undefined;
  const at = platform.clock.nowMs();
  logger.warn('A renewal charge made by a run that died is recorded on its cancelled subscription', { subscription_id: subscription.subscription_id, payment_id: paymentId });
  return recordApproved(scope, claim, subscription, billing, charge.totals, renewalPayment(charge, subscription, found, at), at);
}

/** A refusal made here, before any gateway was asked: a failed renewal like a decline, saying why. */
function refused(message: string): ChargeResult {
  return { outcome: 'declined', transactionId: null, responseData: { authorization_code: null, avs_match: null, cvv_match: null, message } };
}

/** The Stripe metadata of a renewal charge (§4.7: account, payment, and here the subscription). */
function renewalMetadata(charge: RenewalCharge): Record<string, string> {
  return { account_id: charge.scope.accountId, payment_id: charge.paymentId, subscription_id: charge.subscriptionId };
}

/**
 * Charges one renewal attempt through the sale's charge path (`chargeCard`, keyed by the
 * payment), off-session; answers the verdict. Off-session a `requires_action` answer cannot be
 * completed by anyone: its PaymentIntent is cancelled at Stripe (so it never completes later)
 * and the attempt fails, unless the cancel finds it succeeded meanwhile. A Stripe charge still
 * `processing` (first answer, or replayed under its key) is retrieved as it stands now. An
 * attempt running `STRIPE_LOOKUP_FIRST_MS` late asks Stripe for a PaymentIntent of its payment
 * first (none found: it creates one; Stripe unreachable: it waits).
 */
async function chargeRenewal(platform: Platform, charge: RenewalCharge): Promise<ChargeResult> {
  const { totals, method, sale } = charge;
  if (totals.total === 0) return NOTHING_TO_CHARGE;
  if (!method) return refused('No saved payment method to charge.');
  if (!sale) return refused("Live renewals need the account's Stripe connection (/settings/payment stripe_live); nothing was charged.");
  if (sale.kind === 'stripe') {
    if (!method.card.gateway) return refused('The saved card was not saved through Stripe, so Stripe cannot charge it; the customer needs to save a card again.');
    if (stripeMinorAmount(totals.total, totals.currency) === undefined) return refused(`Stripe cannot charge ${totals.total} ${totals.currency}.`);
  }
  // Late enough that Stripe may have forgotten the key: what was made under it is looked up first.
  const earlier = sale.kind === 'stripe' && charge.lateMs >= STRIPE_LOOKUP_FIRST_MS ? await sale.gateway.lookup(chargeKey(charge.scope, charge.paymentId)).catch(() => undefined) : undefined;
  let result = earlier ?? await chargeCard(platform, {
    scope: charge.scope,
    paymentId: charge.paymentId,
    amount: totals.total,
    currency: totals.currency,
    card: method.card,
    // §10.2: no CVV check (none is entered); the address check uses the stored postal code.
    fallbackPostalCode: charge.postalCode,
    settings: charge.settings,
    sale,
    metadata: renewalMetadata(charge),
    offSession: true,
  });
  if (sale.kind !== 'stripe' || !result.transactionId) return result;
  if (result.outcome === 'processing') result = (await settledLater(sale.gateway, charge, result.transactionId)) ?? result;
  if (result.outcome === 'action_required') {
    const now = await sale.gateway.cancel(result.transactionId!).catch((error: unknown) => {
      logger.warn('Cancelling an off-session PaymentIntent that asked for authentication failed', { payment_id: charge.paymentId, error: error as Error });
      return undefined;
    });
    if (now?.outcome === 'approved') return now;
    return { ...result, outcome: 'declined', responseData: { ...result.responseData, client_secret: undefined, redirect_url: undefined, message: 'The card needs authentication (3-D Secure), which a renewal cannot ask for: the customer must authenticate or save another card.' } };
  }
  return result;
}

/** A processing PaymentIntent as Stripe has it now (a replayed create answers its first state). */
async function settledLater(gateway: StripeConnection, charge: RenewalCharge, transactionId: string): Promise<ChargeResult | undefined> {
  return gateway.lookup(chargeKey(charge.scope, charge.paymentId), { transactionId }).catch(() => undefined);
}

/** The renewal payment of a settled attempt: completed or failed, the subscription set. */
function renewalPayment(charge: RenewalCharge, subscription: SubscriptionRecord, result: ChargeResult, at: number): PaymentRecord {
  const { totals, method, sale, paymentId } = charge;
  // A Stripe renewal keeps what a refund needs to go back to Stripe (§4.7 refunds).
  const gatewayCharge = method && result !== NOTHING_TO_CHARGE ? gatewayChargeOf({ sale, card: method.card, metadata: renewalMetadata(charge), offSession: true, amount: totals.total, currency: totals.currency, fallbackPostalCode: null, settings: charge.settings }) : undefined;
  const responseData = { ...result.responseData };
  delete responseData.client_secret;
  delete responseData.redirect_url;
  return newPaymentRecord(charge.scope, paymentId, {
    ...(gatewayCharge ? { gateway_charge: gatewayCharge } : {}),
    status: result.outcome === 'approved' ? 'completed' : 'failed',
    currency: totals.currency,
    subtotal: totals.subtotal,
    shipping: totals.shipping,
    tax: totals.tax,
    total: totals.total,
    settlement_currency: totals.settlement_currency,
    settlement_subtotal: totals.settlement_subtotal,
    settlement_shipping: totals.settlement_shipping,
    settlement_tax: totals.settlement_tax,
    settlement_total: totals.settlement_total,
    total_refunded: 0,
    reference: null,
    description: null,
    referrer: null,
    payment_method: method ? { payment_method_id: method.payment_method_id, type: 'credit_card', data: method.data } : null,
    response_data: responseData,
    gateway_transaction_id: result.transactionId,
    error_code: result.outcome === 'approved' ? null : gatewayErrorCode(result.outcome as FailedChargeOutcome),
    ip_address: null,
    customer_id: subscription.customer_id,
    cart_id: null,
    order_id: null,
    subscription_id: subscription.subscription_id,
    meta: null,
    fingerprint: method ? `payment_method:${method.payment_method_id}` : null,
  }, at);
}

/**
 * Records an approved renewal charge exactly once (the payment is written only if new), however
 * the subscription moved since the run read it. Normally the period advances and the record is
 * due at the new period end. When the commit is refused, the run reads again: the payment
 * already written (another run of the same attempt recorded it) ends it; otherwise the charge is
 * recorded over the subscription as it now is: still `active` at the same billing (an update, a
 * pending cancellation), the period advances as usual (a pending cancellation then ends the paid
 * period); cancelled meanwhile (or otherwise moved on), the payment and order are linked to it
 * and counted, and it stays as the cancellation left it, with nothing more due.
 */
async function recordApproved(scope: RecordScope, claim: DueClaim, read: SubscriptionRecord, billing: number, totals: SaleTotals, payment: PaymentRecord, at: number): Promise<RenewalResult> {
  const paymentId = payment.payment_id;
  let subscription = read;
  // Set once a refusal came with the subscription unchanged: the claim moved on (a lapsed lease), so the due record is not this run's to move.
  let claimLost = false;
  for (let round = 0; round < 5; round++) {
    const advancing = subscription.status === 'active' && subscription.billing_count === billing - 1;
    const order = renewalOrder(scope, subscription, totals, paymentId, at);
    const completed: PaymentRecord = { ...payment, order_id: order.order_id };
    const version = Math.max(at, subscription.modified_ms + 1);
    const linked = { order_ids: [...subscription.order_ids, order.order_id], payment_ids: [...subscription.payment_ids, paymentId], modified_ms: version };
    let next: SubscriptionRecord;
    let due: TransactEntry | undefined;
    if (advancing) {
      const plan = { billing_interval: subscription.billing_interval, billing_interval_unit: subscription.billing_interval_unit };
      const last = subscription.end_at_billing_count !== null && billing >= subscription.end_at_billing_count;
      // The period advances from the previous period end, keeping the anchor day (periods.ts).
      const end = periodEnd(subscription.anchor_ms, plan, billing);
      next = {
        ...subscription,
        ...linked,
        billing_count: billing,
        period_start_ms: subscription.period_end_ms,
        period_end_ms: end,
        // A cancellation pending since the charge keeps nothing more due: the paid period's end ends it.
        next_billing_ms: last || subscription.cancel_at_period_end ? null : end,
        in_grace_period: false,
        failed_attempts: 0,
        retry_at_ms: null,
      };
      // Due again at the new period end: the next billing, or the end that completes or cancels it.
      due = claimLost ? undefined : renewEntry(claim, end, at);
    } else {
      next = { ...subscription, ...linked, billing_count: Math.max(subscription.billing_count, billing) };
    }
    const committed = await commit(present(
      payments.putEntry(completed, { ifNew: true, name: 'payment.renewal' }),
      createOrderEntry(order),
      orderSaleEntry(scope, saleOfOrder(order)),
      renewalOutcomeEntry(subscription, next),
      due,
      ...eventEntries(scope, [
        { type: 'payment:created_success', resource: 'payment', id: paymentId, record: completed },
        { type: 'payment:completed', resource: 'payment', id: paymentId, record: completed },
        { type: 'order:created', resource: 'order', id: order.order_id, record: order },
        { type: 'order:payment_completed', resource: 'order', id: order.order_id, record: order },
        { type: 'subscription:renewal_success', resource: 'subscription', id: subscription.subscription_id, record: next },
      ], at),
    ));
    if (committed) {
      if (advancing) return 'renewed';
      logger.warn('A renewal charge was recorded after its subscription changed under it', { subscription_id: subscription.subscription_id, payment_id: paymentId, status: subscription.status });
      // Whatever is left of the due record under this run's claim goes (an immediate cancel removed it already).
      if (!claimLost) {
        await writeOne(finishEntry(claim)).catch((error: unknown) => {
          if (!(error instanceof TransactionRejectedError)) throw error;
        });
      }
      return next.status === 'active' ? 'renewed' : 'gone';
    }
    const [current, recorded] = await Promise.all([findSubscription(scope, read.subscription_id), payments.find(scope, paymentId)]);
    if (recorded) return 'renewed';
    if (!current) throw new Error(`Subscription ${read.subscription_id} is gone while its renewal charge ${paymentId} is unrecorded`);
    if (current.modified_ms === subscription.modified_ms) claimLost = true;
    subscription = current;
  }
  throw new Error(`Subscription ${read.subscription_id} kept changing while its renewal charge ${paymentId} was recorded`);
}

/** Renewals as due work: the sweep runs each subscription's record when its next billing is due. */
export const subscriptionRenewalWork: DueHandler = {
  kind: RENEWAL_KIND,
  leaseMs: RENEWAL_LEASE_MS,
  async run(platform: Platform, claim: DueClaim): Promise<void> {
    await renewSubscription(platform, claim);
  },
};
