/** The orders entity: its creation, versioned saves, the writes other capabilities make, and a customer's orders (gsi3). */
import { defineEntity, writeOne, type RecordScope } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import type { TransactEntry } from '../../store/transact';
import { customerOrdersPartition, type OrderRecord } from './orders';

/** Orders (mode-scoped): by date_created (gsi1), date_modified (gsi2), per customer (gsi3). */
export const orders = defineEntity<OrderRecord>({ name: 'order', collection: 'orders', scope: 'mode', idField: 'order_id',
  indexes: { gsi1: 'orders by date_created', gsi2: 'orders by date_modified', gsi3: "a customer's orders" } });

/** Creates a new order (its id must be new). */
export function createOrderEntry(order: OrderRecord): TransactEntry {
  return orders.putEntry(order, { ifNew: true, name: 'order.create' });
}

/** Records what happened to the order's confirmation email. */
export function confirmationStateEntry(scope: RecordScope, orderId: string, state: 'sent' | 'held'): TransactEntry {
  return orders.updateEntry(scope, orderId, { name: 'order.confirmation-email', set: { confirmation_email: state }, condition: { expression: 'attribute_exists(pk)' } });
}

/** Replaces `current` by `next` if nobody changed it meanwhile (a lost race: `VersionConflictError`, read again). */
export async function saveOrderRecord(current: OrderRecord, next: OrderRecord): Promise<void> {
  await writeOne(orders.putEntry(next, { name: 'order.save', ifVersion: current.modified_ms, onConditionFailed: () => new VersionConflictError('order changed') }));
}

/** A customer's orders in creation order (gsi3). */
export async function customerOrders(scope: RecordScope, customerId: string): Promise<OrderRecord[]> {
  return orders.query('gsi3', { KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': customerOrdersPartition(scope, customerId) } });
}
