/**
 * The refunds entity: a refund's life as writes (created `pending`, then `completed` or
 * `failed`, each only from `pending`), the refunds of a payment (gsi3, which also serves its
 * order's: one payment per order) and of a customer (gsi1, filtered). Pending refunds are the
 * flow's working state and are left out of every read.
 */
import { byDate, defineEntity, type RecordScope } from '../../store/entity';
import type { TransactEntry } from '../../store/transact';
import type { RefundRecord } from './refund-records';

/** The listing partition of one payment's refunds (gsi3). */
function paymentRefundsPartition(scope: RecordScope, paymentId: string): string {
  return `${scope.accountId}#${scope.mode}#payment-refunds#${paymentId}`;
}

/** Refunds (mode-scoped): by date_created (gsi1), date_modified (gsi2), per payment (gsi3). */
export const refunds = defineEntity<RefundRecord>({ name: 'refund', collection: 'refunds', scope: 'mode', idField: 'refund_id',
  indexes: { gsi1: 'refunds by date_created; refunds of a customer (filtered)', gsi2: 'refunds by date_modified', gsi3: "a payment's (and so its order's) refunds" },
  indexKeys: (refund, partition) => ({
    gsi1: byDate(partition, refund.created_ms, refund.refund_id),
    gsi2: byDate(partition, refund.modified_ms, refund.refund_id),
    gsi3: byDate(paymentRefundsPartition({ accountId: refund.account_id, mode: refund.mode }, refund.payment_id), refund.created_ms, refund.refund_id),
  }) });

/** The filter that leaves out pending refunds (reads show settled refunds only). */
export const SETTLED_FILTER = { expression: '#refund_status <> :pending', names: { '#refund_status': 'status' }, values: { ':pending': 'pending' } };

const PENDING = { expression: '#status = :pending', names: { '#status': 'status' }, values: { ':pending': 'pending' } };

/** Stores a new refund as `pending` (its id must be new). */
export function pendingEntry(refund: RefundRecord): TransactEntry {
  return refunds.putEntry(refund, { ifNew: true, name: 'refund.pending' });
}

/** Stores the refund's outcome (`completed` or `failed`), only while it is still `pending`: an outcome is written once. */
export function settledEntry(refund: RefundRecord): TransactEntry {
  return refunds.putEntry(refund, { condition: PENDING, name: `refund.${refund.status}` });
}

/** A refund by id, pending ones included (the flow's own read), or undefined. */
export function findRefund(scope: RecordScope, refundId: string): Promise<RefundRecord | undefined> {
  return refunds.find(scope, refundId);
}

/** A payment's settled refunds, in creation order (gsi3). */
export async function refundsOfPayment(scope: RecordScope, paymentId: string): Promise<RefundRecord[]> {
  return refunds.query('gsi3', {
    KeyConditionExpression: 'gsi3pk = :pk',
    FilterExpression: SETTLED_FILTER.expression,
    ExpressionAttributeNames: SETTLED_FILTER.names,
    ExpressionAttributeValues: { ':pk': paymentRefundsPartition(scope, paymentId), ...SETTLED_FILTER.values },
  });
}

/** A customer's settled refunds, in creation order (gsi1, filtered). */
export async function refundsOfCustomer(scope: RecordScope, customerId: string): Promise<RefundRecord[]> {
  return refunds.query('gsi1', {
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: `customer_id = :customer AND ${SETTLED_FILTER.expression}`,
    ExpressionAttributeNames: SETTLED_FILTER.names,
    ExpressionAttributeValues: { ':pk': refunds.partition(scope), ':customer': customerId, ...SETTLED_FILTER.values },
  });
}

/** The listing partition of the scope's refunds (cursor list). */
export function refundsPartition(scope: RecordScope): string {
  return refunds.partition(scope);
}

/** The gateway idempotency key of a refund: one refund at the gateway per refund record, ever. */
export function refundKey(scope: RecordScope, refundId: string): string {
  return `${scope.accountId}#${scope.mode}#${refundId}`;
}
