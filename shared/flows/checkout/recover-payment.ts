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
import type { Platform, ChargeResult, FailedChargeOutcome } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { finishEntry, type DueClaim } from '../../work/due-work-store';
import type { DueHandler } from '../../work/runner';
import { InUseError } from '../../http/errors';
import { logger } from '../../core/logging';
import { TransactionRejectedError } from '../../store/errors';
import { writeOne } from '../../store/transact';
import { carts, lockHeld } from '../../modules/carts';
import { invoiceLockHeld, invoices } from '../../modules/invoices';
import { type PaymentRecord, chargeKey, payments } from '../../modules/payments';
import { NOTHING_TO_CHARGE } from './charge-card';
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
  return platform.gateway.voidKey(chargeKey(scope, payment.payment_id));
}

/** Finishes or fails the payment `paymentId` if it is still `initiated` and its lock has lapsed. */
export async function recoverPayment(platform: Platform, scope: RecordScope, paymentId: string): Promise<RecoveryResult> {
  const payment = await payments.find(scope, paymentId);
  if (!payment || payment.status !== 'initiated') return 'not-initiated';
  const now = platform.clock.nowMs();
  const cart = payment.cart_id ? await carts.find(scope, payment.cart_id) : undefined;
  // An invoice payment is the cart payment's twin: the same lock on its invoice (commerce.md §9).
  const invoice = payment.invoice_id ? await invoices.find(scope, payment.invoice_id) : undefined;
  const sale = cart ?? invoice;
  if (sale && sale.payment_lock?.payment_id === paymentId && (cart ? lockHeld(cart, now) : invoiceLockHeld(sale, now))) return 'still-running';
  if (!sale && payment.cart_id === null && !payment.invoice_id && payment.created_ms + RECOVERY_DELAY_MS > now) return 'still-running';
  const charge = await settledCharge(platform, scope, payment);
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
        ? await completeCartPayment(scope, cart, answered, cart.promotion_id ?? undefined, undefined, now)
        : await completeSalePayment(scope, invoiceClosing(scope, invoice!), answered, invoice!.promotion_id ?? undefined, undefined, now);
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
    if (!(error instanceof TransactionRejectedError) && !(error instanceof InUseError)) throw error;
    const current = await payments.find(scope, paymentId);
    return current?.status === 'completed' ? 'completed' : current?.status === 'failed' ? 'failed' : 'still-running';
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
