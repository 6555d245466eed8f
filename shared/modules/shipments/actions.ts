/**
 * The shipment reads and updates (commerce.md §8, §5.6), as actions of the API pipeline.
 * Creating and deleting a shipment move the order's shipped quantities too: those are the
 * fulfilment flow's (shared/flows/fulfilment/shipment-actions.ts).
 * Limited tokens read what they reach (./reads.ts).
 */
import { NotFoundError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareQuery, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { actionScope } from '../../rest/action-scope';
import { cursorQuery, renderCursorList, type CursorSource } from '../../rest/cursor-list';
import { sends } from '../../rest/input';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import type { RenderContext } from '../../rest/render-context';
import { shipmentDeclaration } from './declaration';
import type { ShipmentRecord } from './records';
import { dateShippedOf, readOrderOfPath, readShipment } from './reads';
import { shipmentUpdate } from './schemas';
import { findShipment, shipmentPartition, shipmentsOfOrder, updateShipment } from './shipment-store';

/** `GET /shipments/{shipment_id}`. */
export async function getShipmentAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  return { status: 200, body: await renderResource(shipmentDeclaration, await readShipment(context, scope), render) };
}

/** `POST /shipments/{shipment_id}`: tracking fields, `date_shipped` (null: now) and `meta`; items and order never change. */
export const updateShipmentAction = withBody(shipmentUpdate, async (context) => {
  const { scope, render } = await actionScope(context);
  const body = context.body;
  const dateShipped = dateShippedOf(body, render);
  const saved = await updateShipment(scope, context.params.shipment_id!, (current) => {
    const next: ShipmentRecord = { ...current };
    if (sends(body, 'courier')) next.courier = body.courier ?? null;
    if (sends(body, 'tracking_number')) next.tracking_number = body.tracking_number ?? null;
    if (sends(body, 'tracking_url')) next.tracking_url = body.tracking_url ?? null;
    if (dateShipped !== undefined) next.date_shipped_ms = dateShipped ?? context.platform.clock.nowMs();
    if (sends(body, 'meta')) next.meta = body.meta;
    const changed = (['courier', 'tracking_number', 'tracking_url', 'date_shipped_ms', 'meta'] as const).some((name) => JSON.stringify(next[name]) !== JSON.stringify(current[name]));
    if (!changed) return { next: current, write: false };
    return { next: { ...next, modified_ms: Math.max(context.platform.clock.nowMs(), current.modified_ms + 1) } };
  }, () => readShipment(context, scope));
  return { status: 200, body: await renderResource(shipmentDeclaration, saved, render) };
});

/** `GET /shipments`: cursor list; filter `order_id`. */
export async function listShipmentsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const request = cursorQuery(context.query, render);
  const orderId = context.query.order_id;
  const source: CursorSource = {
    partition: shipmentPartition(scope),
    idOf: (item) => item.shipment_id as string,
    find: async (id) => (await findShipment(scope, id)) as unknown as Record<string, unknown> | undefined,
    ...(orderId ? { filter: { expression: 'order_id = :order_id', values: { ':order_id': orderId } } } : {}),
  };
  return { status: 200, body: await renderCursorList(source, request, shipmentDeclaration, render, 'shipments') };
}

/** An offset page of an order's shipments (read whole: one order's shipments are few), oldest first unless `desc`. */
async function shipmentPage(context: ApiContext, render: RenderContext, shipments: ShipmentRecord[], path: string): Promise<ApiResult> {
  const page = offsetPage(context.query);
  const ordered = booleanParameter(context.query, 'desc') ? [...shipments].reverse() : shipments;
  const data = await renderElements(shipmentDeclaration, ordered.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, shipments.length, pageUrlBuilder(render.url(path), context.query, 'offset')) };
}

/** `GET /orders/{order_id}/shipments`: offset list of the order's shipments. */
export async function listOrderShipmentsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const order = await readOrderOfPath(context, scope);
  return shipmentPage(context, render, await shipmentsOfOrder(scope, order.order_id), `orders/${order.order_id}/shipments`);
}

/** `GET /orders/{order_id}/items/{item_id}/shipments`: offset list of the order's shipments that carry the item. */
export async function listOrderItemShipmentsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const order = await readOrderOfPath(context, scope);
  const itemId = context.params.item_id!;
  if (!order.items.some((item) => item.item_id === itemId)) throw new NotFoundError('The order item does not exist.', { parameter: 'item_id' });
  const carrying = (await shipmentsOfOrder(scope, order.order_id)).filter((shipment) => shipment.items.some((line) => line.item_id === itemId));
  return shipmentPage(context, render, carrying, `orders/${order.order_id}/items/${encodeURIComponent(itemId)}/shipments`);
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listShipmentsAction, { list: 'cursor', filters: { order_id: 'Shipments of one order' } });
declareQuery(listOrderShipmentsAction, { list: 'offset' });
declareQuery(listOrderItemShipmentsAction, { list: 'offset' });
