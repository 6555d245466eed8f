/** The orders entity: its creation, versioned updates, the writes other capabilities make, and a customer's orders (gsi3). */
import { byDate, defineEntity, type Change, type RecordScope } from '../../store/entity';
import type { TransactEntry } from '../../store/transact';
import { table } from '../../store/client';
import { listSortKey } from '../../store/keys';
import { VersionConflictError } from '../../store/errors';
import type { OrderRecord, OrderRefundLedger } from './orders';

/** The listing partition of one customer's orders (gsi3). */
function customerOrdersPartition(scope: RecordScope, customerId: string): string {
  return `${scope.accountId}#${scope.mode}#customer-orders#${customerId}`;
}

/** Orders (mode-scoped): by date_created (gsi1), date_modified (gsi2), per customer (gsi3). */
export const orders = defineEntity<OrderRecord>({ name: 'order', collection: 'orders', scope: 'mode', idField: 'order_id',
  indexes: { gsi1: 'orders by date_created', gsi2: 'orders by date_modified', gsi3: "a customer's orders" },
  indexKeys: (order, partition) => ({
    gsi1: byDate(partition, order.created_ms, order.order_id),
    gsi2: byDate(partition, order.modified_ms, order.order_id),
    gsi3: byDate(customerOrdersPartition({ accountId: order.account_id, mode: order.mode }, order.customer_id), order.created_ms, order.order_id),
  }) });

/** Creates a new order (its id must be new). */
export function createOrderEntry(order: OrderRecord): TransactEntry {
  return orders.putEntry(order, { ifNew: true, name: 'order.create' });
}

/**
 * Records what happened to the order's confirmation email. `held` is written only while a
 * license of the order is still outstanding (licenses.md §9): if the last one completed
 * meanwhile, the write is refused and the caller reads the order again and sends.
 */
export function confirmationStateEntry(scope: RecordScope, orderId: string, state: 'sent' | 'held'): TransactEntry {
  const condition = state === 'held' ? 'attribute_exists(pk) AND licenses_outstanding > :none' : 'attribute_exists(pk)';
  return orders.updateEntry(scope, orderId, {
    name: `order.confirmation-email.${state}`,
    set: { confirmation_email: state },
    condition: { expression: condition, ...(state === 'held' ? { values: { ':none': 0 } } : {}) },
  });
}

/** What one license request's outcome changes on its order (licenses.md §4.2, §9). */
export interface LicenseItemChange {
  /** The order as read before the change: the update applies only over these counts and this email state. */
  order: OrderRecord;
  itemId: string;
  /** The item's license id after the change. */
  license: string | null;
  licensePending: boolean;
  outstanding: number;
  failed: number;
  /** The confirmation email's state after the change (the same as before, or `pending` to release a held one). */
  confirmationEmail: OrderRecord['confirmation_email'];
  modifiedMs: number;
}

/**
 * The entry that records a license outcome on its order item and the order's license counts,
 * only if the order still has the counts and email state it was read with: two requests of one
 * order finishing together are serialized here, so exactly one of them sees the last one done.
 * Digital items count as fulfilled once no license is pending (commerce.md §5.5).
 */
export function licenseItemEntry(change: LicenseItemChange): TransactEntry {
  const { order } = change;
  const index = order.items.findIndex((item) => item.item_id === change.itemId);
  if (index < 0) throw new Error(`Order ${order.order_id} has no item ${change.itemId}`);
  const items = order.items.map((item, at) =>
    at === index ? { ...item, license: change.license, license_pending: change.licensePending, fulfilled: item.type === 'physical' ? item.fulfilled : !change.licensePending } : item,
  );
  const item = items[index]!;
  const scope = { accountId: order.account_id, mode: order.mode };
  return {
    name: 'order.license-item',
    item: {
      Update: {
        TableName: table(),
        Key: orders.key(scope, order.order_id),
        UpdateExpression:
          `SET #items[${index}].#license = :license, #items[${index}].license_pending = :pending, #items[${index}].fulfilled = :item_fulfilled, ` +
          'fulfilled = :fulfilled, licenses_outstanding = :outstanding, licenses_failed = :failed, confirmation_email = :email, modified_ms = :modified, gsi2sk = :gsi2sk',
        ConditionExpression:
          `#items[${index}].item_id = :item_id AND licenses_outstanding = :was_outstanding AND licenses_failed = :was_failed AND confirmation_email = :was_email AND ${shipmentWritesAsRead(order)}`,
        ExpressionAttributeNames: { '#items': 'items', '#license': 'license' },
        ExpressionAttributeValues: {
          ':license': change.license,
          ':pending': change.licensePending,
          ':item_fulfilled': item.fulfilled,
          ':fulfilled': items.every((each) => each.fulfilled),
          ':outstanding': change.outstanding,
          ':failed': change.failed,
          ':email': change.confirmationEmail,
          ':modified': Math.max(change.modifiedMs, order.modified_ms + 1),
          ':gsi2sk': listSortKey(Math.max(change.modifiedMs, order.modified_ms + 1), order.order_id),
          ':item_id': change.itemId,
          ':was_outstanding': order.licenses_outstanding ?? 0,
          ':was_failed': order.licenses_failed ?? 0,
          ':was_email': order.confirmation_email,
          ...(order.shipment_writes === undefined ? {} : { ':was_shipment_writes': order.shipment_writes }),
        },
      },
    },
  };
}

/**
 * The condition that no shipment changed the order's shipped quantities since it was read: the
 * license entry computes the order's `fulfilled` from its physical items as read, so a shipment
 * committed meanwhile makes it read again (commerce.md §5.5).
 */
function shipmentWritesAsRead(order: OrderRecord): string {
  return order.shipment_writes === undefined ? 'attribute_not_exists(shipment_writes)' : 'shipment_writes = :was_shipment_writes';
}

/** An order by id, or undefined (strongly consistent). */
export function findOrder(scope: RecordScope, orderId: string): Promise<OrderRecord | undefined> {
  return orders.find(scope, orderId);
}

/** Applies `change` to an order over the version `read` answers (default: by id), again after a lost race; answers it as written. */
export function updateOrder(scope: RecordScope, orderId: string, change: Change<OrderRecord>, read?: () => Promise<OrderRecord>): Promise<OrderRecord> {
  return orders.update(scope, orderId, change, read ? { read } : {});
}

/** A customer's orders in creation order (gsi3). */
export async function customerOrders(scope: RecordScope, customerId: string): Promise<OrderRecord[]> {
  return orders.query('gsi3', { KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': customerOrdersPartition(scope, customerId) } });
}

/** The version a refund write gives the order read as `order` at `now`: later than any it had. */
function refundVersion(order: OrderRecord, now: number): { modified_ms: number; gsi2sk: string } {
  const modified = Math.max(now, order.modified_ms + 1);
  return { modified_ms: modified, gsi2sk: listSortKey(modified, order.order_id) };
}

/**
 * Writes the order's refund ledger after a refund reserved (`reserve`) or gave back money, units
 * or shipping, only over the ledger read (`seq`; a concurrent refund refuses it with
 * `VersionConflictError`). A reservation also requires `payment_status` `completed` and the
 * reserved total within the order's total: the same guard as on its payment, on the order item.
 */
export function refundLedgerEntry(order: OrderRecord, ledger: OrderRefundLedger, now: number, reserve: boolean): TransactEntry {
  const asRead = order.refund_ledger ? { expression: 'refund_ledger.seq = :ledger_seq', values: { ':ledger_seq': order.refund_ledger.seq } } : { expression: 'attribute_not_exists(refund_ledger)', values: {} };
  return orders.updateEntry({ accountId: order.account_id, mode: order.mode }, order.order_id, {
    name: reserve ? 'order.refund-reserve' : 'order.refund-release',
    set: { refund_ledger: ledger, ...refundVersion(order, now) },
    condition: reserve
      ? {
          expression: `payment_status = :completed AND totals.#total >= :reserved AND ${asRead.expression}`,
          names: { '#total': 'total' },
          values: { ':completed': 'completed', ':reserved': ledger.reserved.total, ...asRead.values },
        }
      : { expression: asRead.expression, values: asRead.values },
    onConditionFailed: () => new VersionConflictError(`order ${order.order_id} changed concurrently`),
  });
}

/** Adds a completed refund to the order's `total_refunded`, only over the amount read; `payment_status` becomes `refunded` at its total (§5.6). */
export function refundedAmountEntry(order: OrderRecord, totalRefunded: number, now: number): TransactEntry {
  return orders.updateEntry({ accountId: order.account_id, mode: order.mode }, order.order_id, {
    name: 'order.refunded-amount',
    set: { total_refunded: totalRefunded, payment_status: totalRefunded >= order.totals.total ? 'refunded' : 'completed', ...refundVersion(order, now) },
    condition: { expression: 'total_refunded = :before AND payment_status = :completed', values: { ':before': order.total_refunded, ':completed': 'completed' } },
    onConditionFailed: () => new VersionConflictError(`order ${order.order_id} changed concurrently`),
  });
}

/**
 * The entry that writes the shipped quantities of an order's items after a shipment is created
 * or deleted (commerce.md §5.5, §8): each changed item's `shipped` and `fulfilled`, and the
 * order's `fulfilled`. It holds only over the order as read (its version, so no other change to
 * it came between), while it is not fully refunded (`ship`: a new shipment), and while each changed item has the
 * quantity shipped it was read with and at least the new one ordered: two shipments of the
 * last unit cannot both commit, and no item is ever shipped beyond its quantity. It counts the
 * order's `shipment_writes`, which the license entry holds to (`licenseItemEntry`). A refusal is a
 * lost race (`VersionConflictError`): the caller reads the order again and decides again.
 *
 * @example shippedQuantitiesEntry(order, new Map([['mug', 2]]), now, 'ship')
 */
export function shippedQuantitiesEntry(order: OrderRecord, shipped: ReadonlyMap<string, number>, modifiedMs: number, change: 'ship' | 'unship'): TransactEntry {
  const items = order.items.map((item) => {
    const quantity = shipped.get(item.item_id);
    if (quantity === undefined) return item;
    return { ...item, shipped: quantity, fulfilled: item.type === 'physical' ? quantity >= item.quantity : item.fulfilled };
  });
  const sets: string[] = [];
  // A refunded order ships nothing more, but a shipment of it may still be taken back.
  const conditions = ['modified_ms = :was_modified', ...(change === 'ship' ? ['payment_status <> :refunded'] : [])];
  const values: Record<string, unknown> = { ':was_modified': order.modified_ms, ...(change === 'ship' ? { ':refunded': 'refunded' } : {}) };
  items.forEach((item, index) => {
    if (!shipped.has(item.item_id)) return;
    const was = order.items[index]!.shipped;
    sets.push(`#items[${index}].shipped = :shipped_${index}`, `#items[${index}].fulfilled = :fulfilled_${index}`);
    conditions.push(`#items[${index}].item_id = :item_${index}`, `#items[${index}].quantity >= :shipped_${index}`);
    conditions.push(was === undefined ? `attribute_not_exists(#items[${index}].shipped)` : `#items[${index}].shipped = :was_shipped_${index}`);
    values[`:shipped_${index}`] = item.shipped;
    values[`:fulfilled_${index}`] = item.fulfilled;
    values[`:item_${index}`] = item.item_id;
    if (was !== undefined) values[`:was_shipped_${index}`] = was;
  });
  if (!sets.length) throw new Error(`No item of order ${order.order_id} changes its shipped quantity`);
  const modified = Math.max(modifiedMs, order.modified_ms + 1);
  const scope = { accountId: order.account_id, mode: order.mode };
  return {
    name: 'order.shipped-quantities',
    item: {
      Update: {
        TableName: table(),
        Key: orders.key(scope, order.order_id),
        UpdateExpression: `SET ${sets.join(', ')}, fulfilled = :fulfilled, shipment_writes = :shipment_writes, modified_ms = :modified, gsi2sk = :gsi2sk`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: { '#items': 'items' },
        ExpressionAttributeValues: { ...values, ':fulfilled': items.every((item) => item.fulfilled), ':shipment_writes': (order.shipment_writes ?? 0) + 1, ':modified': modified, ':gsi2sk': listSortKey(modified, order.order_id) },
      },
    },
    onConditionFailed: () => new VersionConflictError(`order ${order.order_id} changed while its shipped quantities were written`),
  };
}
