/**
 * The quantity rules of shipments (commerce.md §5.5, §8), as pure functions over the order as
 * read: which lines a new shipment carries (the requested ones, or every unshipped physical
 * unit), what is refused, and the shipped quantities before and after. The write that applies
 * them is conditional on the quantities read (shared/flows/fulfilment), so a rule checked here
 * over a stale order is checked again over the fresh one.
 */
import { InvalidInputError, InvalidStateError } from '../../http/errors';
import type { OrderItemRecord, OrderRecord } from '../orders';
import type { ShipmentLine } from './records';

/** A line of a create request. */
export interface RequestedLine {
  item_id: string;
  quantity: number;
}

/** Units of `item` already shipped (orders made before shipments existed have none). */
export function shippedOf(item: Pick<OrderItemRecord, 'shipped'>): number {
  return item.shipped ?? 0;
}

/** Units of `item` still to ship: only physical items are shipped at all. */
export function unshippedOf(item: Pick<OrderItemRecord, 'type' | 'quantity' | 'shipped'>): number {
  return item.type === 'physical' ? Math.max(0, item.quantity - shippedOf(item)) : 0;
}

/**
 * The lines of a new shipment of `order`. Without `requested`: every unshipped physical unit.
 * With it: each named item, which must be in the order, physical and not named twice (400
 * invalid_input on `items[i].item_id`), in a quantity no larger than what is left of it (400 on
 * `items[i].quantity`). A fully refunded order, or one with nothing left to ship, is 422
 * invalid_state.
 *
 * @example shipmentLines(order, [{ item_id: 'mug', quantity: 2 }])
 */
export function shipmentLines(order: OrderRecord, requested?: readonly RequestedLine[]): ShipmentLine[] {
  if (order.payment_status === 'refunded') throw new InvalidStateError('The order is fully refunded: nothing of it is shipped any more.');
  const byId = new Map(order.items.map((item) => [item.item_id, item]));
  const named = new Set<string>();
  for (const [index, line] of (requested ?? []).entries()) {
    const item = byId.get(line.item_id);
    if (!item) throw new InvalidInputError(`The order has no item ${line.item_id}.`, { property: `items[${index}].item_id`, reason: 'not_found' });
    if (item.type !== 'physical') throw new InvalidInputError(`The item ${line.item_id} is ${item.type}: only physical items are shipped.`, { property: `items[${index}].item_id`, reason: 'not_allowed' });
    if (named.has(line.item_id)) throw new InvalidInputError(`The item ${line.item_id} is named twice.`, { property: `items[${index}].item_id`, reason: 'conflict' });
    named.add(line.item_id);
  }
  if (!order.items.some((item) => unshippedOf(item) > 0)) throw new InvalidStateError('Nothing of the order is left to ship.');
  if (requested === undefined) {
    return order.items.filter((item) => unshippedOf(item) > 0).map((item) => lineOf(item, unshippedOf(item)));
  }
  return requested.map((line, index) => {
    const item = byId.get(line.item_id)!;
    const left = unshippedOf(item);
    if (line.quantity > left) {
      throw new InvalidInputError(`Only ${left} unit${left === 1 ? '' : 's'} of ${line.item_id} ${left === 1 ? 'is' : 'are'} left to ship.`, { property: `items[${index}].quantity`, reason: 'out_of_range' });
    }
    return lineOf(item, line.quantity);
  });
}

function lineOf(item: OrderItemRecord, quantity: number): ShipmentLine {
  return { item_id: item.item_id, product_id: item.product_id, name: item.name, quantity };
}

/**
 * The shipped quantity of each item `lines` touch after adding them (`+1`, a new shipment) or
 * taking them back (`-1`, a deleted one). Never more than ordered nor less than none: an
 * impossible result is a bug, not a client error.
 */
export function shippedAfter(order: OrderRecord, lines: readonly ShipmentLine[], direction: 1 | -1): Map<string, number> {
  const after = new Map<string, number>();
  for (const line of lines) {
    const item = order.items.find((candidate) => candidate.item_id === line.item_id);
    if (!item) continue; // an order's items never change; a line of no item has nothing to give back
    const shipped = (after.get(item.item_id) ?? shippedOf(item)) + direction * line.quantity;
    if (shipped < 0 || shipped > item.quantity) throw new Error(`Order ${order.order_id} item ${item.item_id} would have ${shipped} of ${item.quantity} units shipped`);
    after.set(item.item_id, shipped);
  }
  return after;
}
