/**
 * Recovery of a payment whose process died mid-way (issue: "no payment stays initiated").
 * Every payment is made with a `payment-recovery` due record in the same transaction as its
 * `initiated` record (due when its cart lock lapses); completing or failing the payment removes
 * it. What is still due afterwards belongs to a payment nobody finished, and is settled by the
 * gateway's own record of the charge (the charge is keyed by the payment):
 *
 *   charged and approved → completed: one order (cart payments), one confirmation email;
 *   charged and refused  → failed with the gateway's outcome;
 *   never charged        → the key is voided first (so a late charge cannot happen), then failed,
 *                          the cart and its promotion use released.
 *
 * It runs from the sweep (a scheduled job, shared/work) and, for a cart or an invoice, from the
 * next payment attempt that finds the lock lapsed. Every write is conditional on the payment still
 * being `initiated` (and, for a cart, on its lock), so running it twice changes nothing more.
 */
import { isWaiting, type Platform, type ChargeResult, type FailedChargeOutcome } from '../../platform/ports';
import { readPaymentSettingsCached } from '../../modules/accounts';
import { saleGatewayOf } from './sale-gateway';
import type { RecordScope } from '../../store/entity';
import { finishEntry, type DueClaim } from '../../work/due-work-store';
import type { DueHandler } from '../../work/runner';
import type { Principal } from '../../core/access/principal';
import { InUseError } from '../../http/errors';
import { logger } from '../../core/logging';
import { RecordExistsError, TransactionRejectedError } from '../../store/errors';
import { writeOne } from '../../store/transact';
import { carts, lockHeld } from '../../modules/carts';
import { invoiceLockHeld, invoices } from '../../modules/invoices';
import { type PaymentRecord, chargeKey, payments } from '../../modules/payments';
import { NOTHING_TO_CHARGE, replayRequestOf } from './charge-card';
import { completeCartPayment, completeDirectPayment, completeSalePayment, failPayment, invoiceClosing, withGatewayAnswer } from './complete-payment';
import { sendOrderConfirmation } from './confirmation';
import { openOrderLicenses } from '../license-fulfilment/run-request';

/** How recovery left a payment. */
export type RecoveryResult = 'completed' | 'failed' | 'not-initiated' | 'still-running';

/** What the gateway says of the payment's charge, voiding its key when no charge was made. */
async function settledCharge(platform: Platform, scope: RecordScope, payment: PaymentRecord): Promise<ChargeResult | undefined> {
  if (payment.gateway_outcome === 'approved') {
    return { outcome: 'approved', transactionId: payment.gateway_transaction_id, responseData: payment.response_data };
  }
  if (payment.total === 0) return NOTHING_TO_CHARGE;
  if (payment.gateway_charge?.gateway === 'stripe') return stripeCharge(platform, scope, payment);
  return platform.gateway.voidKey(chargeKey(scope, payment.payment_id));
}

/** How long Stripe answers a repeated create call with the first call's result (§4.7). */
const STRIPE_REPLAY_MS = 24 * 3600_000;

/**
 * What Stripe says of a payment's charge now (commerce.md §4.7): the PaymentIntent by its id
 * when one was answered; else the create call repeated under the same idempotency key within
 * 24 hours (its first result, or the charge made now); else a search by the payment's metadata.
 * A connection removed since answers `no_answer`: nothing is decided without Stripe.
 */
async function stripeCharge(platform: Platform, scope: RecordScope, payment: PaymentRecord): Promise<ChargeResult | undefined> {
  const sale = await saleGatewayOf(platform, scope, await readPaymentSettingsCached(scope.accountId));
  if (sale?.kind !== 'stripe') return { outcome: 'no_answer', transactionId: null, responseData: payment.response_data };
  const replay = platform.clock.nowMs() - payment.created_ms < STRIPE_REPLAY_MS ? replayRequestOf(payment) : undefined;
  return sale.gateway.lookup(chargeKey(scope, payment.payment_id), { transactionId: payment.gateway_transaction_id, ...(replay ? { request: replay } : {}) });
}

/** How recovery treats a payment Stripe still reports waiting on 3-D Secure. */
export interface RecoveryOptions {
  /**
   * The sale is being paid again (a new attempt found the lock lapsed): a payment still waiting
   * on 3-D Secure is abandoned, cancelled at Stripe and failed at once instead of after 24 hours,
   * so it can never be charged after the new attempt took the sale (Stripe's cancel answers a
   * charge that succeeded meanwhile, which then completes instead).
   */
  abandonWaiting?: boolean;
  /** The caller settling it (the client's commit): when it is the limited payer, its request sees the reach the completion gives at once. */
  principal?: Principal;
}

/**
 * Finishes or fails the payment `paymentId` if it is still `initiated` and its lock has lapsed,
 * or its paying request handed it off (a Stripe payment left waiting on 3-D Secure, processing or
 * a lost answer, commerce.md §4.7): then the client's commit, Stripe's webhook and the sweep all
 * run this same completion, whose writes are conditioned on the payment still being
 * `initiated`, so whichever comes first completes it and the others change nothing. A charge
 * Stripe still reports waiting leaves it `initiated` ('still-running'), except one waiting on
 * 3-D Secure for 24 hours (or abandoned, `options.abandonWaiting`): that is cancelled at Stripe
 * and failed.
 */
export async function recoverPayment(platform: Platform, scope: RecordScope, paymentId: string, options: RecoveryOptions = {}): Promise<RecoveryResult> {
  const payment = await payments.find(scope, paymentId);
  if (!payment || payment.status !== 'initiated') return 'not-initiated';
  const now = platform.clock.nowMs();
  const cart = payment.cart_id ? await carts.find(scope, payment.cart_id) : undefined;
  // An invoice payment is the cart payment's twin: the same lock on its invoice (commerce.md §9).
  const invoice = payment.invoice_id ? await invoices.find(scope, payment.invoice_id) : undefined;
  const sale = cart ?? invoice;
  const handedOff = payment.gateway_charge?.handed_off === true;
  if (!handedOff && sale && sale.payment_lock?.payment_id === paymentId && (cart ? lockHeld(cart, now) : invoiceLockHeld(sale, now))) return 'still-running';
  if (!handedOff && !sale && payment.cart_id === null && !payment.invoice_id && payment.created_ms + RECOVERY_DELAY_MS > now) return 'still-running';
  let charge = await settledCharge(platform, scope, payment);
  if (charge && isWaiting(charge.outcome)) {
    // §4.7: still waiting on 3-D Secure after 24 hours: cancelled at Stripe, then failed.
    if (charge.outcome !== 'action_required' || !charge.transactionId || (now - payment.created_ms < STRIPE_REPLAY_MS && !options.abandonWaiting)) return 'still-running';
    const gateway = await saleGatewayOf(platform, scope, await readPaymentSettingsCached(scope.accountId));
    if (gateway?.kind !== 'stripe') return 'still-running';
    charge = await gateway.gateway.cancel(charge.transactionId);
    if (isWaiting(charge.outcome)) return 'still-running';
  }
  try {
    if (charge?.outcome === 'approved') {
      const answered = withGatewayAnswer(payment, charge, now);
      if (!sale) {
        await completeDirectPayment(scope, answered, now);
        return 'completed';
      }
      if (sale.payment_lock?.payment_id !== paymentId || !sale.open) {
        // The lock is gone (taken over, or the cart paid): this charge cannot make an order. The
        // next attempt always recovers a lapsed lock before taking it, so this needs a race.
        logger.error('A charged payment lost its cart; it is failed and needs a refund', { payment_id: paymentId });
        await failPayment(scope, answered, 'error', undefined, now);
        return 'failed';
      }
      const { order, confirmation, licenses } = cart
        ? await completeCartPayment(scope, cart, answered, cart.promotion_id ?? undefined, options.principal, now)
        : await completeSalePayment(scope, invoiceClosing(scope, invoice!), answered, invoice!.promotion_id ?? undefined, options.principal, now);
      if (licenses) await openOrderLicenses(platform, licenses, order);
      await sendOrderConfirmation(platform, confirmation, { order, cart: sale });
      return 'completed';
    }
    const outcome: FailedChargeOutcome = charge ? (charge.outcome as FailedChargeOutcome) : 'timeout';
    const answered = charge ? withGatewayAnswer(payment, charge, now) : payment;
    const lockOurs = sale?.payment_lock?.payment_id === paymentId;
    await failPayment(scope, lockOurs ? answered : { ...answered, cart_id: null, invoice_id: null }, outcome, lockOurs ? (sale?.promotion_id ?? undefined) : undefined, now);
    return 'failed';
  } catch (error) {
    // Someone else recovered it first: the stored payment tells the truth.
    // (A concurrent completion's order, created only if new, refuses as RecordExistsError.)
    if (!(error instanceof TransactionRejectedError) && !(error instanceof InUseError) && !(error instanceof RecordExistsError)) throw error;
    const current = await payments.find(scope, paymentId);
    return current?.status === 'completed' ? 'completed' : current?.status === 'failed' ? 'failed' : 'still-running';
  }
}

/**
 * Settles the payment holding a sale's lapsed lock before a new attempt takes the sale over
 * (pay-cart.ts, pay-invoice.ts): a payment still waiting on 3-D Secure is abandoned (cancelled
 * at Stripe, failed); one Stripe still reports as processing, or that could not be asked, keeps
 * the sale: 409 in_use, since taking the sale over could leave a later charge without its order.
 */
export async function settleLapsedLock(platform: Platform, scope: RecordScope, paymentId: string, noun: 'cart' | 'invoice'): Promise<void> {
  const result = await recoverPayment(platform, scope, paymentId, { abandonWaiting: true });
  if (result !== 'still-running') return;
  const payment = await payments.find(scope, paymentId);
  if (payment?.status === 'initiated' && payment.gateway_charge?.handed_off) {
    throw new InUseError(`A payment of this ${noun} is still being processed by the card network; try again shortly.`, { reason: 'in_progress' });
  }
}

/** How long a payment may take before recovery may settle it (a cart's lock lasts as long). */
export const RECOVERY_DELAY_MS = 60_000;

/** Payment recovery as due work: settle the payment, or look again when its lock lapses. */
export const paymentRecoveryWork: DueHandler = {
  kind: 'payment-recovery',
  leaseMs: 2 * 60_000,
  async run(platform: Platform, claim: DueClaim): Promise<void> {
    const scope: RecordScope = { accountId: claim.record.account_id, mode: claim.record.mode };
    const result = await recoverPayment(platform, scope, claim.record.ref);
    if (result === 'still-running') throw new Error('The payment still holds its lock');
    // Completion and failure removed the record; a payment finished by others leaves it to us.
    await writeOne(finishEntry(claim)).catch((error: unknown) => {
      if (!(error instanceof TransactionRejectedError)) throw error;
    });
  },
};
