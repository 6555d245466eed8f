/**
 * The payments entity: a payment's life as writes (initiated, then completed or failed, each
 * only from `initiated`), the saved-method note, versioned saves of the client's fields, the
 * payments of a cart or a customer (gsi1, filtered) and the duplicate-detection lookup (gsi3).
 */
import { byDate, defineEntity, type Change, type RecordScope } from '../../store/entity';
import { writeOne, type TransactEntry } from '../../store/transact';
import { VersionConflictError } from '../../store/errors';
import { listSortKey } from '../../store/keys';
import type { PaymentRecord, PaymentRefundLedger } from './payment-records';

/** The duplicate-detection partition: same account, mode, card, currency and total (§4.5). */
function duplicatePartition(scope: RecordScope, fingerprint: string, currency: string, total: number): string {
  return `${scope.accountId}#${scope.mode}#payment-fingerprint#${fingerprint}#${currency}#${total}`;
}

/**
 * Payments (mode-scoped): by date_created (gsi1), date_modified (gsi2; an outcome leaves a
 * payment where it was, `outcomeEntry`) and, with a card fingerprint, for duplicate detection (gsi3).
 */
export const payments = defineEntity<PaymentRecord>({ name: 'payment', collection: 'payments', scope: 'mode', idField: 'payment_id',
  indexes: { gsi1: 'payments by date_created; payments of a cart or an order (filtered)', gsi2: 'payments by date_modified', gsi3: 'duplicate detection by card fingerprint, currency and total' },
  indexKeys: (payment, partition) => ({
    gsi1: byDate(partition, payment.created_ms, payment.payment_id),
    gsi2: byDate(partition, payment.modified_ms, payment.payment_id),
    gsi3: payment.fingerprint
      ? byDate(duplicatePartition({ accountId: payment.account_id, mode: payment.mode }, payment.fingerprint, payment.currency, payment.total), payment.created_ms, payment.payment_id)
      : undefined,
  }) });

/** The gateway idempotency key of a payment: one charge per payment, ever. */
export function chargeKey(scope: RecordScope, paymentId: string): string {
  return `${scope.accountId}#${scope.mode}#${paymentId}`;
}

/** Stores a new payment as `initiated` (its id must be new). */
export function initiatedEntry(payment: PaymentRecord): TransactEntry {
  return payments.putEntry(payment, { ifNew: true, name: 'payment.initiate' });
}

/**
 * Stores the payment's outcome (completed or failed), only if it is still `initiated`: an outcome
 * is written once. It writes only what the outcome decides (status, error, the gateway's answer,
 * the customer and order it links) and drops the working fields (`gateway_outcome`, `payer`), so
 * a client's change made while the payment was running (`updatePayment`: reference,
 * description, meta) stays, and so does the payment's place in the date_modified listing: only a
 * client's change moves it there.
 */
export function outcomeEntry(payment: PaymentRecord): TransactEntry {
  return payments.updateEntry({ accountId: payment.account_id, mode: payment.mode }, payment.payment_id, {
    name: 'payment.outcome',
    set: {
      status: payment.status,
      error_code: payment.error_code,
      gateway_transaction_id: payment.gateway_transaction_id,
      response_data: payment.response_data,
      payment_method: payment.payment_method,
      customer_id: payment.customer_id,
      order_id: payment.order_id,
      modified_ms: payment.modified_ms,
    },
    remove: ['gateway_outcome', 'payer'],
    condition: { expression: '#status = :initiated', names: { '#status': 'status' }, values: { ':initiated': 'initiated' } },
  });
}

/** Notes the saved method a completed payment's card became. */
export async function recordSavedMethod(payment: PaymentRecord, paymentMethodId: string): Promise<void> {
  await writeOne(
    payments.updateEntry({ accountId: payment.account_id, mode: payment.mode }, payment.payment_id, {
      name: 'payment.saved-method',
      set: { 'payment_method.payment_method_id': paymentMethodId },
      condition: { expression: 'attribute_exists(pk)' },
    }),
  );
}

/** A completed or pending payment with the same card, currency and total since `sinceMs`, if any. */
export async function findRecentDuplicate(scope: RecordScope, fingerprint: string, currency: string, total: number, sinceMs: number): Promise<PaymentRecord | undefined> {
  const found = await payments.query(
    'gsi3',
    {
      KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk >= :since',
      FilterExpression: '#status IN (:completed, :pending)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pk': duplicatePartition(scope, fingerprint, currency, total), ':since': new Date(sinceMs).toISOString(), ':completed': 'completed', ':pending': 'pending' },
    },
    1,
  );
  return found[0];
}

/** Applies `change` to a payment over the version read, again after a lost race; answers it as written. */
export function updatePayment(scope: RecordScope, paymentId: string, change: Change<PaymentRecord>): Promise<PaymentRecord> {
  return payments.update(scope, paymentId, change);
}

/** The payments of the scope whose `property` is `value`, in creation order (gsi1, filtered). */
async function paymentsWhere(scope: RecordScope, property: 'cart_id' | 'customer_id' | 'invoice_id', value: string): Promise<PaymentRecord[]> {
  return payments.query('gsi1', {
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: `${property} = :value`,
    ExpressionAttributeValues: { ':pk': payments.partition(scope), ':value': value },
  });
}

/** A cart's payment attempts, in creation order. */
export async function paymentsOfCart(scope: RecordScope, cartId: string): Promise<PaymentRecord[]> {
  return paymentsWhere(scope, 'cart_id', cartId);
}

/** An invoice's payment attempts, in creation order. */
export async function paymentsOfInvoice(scope: RecordScope, invoiceId: string): Promise<PaymentRecord[]> {
  return paymentsWhere(scope, 'invoice_id', invoiceId);
}

/** A customer's payments, in creation order. */
export async function paymentsOfCustomer(scope: RecordScope, customerId: string): Promise<PaymentRecord[]> {
  return paymentsWhere(scope, 'customer_id', customerId);
}

/** The version a refund write gives the payment read as `payment` at `now`: later than any it had. */
function refundVersion(payment: PaymentRecord, now: number): { modified_ms: number; gsi2sk: string } {
  const modified = Math.max(now, payment.modified_ms + 1);
  return { modified_ms: modified, gsi2sk: listSortKey(modified, payment.payment_id) };
}

/** The condition that the payment's refund ledger is still the one read (`seq`), or still absent. */
function ledgerAsRead(payment: PaymentRecord): { expression: string; values?: Record<string, unknown> } {
  return payment.refund_ledger ? { expression: 'refund_ledger.seq = :ledger_seq', values: { ':ledger_seq': payment.refund_ledger.seq } } : { expression: 'attribute_not_exists(refund_ledger)' };
}

/**
 * Writes the payment's refund ledger after a refund reserved (`reserve`) or gave back money,
 * only over the ledger read: a concurrent refund refuses it (`VersionConflictError`: read again
 * and decide again). A reservation also requires the payment `completed` and the reserved total
 * within its total, so no refund, however they race, ever reserves more than was paid.
 * The version moves on, so a client's versioned change made meanwhile (`updatePayment`) reads again.
 */
export function refundLedgerEntry(payment: PaymentRecord, ledger: PaymentRefundLedger, now: number, reserve: boolean): TransactEntry {
  const asRead = ledgerAsRead(payment);
  return payments.updateEntry({ accountId: payment.account_id, mode: payment.mode }, payment.payment_id, {
    name: reserve ? 'payment.refund-reserve' : 'payment.refund-release',
    set: { refund_ledger: ledger, ...refundVersion(payment, now) },
    condition: reserve
      ? {
          expression: `#status = :completed AND #total >= :reserved AND ${asRead.expression}`,
          names: { '#status': 'status', '#total': 'total' },
          values: { ':completed': 'completed', ':reserved': ledger.reserved.total, ...asRead.values },
        }
      : { expression: asRead.expression, ...(asRead.values ? { values: asRead.values } : {}) },
    onConditionFailed: () => new VersionConflictError(`payment ${payment.payment_id} changed concurrently`),
  });
}

/**
 * Adds a completed refund to the payment's `total_refunded`, only over the amount read (it only
 * ever grows), and makes the payment `refunded` once that reaches its total (commerce.md §4.6).
 */
export function refundedAmountEntry(payment: PaymentRecord, totalRefunded: number, now: number): TransactEntry {
  return payments.updateEntry({ accountId: payment.account_id, mode: payment.mode }, payment.payment_id, {
    name: 'payment.refunded-amount',
    set: { total_refunded: totalRefunded, status: totalRefunded >= payment.total ? 'refunded' : 'completed', ...refundVersion(payment, now) },
    condition: { expression: 'total_refunded = :before AND #status = :completed', names: { '#status': 'status' }, values: { ':before': payment.total_refunded, ':completed': 'completed' } },
    onConditionFailed: () => new VersionConflictError(`payment ${payment.payment_id} changed concurrently`),
  });
}
