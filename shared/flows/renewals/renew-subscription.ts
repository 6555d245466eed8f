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
 *   3. charges through the gateway port with a key derived from the subscription, the billing
 *      number and the attempt, so a run repeated after a crash (the lease lapsed) gets the
 *      gateway's first answer back and never takes the money twice;
 *   4. commits the outcome in one transaction, conditional on the subscription still having the
 *      billing count and failed attempts it was read with: success writes the payment, the order,
 *      the advanced period and the events; failure writes the failed payment, the grace period
 *      (or, after the last retry, the cancellation) and the events; both move or remove the due
 *      record under the run's claim.
 *
 * A crash before 4 leaves the record claimed until its lease lapses; the next run recomputes the
 * same payment id and key, and writes the outcome once. `fast_forward` (test mode) runs the same
 * function under a hold (`holdDue`) instead of waiting for the due time.
 */
import { derivedId } from '../../core/ids';
import { logger } from '../../core/logging';
import type { Platform, ChargeResult, FailedChargeOutcome } from '../../platform/ports';
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
import { NOTHING_TO_CHARGE } from '../checkout/charge-card';
import { orderSaleEntry, saleOfOrder } from '../../modules/reports';

/** How long a renewal run may hold its subscription before another run may take it. */
export const RENEWAL_LEASE_MS = 2 * 60_000;

/** How a run left the subscription. */
export type RenewalResult = 'renewed' | 'failed' | 'cancelled' | 'completed' | 'not-due' | 'gone';

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
  const [settings, tax, customer, method] = await Promise.all([
    readPaymentSettingsCached(scope.accountId),
    readTaxSettingsCached(scope.accountId),
    findCustomerRecord(scope, subscription.customer_id),
    subscription.payment_method_id ? findCustomerPaymentMethod(scope, subscription.customer_id, subscription.payment_method_id) : Promise.resolve(undefined),
  ]);
  const totals = renewalTotals(subscription, customer, settings, tax);
  let result: ChargeResult;
  if (totals.total === 0) result = NOTHING_TO_CHARGE;
  else if (!method) result = { outcome: 'declined', transactionId: null, responseData: { authorization_code: null, avs_match: null, cvv_match: null, message: 'No saved payment method to charge' } };
  else {
    result = await platform.gateway.charge({
      key: chargeKey(scope, paymentId),
      amount: totals.total,
      currency: totals.currency,
      card: method.card,
      // §10.2: no CVV check (none is entered); the address check uses the stored postal code.
      billingPostalCode: (method.card.billingAddress?.postal_code as string | null | undefined) ?? customer?.billing_address.postal_code ?? null,
      ignoreBadCvv: settings.ignore_bad_cvv,
      ignoreBadAvs: settings.ignore_bad_avs,
    });
  }

  // 4: the outcome, once.
  const at = platform.clock.nowMs();
  const payment = newPaymentRecord(scope, paymentId, {
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
    response_data: result.responseData,
    gateway_transaction_id: result.transactionId,
    error_code: result.outcome === 'approved' ? null : gatewayErrorCode(result.outcome as FailedChargeOutcome),
    ip_address: null,
    customer_id: subscription.customer_id,
    cart_id: null,
    order_id: null,
    subscription_id: subscriptionId,
    meta: null,
    fingerprint: method ? `payment_method:${method.payment_method_id}` : null,
  }, at);
  const version = Math.max(at, subscription.modified_ms + 1);

  if (result.outcome === 'approved') {
    const order = renewalOrder(scope, subscription, totals, paymentId, at);
    const completed: PaymentRecord = { ...payment, order_id: order.order_id };
    const plan = { billing_interval: subscription.billing_interval, billing_interval_unit: subscription.billing_interval_unit };
    const last = subscription.end_at_billing_count !== null && billing >= subscription.end_at_billing_count;
    // The period advances from the previous period end, keeping the anchor day (periods.ts).
    const start = subscription.period_end_ms;
    const end = periodEnd(subscription.anchor_ms, plan, billing);
    const renewed: SubscriptionRecord = {
      ...subscription,
      billing_count: billing,
      period_start_ms: start,
      period_end_ms: end,
      next_billing_ms: last ? null : end,
      in_grace_period: false,
      failed_attempts: 0,
      retry_at_ms: null,
      order_ids: [...subscription.order_ids, order.order_id],
      payment_ids: [...subscription.payment_ids, paymentId],
      modified_ms: version,
    };
    const committed = await commit([
      payments.putEntry(completed, { ifNew: true, name: 'payment.renewal' }),
      createOrderEntry(order),
      orderSaleEntry(scope, saleOfOrder(order)),
      renewalOutcomeEntry(subscription, renewed),
      // Due again at the new period end: the next billing, or the end that completes the plan.
      renewEntry(claim, end, at),
      ...eventEntries(scope, [
        { type: 'payment:created_success', resource: 'payment', id: paymentId, record: completed },
        { type: 'payment:completed', resource: 'payment', id: paymentId, record: completed },
        { type: 'order:created', resource: 'order', id: order.order_id, record: order },
        { type: 'order:payment_completed', resource: 'order', id: order.order_id, record: order },
        { type: 'subscription:renewal_success', resource: 'subscription', id: subscriptionId, record: renewed },
      ], at),
    ]);
    return committed ? 'renewed' : 'retry';
  }

  // Declined: retry on the account's retry days after the period end, or cancel after the last.
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

/** Renewals as due work: the sweep runs each subscription's record when its next billing is due. */
export const subscriptionRenewalWork: DueHandler = {
  kind: RENEWAL_KIND,
  leaseMs: RENEWAL_LEASE_MS,
  async run(platform: Platform, claim: DueClaim): Promise<void> {
    await renewSubscription(platform, claim);
  },
};
