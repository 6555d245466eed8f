/**
 * Shipping an order and taking a shipment back (commerce.md §5.5, §8): a shipment and the
 * order's shipped quantities change together, in one transaction, or not at all.
 *
 * Steps of a new shipment: read the order; decide the lines over it (the quantity rules of the
 * shipments module: 400/422 before anything is written); write the shipment, the order's
 * shipped quantities and `fulfilled` (`shippedQuantitiesEntry`, conditional on the order as
 * read) and the `shipment:created` event in one transaction. A concurrent change to the order
 * (another shipment of the same units above all) refuses the write; the order is read and the
 * lines decided again, so the loser of a race for the last unit gets 422 `invalid_state` and
 * never more is shipped than was ordered. Deleting runs the same way backwards.
 *
 * Recovery: a single transaction has none to do. A crash before the commit leaves nothing; after
 * it, the event's fan-out is due work the sweep hands over (shared/work).
 */
import { newId } from '../../core/ids';
import type { Platform } from '../../platform/ports';
import { eventEntries, type EventSpec } from '../../modules/events';
import { findOrder, shippedQuantitiesEntry, type OrderRecord } from '../../modules/orders';
import { createShipmentEntry, deleteShipmentEntry, shipmentLines, shippedAfter, type RequestedLine, type ShipmentRecord } from '../../modules/shipments';
import { retryOnConflict, type RecordScope } from '../../store/entity';
import { TransactionRejectedError, VersionConflictError } from '../../store/errors';
import { transact, type TransactEntry } from '../../store/transact';

/**
 * Runs the transaction; one that concurrent transactions on the order kept cancelling is a lost
 * race like a refused condition: the caller reads the order again (`retryOnConflict`).
 */
async function commit(entries: readonly TransactEntry[]): Promise<void> {
  try {
    await transact(entries);
  } catch (error) {
    if (error instanceof TransactionRejectedError && error.conflictOnly) throw new VersionConflictError('The order was being changed by concurrent transactions');
    throw error;
  }
}

/** What a new shipment says besides its lines. */
export interface ShipmentDetails {
  courier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  /** Default: now. */
  date_shipped_ms: number | undefined;
  meta: unknown;
}

/**
 * Ships `requested` of `order` (default: every unshipped physical unit) and answers the new
 * shipment. `readOrder` reads the order as the caller may see it (404 out of reach); it is called
 * again after a lost race.
 *
 * @example await shipOrder(platform, scope, () => readOrder(), [{ item_id: 'mug', quantity: 1 }], details)
 */
export async function shipOrder(platform: Platform, scope: RecordScope, readOrder: () => Promise<OrderRecord>, requested: readonly RequestedLine[] | undefined, details: ShipmentDetails): Promise<ShipmentRecord> {
  const shipmentId = newId();
  return retryOnConflict(async () => {
    const order = await readOrder();
    const lines = shipmentLines(order, requested);
    const now = platform.clock.nowMs();
    const shipment: ShipmentRecord = {
      shipment_id: shipmentId,
      account_id: scope.accountId,
      mode: scope.mode,
      order_id: order.order_id,
      customer_id: order.customer_id,
      courier: details.courier,
      tracking_number: details.tracking_number,
      tracking_url: details.tracking_url,
      date_shipped_ms: details.date_shipped_ms ?? now,
      items: lines,
      meta: details.meta ?? null,
      created_ms: now,
      modified_ms: now,
    };
    const events: EventSpec[] = [{ type: 'shipment:created', resource: 'shipment', id: shipmentId, record: shipment }];
    await commit([createShipmentEntry(shipment), shippedQuantitiesEntry(order, shippedAfter(order, lines, 1), now, 'ship'), ...eventEntries(scope, events, now)]);
    return shipment;
  });
}

/**
 * Deletes a shipment; its quantities count as unshipped again, and the order's `fulfilled`
 * follows. `readShipment` reads it as the caller may see it (404 when gone); both are read
 * again after a lost race, so a shipment deleted twice at once is deleted once (the other: 404).
 */
export async function deleteShipment(platform: Platform, scope: RecordScope, readShipment: () => Promise<ShipmentRecord>): Promise<void> {
  await retryOnConflict(async () => {
    const shipment = await readShipment();
    const order = await findOrder(scope, shipment.order_id);
    const entries = [deleteShipmentEntry(scope, shipment.shipment_id)];
    const shipped = order ? shippedAfter(order, shipment.items, -1) : new Map<string, number>();
    if (order && shipped.size) entries.push(shippedQuantitiesEntry(order, shipped, platform.clock.nowMs(), 'unship'));
    await commit(entries);
  });
}
