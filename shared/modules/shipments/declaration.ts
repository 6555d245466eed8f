/**
 * The shipment as the API shows it (commerce.md §8), and where it lists: `GET /shipments`
 * (cursor), and under its order (`order.shipments`, an offset sub-collection, expandable).
 */
import { declareResource } from '../../rest/declarations';
import { firstPageOf } from '../../rest/offset-list';
import type { RenderContext } from '../../rest/render-context';
import type { ShipmentRecord } from './records';
import { shipmentsOfOrder } from './shipment-store';

/** The path of a shipment below the API root. */
export function shipmentPath(shipmentId: string): string {
  return `shipments/${encodeURIComponent(shipmentId)}`;
}

/** The shipment declaration (REST conventions engine). */
export const shipmentDeclaration = declareResource<ShipmentRecord>({
  name: 'shipment',
  collection: 'shipments',
  idField: 'shipment_id',
  permission: 'shipments',
  scope: 'mode',
  links: { order: 'order' },
  // A shipment belongs to its order: customer scope reads the shipments of its own orders (as it reads the orders).
  customerOf: (shipment) => shipment.customer_id,
  // `order.shipments` expands to the first page of GET /orders/{id}/shipments.
  listedUnder: { order: async (orderId, context) => firstPageOf(await shipmentsOfOrder({ accountId: context.accountId, mode: context.mode }, orderId)) },
  formatted: { dates: ['date_shipped', 'date_created', 'date_modified'] },
  idOf: (shipment) => shipment.shipment_id,
  toJson(shipment: ShipmentRecord, context: RenderContext) {
    return {
      object: 'shipment',
      url: context.url(shipmentPath(shipment.shipment_id)),
      shipment_id: shipment.shipment_id,
      account_id: shipment.account_id,
      test: shipment.mode === 'test',
      order: context.url(`orders/${shipment.order_id}`),
      courier: shipment.courier,
      tracking_number: shipment.tracking_number,
      tracking_url: shipment.tracking_url,
      date_shipped: context.date(shipment.date_shipped_ms),
      items: shipment.items.map((line) => ({ item_id: line.item_id, product_id: line.product_id, name: line.name, quantity: line.quantity })),
      meta: shipment.meta ?? null,
      date_created: context.date(shipment.created_ms),
      date_modified: context.date(shipment.modified_ms),
    };
  },
});
