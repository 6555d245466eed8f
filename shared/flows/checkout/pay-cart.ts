/**
 * Paying a cart (commerce.md §4.3, §5.1): the checkout's one multi-step write, as explicit
 * steps with a recovery story. An operation: plain inputs and the platform's ports in, the
 * payment (and its order) out; no HTTP (payment-actions.ts renders it).
 *
 *   0. the cart: this process's copy from a moment ago when it has one (cart-cache.ts; the lock
 *      in step 2 is conditioned on its version, and anything a stale copy made steps 1–2
 *      refuse starts over from a read), else read; a lock left by a payment whose process
 *      died is settled first (recover-payment.ts);
 *   1. checks, in the contract's order (nothing is stored when one fails); check 4 re-checks
 *      the cart's promotion code (§4.3, §11);
 *   2. one transaction: lock the cart (open, unchanged since read, not locked), store the
 *      payment as `initiated`, make its recovery due when the lock lapses, and reserve a use of
 *      the cart's promotion code. Concurrent payments of one cart get 409; a used-up code 400
 *      `max_uses_reached`, before anything is charged;
 *   3. charge through the gateway port, keyed by the payment (charge-card.ts);
 *   4a. refused: one transaction fails the payment and releases the lock and the use;
 *   4b. approved: one transaction completes everything (complete-payment.ts);
 *   5. after the commit: save the card if asked, send the confirmation (due work).
 * A crash anywhere leaves the recovery record due: the sweep (or the next attempt on the cart)
 * completes a charged payment exactly once or fails an uncharged one and releases the cart.
 * Why reserve the promotion use before the charge: a completion refused by a used-up code
 * would leave money taken without an order.
 */
import { readPaymentSettingsCached, type PaymentSettings } from '../../modules/accounts';
import { assertReach } from '../../modules/identity';
import { type Principal } from '../../core/access/principal';
import { dueEntry } from '../../work/due-work-store';
import { ApiError, InUseError, InvalidStateError } from '../../http/errors';
import { newId } from '../../core/ids';
import { isWaiting, type Platform, type FailedChargeOutcome, type WaitingChargeOutcome } from '../../platform/ports';
import { invalid } from '../../rest/input';
import type { RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { transact } from '../../store/transact';
import { forgetCart, recentCart, carts, lockEntry, lockHeld, type CartRecord } from '../../modules/carts';
import type { OrderRecord } from '../../modules/orders';
import { InvalidPromotionCodeError, recheckSalePromotion, reserveUseWrite } from '../../modules/promotions';
import { FeatureNotEnabledError, newPaymentRecord, savedCardRef, type PaymentRecord, type CartPaymentInput, initiatedEntry } from '../../modules/payments';
import { chargeCard, gatewayChargeOf } from './charge-card';
import { assertChargeable, cardRulesOf, saleGatewayOf, type SaleGateway } from './sale-gateway';
import { handOffPayment } from './hand-off';
import { assertNotDuplicate, checkCustomer, parsePaymentMethod, saveCardAfterPayment } from './checks';
import { afterCommit, completeCartPayment, failPayment, licenseLinksOf, withGatewayAnswer } from './complete-payment';
import { sendOrderConfirmation } from './confirmation';
import { openOrderLicenses } from '../license-fulfilment/run-request';
import { named, present } from './entries';
import { hasSubscriptionItem } from './subscriptions';
import { RECOVERY_DELAY_MS, recoverPayment } from './recover-payment';

/** How a payment attempt ended: completed (with its order), or failed at the gateway. */
export type PaymentOutcome =
  | { status: 'completed'; payment: PaymentRecord; order: OrderRecord | null }
  | { status: 'failed'; payment: PaymentRecord; outcome: FailedChargeOutcome }
  /** Left `initiated` at a live gateway (3-D Secure, processing, no answer: §4.7); the payment as stored. */
  | { status: 'waiting'; payment: PaymentRecord; outcome: WaitingChargeOutcome };

/** What paying a cart needs. */
export interface PayCartInput {
  principal: Principal;
  cartId: string;
  /** The parsed body (`cartPaymentCreate`). */
  body: CartPaymentInput;
  ipAddress: string;
}

/**
 * The cart to pay: the copy this process stored a moment ago when it is open and unlocked
 * (`fromCopy`; the lock write re-checks its version), or else read, settling a payment that
 * died holding its lock first.
 */
async function readPayableCart(platform: Platform, scope: RecordScope, cartId: string, copyAllowed: boolean): Promise<{ cart: CartRecord; fromCopy: boolean }> {
  const copy = copyAllowed ? recentCart(scope, cartId) : undefined;
  if (copy?.open && !copy.payment_lock) return { cart: copy, fromCopy: true };
  const cart = await carts.get(scope, cartId);
  if (!cart.open || !cart.payment_lock || lockHeld(cart, platform.clock.nowMs())) return { cart, fromCopy: false };
  await recoverPayment(platform, scope, cart.payment_lock.payment_id);
  return { cart: await carts.get(scope, cartId), fromCopy: false };
}

/** A payment that started from a cart copy was refused before anything was written: start again from a read. */
class StaleCartCopy extends Error {}

/** Why the lock transaction was refused, as the API error (the cart is read again to tell). */
async function lockRefusal(scope: RecordScope, cart: CartRecord, error: TransactionRejectedError, now: number): Promise<Error> {
  if (error.refused('promotion.reserve-use') && !error.refused('cart.lock')) return new InvalidPromotionCodeError(cart.promotion_code ?? '', 'max_uses_reached');
  if (!error.refused('cart.lock')) return new InUseError('The cart changed while the payment started; review it and pay again.', { reason: 'conflict' });
  const current = await carts.get(scope, cart.cart_id);
  if (!current.open) return new InvalidStateError('The cart is already paid.', { reason: 'paid' });
  if (lockHeld(current, now)) return new InUseError('A payment of this cart is already running.', { reason: 'in_progress' });
  return new InUseError('The cart changed while the payment started; review it and pay again.', { reason: 'conflict' });
}

/** A payment whose lock write committed: what its charge and completion go on with. */
interface StartedPayment {
  cart: CartRecord;
  settings: PaymentSettings;
  promotion: Awaited<ReturnType<typeof recheckSalePromotion>>;
  method: Awaited<ReturnType<typeof parsePaymentMethod>> | undefined;
  total: number;
  initiated: PaymentRecord;
  sale: SaleGateway | undefined;
}

/** Pays a cart (`POST /carts/{cart_id}/payments`). */
export async function payCart(platform: Platform, input: PayCartInput): Promise<PaymentOutcome> {
  const { principal } = input;
  const scope: RecordScope = { accountId: principal.accountId, mode: principal.mode };
  assertReach(principal, `carts/${input.cartId}`, 'cart');
  let started: StartedPayment;
  try {
    started = await startPayment(platform, input, scope, true);
  } catch (error) {
    if (!(error instanceof StaleCartCopy)) throw error;
    // Nothing was written or charged (the lock is the payment's first write): start again from a read.
    forgetCart(scope, input.cartId);
    started = await startPayment(platform, input, scope, false);
  }
  return chargeAndComplete(platform, input, scope, started);
}

/**
 * Checks the cart and takes its lock with the initiated payment. A refusal that may come from a
 * stale copy of the cart (a check, or the lock) is `StaleCartCopy`; the caller reads and retries.
 */
async function startPayment(platform: Platform, input: PayCartInput, scope: RecordScope, copyAllowed: boolean): Promise<StartedPayment> {
  const { cart, fromCopy } = await readPayableCart(platform, scope, input.cartId, copyAllowed);
  const now = platform.clock.nowMs();
  try {
    return await checkAndLock(input, scope, cart, now, platform);
  } catch (error) {
    if (fromCopy && (error instanceof ApiError || error instanceof TransactionRejectedError)) throw new StaleCartCopy();
    if (error instanceof TransactionRejectedError) throw await lockRefusal(scope, cart, error, now);
    throw error;
  }
}

/** The contract's checks of `cart` at `now`, then the lock transaction (refused: `TransactionRejectedError`); the payment is dated by `clock`. */
async function checkAndLock(input: PayCartInput, scope: RecordScope, cart: CartRecord, now: number, platform: Platform): Promise<StartedPayment> {
  const { clock } = platform;
  const settings = await readPaymentSettingsCached(scope.accountId);
  const sale = cart.totals.total > 0 ? await saleGatewayOf(platform, scope, settings) : undefined;

  // 1–6: the checks, in the contract's order.
  if (!cart.open) throw new InvalidStateError('The cart is already paid.', { reason: 'paid' });
  if (cart.items.length === 0) invalid('items', 'The cart has no items to pay for.', 'required');
  checkCustomer(cart.customer, settings);
  const lines = cart.items.map((item) => ({ productId: item.product_id, quantity: item.quantity }));
  const promotion = await recheckSalePromotion(scope, cart, lines, now);
  if (cart.items.some((item) => item.type === 'physical') && (cart.shipping_quotes?.length ?? 0) > 0 && cart.totals.shipping_item === null) {
    invalid('shipping_method_id', 'Select a shipping method before paying.', 'required');
  }
  const total = cart.totals.total;
  const method = total > 0 ? await parsePaymentMethod(input.body.payment_method, now, scope, cart.customer.customer_id, cardRulesOf(sale, settings)) : undefined;
  const meta = input.body.meta ?? null;
  const fingerprint = method?.fingerprint ?? null;
  // 7–8: duplicates, then whether a gateway exists for this mode.
  if (fingerprint && input.body.allow_duplicate !== true) {
    await assertNotDuplicate(scope, fingerprint, cart.currency, total, settings.duplicate_payment_timeout, now);
  }
  if (!sale && total > 0) {
    throw new FeatureNotEnabledError('Live card payments need the account\'s Stripe connection (/settings/payment stripe_live).', null);
  }
  assertChargeable(sale, total, cart.currency);
  const stripeFields = { sale, metadata: { account_id: scope.accountId, payment_id: '', cart_id: cart.cart_id }, ...(method?.save && settings.allow_save_cards ? { saveCard: { email: cart.customer.email ?? null, name: cart.customer.name ?? null } } : {}) };

  // 2: lock, initiate, make recovery due, reserve the code's use: all or nothing.
  const paymentId = newId();
  const lockUntil = now + RECOVERY_DELAY_MS;
  stripeFields.metadata.payment_id = paymentId;
  const gatewayCharge = gatewayChargeOf({ ...stripeFields, amount: total, currency: cart.currency, card: method?.card, fallbackPostalCode: null, settings });
  const initiated = newPaymentRecord(scope, paymentId, {
    ...(gatewayCharge ? { gateway_charge: gatewayCharge } : {}),
    status: 'initiated',
    currency: cart.currency,
    subtotal: cart.totals.subtotal,
    shipping: cart.totals.shipping,
    tax: cart.totals.tax,
    total,
    settlement_currency: cart.totals.settlement_currency,
    settlement_subtotal: cart.totals.settlement_subtotal,
    settlement_shipping: cart.totals.settlement_shipping,
    settlement_tax: cart.totals.settlement_tax,
    settlement_total: cart.totals.settlement_total,
    total_refunded: 0,
    reference: null,
    description: null,
    referrer: cart.referrer,
    payment_method: method ? { payment_method_id: method.paymentMethodId, type: 'credit_card', data: method.data } : null,
    response_data: { authorization_code: null, avs_match: null, cvv_match: null, message: null },
    gateway_transaction_id: null,
    error_code: null,
    ip_address: input.ipAddress,
    customer_id: cart.customer.customer_id,
    cart_id: cart.cart_id,
    order_id: null,
    meta,
    fingerprint,
    // §4.2: a subscription sale's new card is always saved, by its completion (./subscriptions.ts).
    ...(method?.card.kind === 'new' && hasSubscriptionItem(cart.items) ? { saved_card: savedCardRef(method.card) } : {}),
  }, clock.nowMs());
  await transact(
    present(
      lockEntry(scope, cart, paymentId, lockUntil, now),
      initiatedEntry(initiated),
      dueEntry('payment-recovery', scope, paymentId, lockUntil + 1000, now),
      promotion ? named('promotion.reserve-use', reserveUseWrite(scope, promotion.promotion_id)) : undefined,
    ),
  );
  return { cart, settings, promotion, method, total, initiated, sale };
}

/** Charges the locked payment and completes it (order, cart closed, license requests, email), or records the decline. */
async function chargeAndComplete(platform: Platform, input: PayCartInput, scope: RecordScope, started: StartedPayment): Promise<PaymentOutcome> {
  const { cart, settings, promotion, method, total, initiated, sale } = started;
  const paymentId = initiated.payment_id;
  // 3: the charge. Zero totals complete without one. The license links are read meanwhile.
  const links = licenseLinksOf(scope, cart);
  links.catch(() => undefined); // awaited by the completion; a declined charge drops it
  const result = await chargeCard(platform, {
    scope, paymentId, amount: total, currency: cart.currency, card: method?.card,
    fallbackPostalCode: cart.customer.billing_address.postal_code ?? null, settings,
    ...(initiated.gateway_charge ? { sale, metadata: initiated.gateway_charge.metadata, ...(initiated.gateway_charge.save ? { saveCard: initiated.gateway_charge.save } : {}) } : {}),
  });
  const answered = withGatewayAnswer(initiated, result, platform.clock.nowMs());
  // §4.7: 3-D Secure, processing or no answer leave it initiated for the commit, webhook or sweep.
  if (isWaiting(result.outcome)) return { status: 'waiting', payment: await handOffPayment(scope, answered), outcome: result.outcome };
  if (result.outcome !== 'approved') {
    const failed = await failPayment(scope, answered, result.outcome, promotion?.promotion_id, answered.modified_ms);
    return { status: 'failed', payment: failed, outcome: result.outcome };
  }

  // 4b: complete everything at once, or nothing.
  const { order, completed: committed, confirmation, licenses } = await completeCartPayment(scope, cart, answered, promotion?.promotion_id, input.principal, platform.clock.nowMs(), links);
  const completed = await saveCardAfterPayment(scope, method, committed, settings.allow_save_cards, platform.clock);
  // List codes are served here, before the answer; remote requests are queued (licenses.md §4.1).
  if (licenses) await openOrderLicenses(platform, licenses, order).catch(afterCommit('Opening the license requests', paymentId));
  await sendOrderConfirmation(platform, confirmation, { order, cart }).catch(afterCommit('The confirmation email', paymentId));
  return { status: 'completed', payment: completed, order };
}
