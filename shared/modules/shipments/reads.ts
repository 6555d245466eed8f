/**
 * Reading shipments and their orders for a caller, and the request values both writes share.
 *
 * Reach (commerce.md §0.1): a shipment belongs to its order. A limited token that reaches the
 * order (the paid sale's token, or its customer's scope) reads its shipments, by id and under
 * the order; every other shipment is 404 to it.
 */
import { reachesRecord, type Principal } from '../../core/access/principal';
import { requirePrincipal, type ApiContext } from '../../http/types';
import { parseDateInput } from '../../rest/dates';
import { outOfReach, reachPath, readReachable } from '../../rest/reach';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/records';
import { orderDeclaration, type OrderRecord } from '../orders';
import { shipmentDeclaration } from './declaration';
import type { ShipmentRecord } from './records';
import type { ShipmentUpdateInput } from './schemas';
import { findShipment, getShipment } from './shipment-store';

/** Whether the caller reaches a shipment: any shipment of its mode by permission, else through its order. */
export function reachesShipment(principal: Principal, shipment: ShipmentRecord): boolean {
  return reachesRecord(principal, reachPath(orderDeclaration, shipment.order_id), shipment.customer_id);
}

/** The shipment of the path, within the caller's reach (404 otherwise, or 400 token_type_mismatch for a token that reads every shipment). */
export async function readShipment(context: ApiContext, scope: RecordScope): Promise<ShipmentRecord> {
  const principal = requirePrincipal(context);
  const id = context.params.shipment_id!;
  if (principal.kind !== 'limited') return getShipment(scope, id);
  const found = await findShipment(scope, id);
  if (!found || !reachesShipment(principal, found)) throw outOfReach(shipmentDeclaration);
  return found;
}

/** The order of the path, within the caller's reach (a paid sale's, or its customer's for customer scope; 404 otherwise). */
export function readOrderOfPath(context: ApiContext, scope: RecordScope): Promise<OrderRecord> {
  return readReachable(orderDeclaration, scope, context.params.order_id!, requirePrincipal(context));
}

/** `date_shipped` as sent (a timestamp or shorthand, at its last moment in the zone in effect), or undefined when not sent. */
export function dateShippedOf(input: Pick<ShipmentUpdateInput, 'date_shipped'>, render: RenderContext): number | null | undefined {
  if (input.date_shipped === undefined || input.date_shipped === null) return input.date_shipped;
  return parseDateInput(input.date_shipped, { edge: 'last', zone: render.zone, now: render.now, name: 'date_shipped', kind: 'property' });
}

