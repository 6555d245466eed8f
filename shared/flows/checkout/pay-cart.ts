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
import { assertReach } from '../../modules/identity';
import { type Principal } from '../../core/access/principal';
import { dueEntry } from '../../work/due-work-store';
import { ApiError, InUseError, InvalidStateError } from '../../http/errors';
import type { Platform } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { transact } from '../../store/transact';
import { forgetCart, recentCart, carts, lockEntry, lockHeld, type CartRecord } from '../../modules/carts';
import { InvalidPromotionCodeError, reserveUseWrite } from '../../modules/promotions';
import { type CartPaymentInput, initiatedEntry } from '../../modules/payments';
import { completeCartPayment, licenseLinksOf } from './complete-payment';
import { named, present } from './entries';
import { hasSubscriptionItem } from './subscriptions';
import { RECOVERY_DELAY_MS, settleLapsedLock } from './recover-payment';
import { afterSaleCompleted, chargeSalePayment, checkSalePayment, type CheckedPayment, type PaymentOutcome } from './sale-payment';

export type { PaymentOutcome } from './sale-payment';

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
  await settleLapsedLock(platform, scope, cart.payment_lock.payment_id, 'cart');
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
interface StartedPayment extends CheckedPayment {
  cart: CartRecord;
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
  // 1: the cart is open; 2–8: the checks every sale's payment shares.
  if (!cart.open) throw new InvalidStateError('The cart is already paid.', { reason: 'paid' });
  const checked = await checkSalePayment(input, scope, cart, { cart_id: cart.cart_id }, cart.totals.total, now, platform);
  const { promotion, initiated } = checked;
  const paymentId = initiated.payment_id;

  // 2: lock, initiate, make recovery due, reserve the code's use: all or nothing.
  const lockUntil = now + RECOVERY_DELAY_MS;
  await transact(
    present(
      lockEntry(scope, cart, paymentId, lockUntil, now),
      initiatedEntry(initiated),
      dueEntry('payment-recovery', scope, paymentId, lockUntil + 1000, now),
      promotion ? named('promotion.reserve-use', reserveUseWrite(scope, promotion.promotion_id)) : undefined,
    ),
  );
  return { ...checked, cart };
}

/** Charges the locked payment and completes it (order, cart closed, license requests, email), or records the decline. */
async function chargeAndComplete(platform: Platform, input: PayCartInput, scope: RecordScope, started: StartedPayment): Promise<PaymentOutcome> {
  const { cart, promotion } = started;
  // 3: the charge. Zero totals complete without one. The license links are read meanwhile.
  const links = licenseLinksOf(scope, cart);
  links.catch(() => undefined); // awaited by the completion; a declined charge drops it
  const charged = await chargeSalePayment(platform, scope, started, cart);
  if ('ended' in charged) return charged.ended;

  // 4b: complete everything at once, or nothing; then 5.
  const completion = await completeCartPayment(scope, cart, charged.approved, promotion?.promotion_id, input.principal, platform.clock.nowMs(), links);
  return afterSaleCompleted(platform, scope, started, completion, cart);
}
