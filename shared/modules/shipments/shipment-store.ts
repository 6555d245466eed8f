/**
 * The shipments entity: created and deleted only together with the order's shipped quantities
 * (shared/flows/fulfilment takes its entries from here), updated alone (tracking fields, meta),
 * cursor-listed by date_created (gsi1) and date_modified (gsi2), and listed per order (gsi3).
 */
import { byDate, defineEntity, EXISTS, type Change, type RecordScope } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import type { TransactEntry } from '../../store/transact';
import type { ShipmentRecord } from './records';

/** The listing partition of one order's shipments (gsi3). */
function orderShipmentsPartition(scope: RecordScope, orderId: string): string {
  return `${scope.accountId}#${scope.mode}#order-shipments#${orderId}`;
}

/** Shipments (mode-scoped): by date_created (gsi1), date_modified (gsi2), per order (gsi3). */
export const shipments = defineEntity<ShipmentRecord>({ name: 'shipment', collection: 'shipments', scope: 'mode', idField: 'shipment_id',
  indexes: { gsi1: 'shipments by date_created (cursor list)', gsi2: 'shipments by date_modified (cursor list, date_type=date_modified)', gsi3: "an order's shipments" },
  indexKeys: (shipment, partition) => ({
    gsi1: byDate(partition, shipment.created_ms, shipment.shipment_id),
    gsi2: byDate(partition, shipment.modified_ms, shipment.shipment_id),
    gsi3: byDate(orderShipmentsPartition({ accountId: shipment.account_id, mode: shipment.mode }, shipment.order_id), shipment.created_ms, shipment.shipment_id),
  }) });

/** Creates a new shipment (its id must be new), in the transaction that ships its quantities. */
export function createShipmentEntry(shipment: ShipmentRecord): TransactEntry {
  return shipments.putEntry(shipment, { ifNew: true, name: 'shipment.create' });
}

/**
 * Deletes a shipment, in the transaction that returns its quantities to the order; if it is gone
 * meanwhile (another delete won), the transaction is a lost race and the caller reads again (404).
 */
export function deleteShipmentEntry(scope: RecordScope, shipmentId: string): TransactEntry {
  return shipments.deleteEntry(scope, shipmentId, {
    name: 'shipment.delete',
    condition: EXISTS,
    onConditionFailed: () => new VersionConflictError(`shipment ${shipmentId} deleted concurrently`),
  });
}

/** A shipment by id: 404, or 400 token_type_mismatch when it is in the other mode. */
export function getShipment(scope: RecordScope, shipmentId: string): Promise<ShipmentRecord> {
  return shipments.get(scope, shipmentId);
}

/** A shipment by id, or undefined (strongly consistent). */
export function findShipment(scope: RecordScope, shipmentId: string): Promise<ShipmentRecord | undefined> {
  return shipments.find(scope, shipmentId);
}

/** Applies `change` to a shipment over the version `read` answers, again after a lost race; answers it as written. */
export function updateShipment(scope: RecordScope, shipmentId: string, change: Change<ShipmentRecord>, read?: () => Promise<ShipmentRecord>): Promise<ShipmentRecord> {
  return shipments.update(scope, shipmentId, change, read ? { read } : {});
}

/** An order's shipments in creation order (gsi3). */
export function shipmentsOfOrder(scope: RecordScope, orderId: string): Promise<ShipmentRecord[]> {
  return shipments.query('gsi3', { KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': orderShipmentsPartition(scope, orderId) } });
}

/** The listing partition of the mode's shipments (the cursor list of `GET /shipments`). */
export function shipmentPartition(scope: RecordScope): string {
  return shipments.partition(scope);
}
