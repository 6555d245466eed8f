/**
 * The invoices entity and every write to an invoice: creation (with its `invoice:created`
 * event), the versioned update of a changed invoice (only over the state and lock as read), the
 * payment lock, its release, and closing the invoice for its order. Only this store knows the
 * conditions of those writes.
 */
import type { Clock } from '../../platform/ports';
import { byDate, defineEntity, IS_NEW, writeAll, type Change, type Condition, type RecordScope, type Revision } from '../../store/entity';
import type { TransactEntry } from '../../store/transact';
import type { InvoiceRecord } from './records';

/** The listing partition of one customer's invoices (gsi3). */
function customerInvoicesPartition(scope: RecordScope, customerId: string): string {
  return `${scope.accountId}#${scope.mode}#customer-invoices#${customerId}`;
}

/** Invoices (mode-scoped): by date_created (gsi1), date_modified (gsi2), per linked customer (gsi3). */
export const invoices = defineEntity<InvoiceRecord>({ name: 'invoice', collection: 'invoices', scope: 'mode', idField: 'invoice_id',
  indexes: { gsi1: 'invoices by date_created (cursor list)', gsi2: 'invoices by date_modified (cursor list, date_type=date_modified)', gsi3: "a customer's invoices" },
  indexKeys: (invoice, partition) => ({
    gsi1: byDate(partition, invoice.created_ms, invoice.invoice_id),
    gsi2: byDate(partition, invoice.modified_ms, invoice.invoice_id),
    ...(invoice.customer.customer_id
      ? { gsi3: byDate(customerInvoicesPartition({ accountId: invoice.account_id, mode: invoice.mode }, invoice.customer.customer_id), invoice.created_ms, invoice.invoice_id) }
      : {}),
  }) });

/** Whether the invoice's payment lock is held at `now` by a payment that has not lapsed. */
export function invoiceLockHeld(invoice: Pick<InvoiceRecord, 'payment_lock'>, now: number): boolean {
  return Boolean(invoice.payment_lock && invoice.payment_lock.until_ms >= now);
}

/** Writes a new invoice with `extra` entries (its event) in one transaction. */
export async function insertInvoice(invoice: InvoiceRecord, extra: readonly TransactEntry[]): Promise<void> {
  await writeAll([invoices.putEntry(invoice, { name: 'invoice.create', condition: IS_NEW }), ...extra]);
}

/** Only while the invoice is in the state read (draft, open, payment status) and its payment lock is as read. */
function stateAndLockAsRead(current: InvoiceRecord): Condition {
  const lock = current.payment_lock;
  return {
    expression: `draft = :draft AND payment_status = :status AND ${lock
      ? 'payment_lock.payment_id = :lock_id AND payment_lock.until_ms = :lock_until'
      : '(attribute_not_exists(payment_lock) OR attribute_type(payment_lock, :null_type))'}`,
    values: { ':draft': current.draft, ':status': current.payment_status, ...(lock ? { ':lock_id': lock.payment_id, ':lock_until': lock.until_ms } : { ':null_type': 'NULL' }) },
  };
}

/**
 * Applies `change` to an invoice read by id: written with a new version (`modified_ms`, strictly
 * forward from the clock) only over the version, state and lock read, reading and changing
 * again after a lost race. Answers the invoice as saved.
 */
export function updateInvoice(scope: RecordScope, invoiceId: string, change: Change<InvoiceRecord>, clock: Pick<Clock, 'nowMs'>): Promise<InvoiceRecord> {
  return invoices.update(scope, invoiceId, async (current) => {
    const revision: Revision<InvoiceRecord> = await change(current);
    if (revision.write === false) return revision;
    const modified = Math.max(clock.nowMs(), current.modified_ms + 1);
    return { ...revision, next: { ...revision.next, modified_ms: modified }, condition: stateAndLockAsRead(current) };
  }, { transaction: true }) as Promise<InvoiceRecord>;
}

/** Deletes a draft (only while it is still one: a publish that won meanwhile makes this a lost race). */
export function removeDraft(scope: RecordScope, invoiceId: string, decide: (current: InvoiceRecord) => void): Promise<void> {
  return invoices.remove(scope, invoiceId, (current) => {
    decide(current);
    return { condition: { expression: 'draft = :true AND modified_ms = :version', values: { ':true': true, ':version': current.modified_ms } } };
  });
}

/**
 * Takes the invoice for a payment until `untilMs`: only an open invoice, unchanged since it was
 * read, whose lock is free or lapsed (the cart's lock, commerce.md §3.5, on the invoice).
 */
export function invoiceLockEntry(scope: RecordScope, invoice: InvoiceRecord, paymentId: string, untilMs: number, now: number): TransactEntry {
  return invoices.updateEntry(scope, invoice.invoice_id, {
    name: 'invoice.lock',
    set: { payment_lock: { payment_id: paymentId, until_ms: untilMs } },
    condition: {
      expression: '#open = :true AND modified_ms = :version AND (attribute_not_exists(payment_lock) OR payment_lock = :null OR payment_lock.until_ms < :now)',
      names: { '#open': 'open' },
      values: { ':true': true, ':version': invoice.modified_ms, ':null': null, ':now': now },
    },
  });
}

/** Frees the lock of `paymentId` (its charge failed or was abandoned). */
export function releaseInvoiceLockEntry(scope: RecordScope, invoiceId: string, paymentId: string): TransactEntry {
  return invoices.updateEntry(scope, invoiceId, {
    name: 'invoice.release-lock',
    set: { payment_lock: null },
    condition: { expression: 'payment_lock.payment_id = :pid', values: { ':pid': paymentId } },
  });
}

/** What paying an invoice in full changes (`closeInvoiceEntry` writes exactly this). */
function paidForOrder(invoice: InvoiceRecord, orderId: string, now: number) {
  return { open: false, payment_status: 'completed' as const, order_id: orderId, total_payments: invoice.totals.total, payment_lock: null, modified_ms: now };
}

/** The invoice as `closeInvoiceEntry` leaves it (what `invoice:paid` shows). */
export function invoicePaidForOrder(invoice: InvoiceRecord, orderId: string, now: number): InvoiceRecord {
  return { ...invoice, ...paidForOrder(invoice, orderId, now) };
}

/** Closes the invoice as paid by `paymentId` with its order (§9.2); only while that payment holds the lock. */
export function closeInvoiceEntry(scope: RecordScope, invoice: InvoiceRecord, paymentId: string, orderId: string, now: number): TransactEntry {
  return invoices.updateEntry(scope, invoice.invoice_id, {
    name: 'invoice.close',
    set: { ...paidForOrder(invoice, orderId, now), gsi2sk: byDate(invoices.partition(scope), now, invoice.invoice_id).sk },
    condition: { expression: 'payment_lock.payment_id = :pid AND #open = :true', names: { '#open': 'open' }, values: { ':pid': paymentId, ':true': true } },
  });
}

/** A customer's invoices in creation order (gsi3). */
export function invoicesOfCustomer(scope: RecordScope, customerId: string): Promise<InvoiceRecord[]> {
  return invoices.query('gsi3', { KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': customerInvoicesPartition(scope, customerId) } });
}
