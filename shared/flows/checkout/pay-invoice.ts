/**
 * Paying an invoice (commerce.md §4.3, §5.1, §9): the cart payment's twin, through the same
 * steps (sale-payment.ts, complete-payment.ts, recover-payment.ts) with the invoice in the cart's
 * place:
 *
 *   0. the invoice, read for a caller that reaches it (a pay link's token, customer scope over
 *      its own invoice, or a secret or trusted token); a lock left by a payment whose process
 *      died is settled first (recover-payment.ts);
 *   1. check 1: only an open invoice is paid (draft, paid or cancelled: 422 invalid_state);
 *      checks 2–8 as for a cart, for a charge of `total_remaining` (in full: no part payments);
 *   2. one transaction: lock the invoice (open, unchanged since read, not locked), store the
 *      payment `initiated`, make its recovery due when the lock lapses, reserve a use of the
 *      invoice's promotion code;
 *   3. the charge, keyed by the payment; 4a refused: the payment failed, lock and use released;
 *   4b approved: one transaction completes the payment, marks the invoice paid
 *      (`total_payments` = total), creates the order with the invoice's meta, counts the code's
 *      use, records the events of §14 and gives a limited payer reach (complete-payment.ts);
 *   5. after the commit: the card saved if asked, license codes, the confirmation email.
 *
 * A crash anywhere leaves the recovery record due, and the sweep (or the next attempt on the
 * invoice) completes a charged payment exactly once or fails an uncharged one and frees the
 * invoice; paying a paid invoice is 422, so no invoice is ever charged twice.
 */
import { type Principal } from '../../core/access/principal';
import { InUseError } from '../../http/errors';
import type { Platform } from '../../platform/ports';
import { readReachable } from '../../rest/reach';
import type { RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { transact } from '../../store/transact';
import { dueEntry } from '../../work/due-work-store';
import { invoiceDeclaration, invoiceLockEntry, invoiceLockHeld, invoices, invoiceState, InvoiceLockedError, InvoiceStateError, totalRemaining, type InvoiceRecord } from '../../modules/invoices';
import { type CartPaymentInput, initiatedEntry } from '../../modules/payments';
import { InvalidPromotionCodeError, reserveUseWrite } from '../../modules/promotions';
import { completeSalePayment, invoiceClosing, licenseLinksOf } from './complete-payment';
import { named, present } from './entries';
import { RECOVERY_DELAY_MS, settleLapsedLock } from './recover-payment';
import { afterSaleCompleted, chargeSalePayment, checkSalePayment, type PaymentOutcome } from './sale-payment';

/** What paying an invoice needs. */
export interface PayInvoiceInput {
  principal: Principal;
  invoiceId: string;
  /** The parsed body (`cartPaymentCreate`: the same as a cart's, §4.3). */
  body: CartPaymentInput;
  ipAddress: string;
}

/** The invoice to pay, read for the caller (404 out of reach), after settling a payment that died holding its lock. */
async function readPayableInvoice(platform: Platform, scope: RecordScope, input: PayInvoiceInput): Promise<InvoiceRecord> {
  const invoice = await readReachable(invoiceDeclaration, scope, input.invoiceId, input.principal);
  if (!invoice.open || !invoice.payment_lock || invoiceLockHeld(invoice, platform.clock.nowMs())) return invoice;
  await settleLapsedLock(platform, scope, invoice.payment_lock.payment_id, 'invoice');
  return invoices.get(scope, input.invoiceId);
}

/** Why the lock transaction was refused, as the API error (the invoice is read again to tell). */
async function lockRefusal(scope: RecordScope, invoice: InvoiceRecord, error: TransactionRejectedError, now: number): Promise<Error> {
  if (error.refused('promotion.reserve-use') && !error.refused('invoice.lock')) return new InvalidPromotionCodeError(invoice.promotion_code ?? '', 'max_uses_reached');
  const current = await invoices.get(scope, invoice.invoice_id);
  const state = invoiceState(current);
  if (state !== 'open') return new InvoiceStateError(current.invoice_id, state, 'paid');
  if (invoiceLockHeld(current, now)) return new InvoiceLockedError(current.invoice_id);
  return new InUseError('The invoice changed while the payment started; review it and pay again.', { reason: 'conflict' });
}

/** Pays an invoice in full (`POST /invoices/{invoice_id}/payments`). */
export async function payInvoice(platform: Platform, input: PayInvoiceInput): Promise<PaymentOutcome> {
  const { principal } = input;
  const scope: RecordScope = { accountId: principal.accountId, mode: principal.mode };
  const invoice = await readPayableInvoice(platform, scope, input);
  const now = platform.clock.nowMs();

  // 1: only an open invoice; 2–8: the checks every sale's payment shares.
  const state = invoiceState(invoice);
  if (state !== 'open') throw new InvoiceStateError(invoice.invoice_id, state, 'paid');
  const checked = await checkSalePayment(input, scope, invoice, { invoice_id: invoice.invoice_id }, totalRemaining(invoice), now, platform);
  const { promotion, initiated } = checked;
  const paymentId = initiated.payment_id;

  // 2: lock, initiate, make recovery due, reserve the code's use: all or nothing.
  const lockUntil = now + RECOVERY_DELAY_MS;
  try {
    await transact(
      present(
        invoiceLockEntry(scope, invoice, paymentId, lockUntil, now),
        initiatedEntry(initiated),
        dueEntry('payment-recovery', scope, paymentId, lockUntil + 1000, now),
        promotion ? named('promotion.reserve-use', reserveUseWrite(scope, promotion.promotion_id)) : undefined,
      ),
    );
  } catch (error) {
    if (error instanceof TransactionRejectedError) throw await lockRefusal(scope, invoice, error, now);
    throw error;
  }

  // 3–4a: the charge, or the recorded refusal. The license links are read meanwhile.
  const closing = invoiceClosing(scope, invoice);
  const links = licenseLinksOf(scope, closing);
  links.catch(() => undefined);
  const charged = await chargeSalePayment(platform, scope, checked, invoice);
  if ('ended' in charged) return charged.ended;

  // 4b: complete everything at once, or nothing; then 5.
  const completion = await completeSalePayment(scope, closing, charged.approved, promotion?.promotion_id, principal, platform.clock.nowMs(), links);
  return afterSaleCompleted(platform, scope, checked, completion, invoice);
}
