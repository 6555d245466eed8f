/**
 * `POST /orders/{order_id}/shipments` and `DELETE /shipments/{shipment_id}` (commerce.md §8):
 * the shipment writes that move the order's shipped quantities, as actions of the API pipeline
 * over the fulfilment flow (./shipments.ts).
 */
import { withBody, type ApiContext, type ApiResult } from '../../http/types';
import { actionScope } from '../../rest/action-scope';
import { renderResource } from '../../rest/render';
import { dateShippedOf, readOrderOfPath, readShipment, shipmentCreate, shipmentDeclaration } from '../../modules/shipments';
import { deleteShipment, shipOrder } from './shipments';

/** `POST /orders/{order_id}/shipments`: 201 with the shipment; `items` default to every unshipped physical unit. */
export const createShipmentAction = withBody(shipmentCreate, async (context) => {
  const { scope, render } = await actionScope(context);
  const body = context.body;
  const dateShipped = dateShippedOf(body, render);
  const shipment = await shipOrder(context.platform, scope, () => readOrderOfPath(context, scope), body.items, {
    courier: body.courier ?? null,
    tracking_number: body.tracking_number ?? null,
    tracking_url: body.tracking_url ?? null,
    date_shipped_ms: dateShipped ?? undefined,
    meta: body.meta ?? null,
  });
  const rendered = await renderResource(shipmentDeclaration, shipment, render);
  return { status: 201, body: rendered, location: rendered.url as string };
});

/** `DELETE /shipments/{shipment_id}`: 204; its quantities count as unshipped again. */
export async function deleteShipmentAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await actionScope(context);
  await deleteShipment(context.platform, scope, () => readShipment(context, scope));
  return { status: 204 };
}
