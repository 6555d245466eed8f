/** The shipments module's one door: what other modules, flows and the app may use of it. */
export { shipmentDeclaration, shipmentPath } from './declaration';
export type { ShipmentLine, ShipmentRecord } from './records';
export { shipmentCreate, shipmentUpdate, type ShipmentCreateInput, type ShipmentUpdateInput } from './schemas';
export { createShipmentEntry, deleteShipmentEntry, findShipment, getShipment } from './shipment-store';
export { shipmentLines, shippedAfter, shippedOf, unshippedOf, type RequestedLine } from './quantities';
export { dateShippedOf, reachesShipment, readOrderOfPath, readShipment } from './reads';
