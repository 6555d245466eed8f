/** The orders entity and the writes other capabilities make to an order. */
import { defineEntity, type RecordScope } from '../../store/entity';
import type { TransactEntry } from '../../store/transact';
import type { OrderRecord } from './orders';

/** Orders (mode-scoped): by date_created (gsi1), date_modified (gsi2), per customer (gsi3). */
export const orders = defineEntity<OrderRecord>({
  name: 'order',
  collection: 'orders',
  scope: 'mode',
  idField: 'order_id',
  indexes: { gsi1: 'orders by date_created', gsi2: 'orders by date_modified', gsi3: "a customer's orders" },
});

/** Creates a new order (its id must be new). */
export function createOrderEntry(order: OrderRecord): TransactEntry {
  return orders.putEntry(order, { ifNew: true, name: 'order.create' });
}

/** Records what happened to the order's confirmation email. */
export function confirmationStateEntry(scope: RecordScope, orderId: string, state: 'sent' | 'held'): TransactEntry {
  return orders.updateEntry(scope, orderId, { name: 'order.confirmation-email', set: { confirmation_email: state }, condition: { expression: 'attribute_exists(pk)' } });
}
