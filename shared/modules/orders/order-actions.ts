/** The order endpoints (commerce.md §5.6), as actions of the API pipeline. */
import { NotFoundError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareQuery, requirePrincipal, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { cursorQuery, type CursorSource, renderCursorList } from '../../rest/cursor-list';
import { sends } from '../../rest/input';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import { readReachable } from '../../rest/reach';
import type { RenderContext } from '../../rest/render-context';
import { collectionPartition, findRecord, type RecordScope } from '../../store/records';
import { orderItemUpdate, orderUpdate } from './order-schemas';
import { orderDeclaration, orderItemDeclaration, type OrderRecord } from './orders';
import { customerOrders, updateOrder } from './order-store';
import { paymentDeclaration, paymentsOfCustomer } from '../payments';
import { customerDeclaration } from '../customers';

/** The order of the path, within the caller's reach (a paid sale's, or its customer's for customer scope; 404 otherwise). */
async function readOrder(context: ApiContext, scope: RecordScope): Promise<OrderRecord> {
  return readReachable(orderDeclaration, scope, context.params.order_id!, requirePrincipal(context));
}

/** `GET /orders/{order_id}`. */
export async function getOrderAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  return { status: 200, body: await renderResource(orderDeclaration, await readOrder(context, scope), render) };
}

/** `POST /orders/{order_id}`: changes only `meta`, `referrer` and `affiliate_id`. */
export const updateOrderAction = withBody(orderUpdate, async (context) => {
  const { scope, render } = await actionScope(context);
  const body = context.body;
  const changes: Partial<OrderRecord> = {};
  if (sends(body, 'meta')) changes.meta = body.meta;
  if (sends(body, 'referrer')) changes.referrer = body.referrer ?? null;
  if (sends(body, 'affiliate_id')) changes.affiliate_id = body.affiliate_id ?? null;
  const saved = await updateOrder(scope, context.params.order_id!, (current) => {
    if (!Object.keys(changes).length) return { next: current, write: false };
    return { next: { ...current, ...changes, modified_ms: Math.max(context.platform.clock.nowMs(), current.modified_ms + 1) } };
  }, () => readOrder(context, scope));
  return { status: 200, body: await renderResource(orderDeclaration, saved, render) };
});

/** `GET /orders`: cursor list; filters `payment_status`, `fulfilled`, `customer_id`, `q`. */
export async function listOrdersAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const request = cursorQuery(context.query, render);
  const conditions: string[] = [];
  const values: Record<string, unknown> = {};
  if (context.query.payment_status) {
    conditions.push('payment_status = :ps');
    values[':ps'] = context.query.payment_status;
  }
  const fulfilled = booleanParameter(context.query, 'fulfilled');
  if (fulfilled !== undefined) {
    conditions.push('fulfilled = :f');
    values[':f'] = fulfilled;
  }
  if (context.query.customer_id) {
    conditions.push('customer_id = :c');
    values[':c'] = context.query.customer_id;
  }
  if (context.query.q) {
    conditions.push('contains(order_id, :q)');
    values[':q'] = context.query.q.trim().toUpperCase();
  }
  const source: CursorSource = {
    partition: collectionPartition(orderDeclaration, scope),
    idOf: (item) => item.order_id as string,
    find: async (id) => (await findRecord(orderDeclaration, scope, id)) as unknown as Record<string, unknown> | undefined,
    ...(conditions.length ? { filter: { expression: conditions.join(' AND '), values } } : {}),
  };
  return { status: 200, body: await renderCursorList(source, request, orderDeclaration, render, 'orders') };
}

/** `GET /orders/{order_id}/items`: offset list of the order's items. */
export async function listOrderItemsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const order = await readOrder(context, scope);
  const page = offsetPage(context.query);
  const views = order.items.slice(page.offset, page.offset + page.limit).map((item) => ({ order, item }));
  const data = await renderElements(orderItemDeclaration, views, render);
  return { status: 200, body: offsetList(data, page, order.items.length, pageUrlBuilder(render.url(`orders/${order.order_id}/items`), context.query, 'offset')) };
}

/** `GET /orders/{order_id}/items/{item_id}`. */
export async function getOrderItemAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const order = await readOrder(context, scope);
  const item = order.items.find((candidate) => candidate.item_id === context.params.item_id);
  if (!item) throw new NotFoundError('The order item does not exist.', { parameter: 'item_id' });
  return { status: 200, body: await renderResource(orderItemDeclaration, { order, item }, render) };
}

/** `POST /orders/{order_id}/items/{item_id}`: changes only the item's `meta`. */
export const updateOrderItemAction = withBody(orderItemUpdate, async (context) => {
  const { scope, render } = await actionScope(context);
  const body = context.body;
  const itemId = context.params.item_id!;
  const meta = sends(body, 'meta') ? body.meta : undefined;
  const saved = await updateOrder(scope, context.params.order_id!, (current) => {
    if (!current.items.some((item) => item.item_id === itemId)) throw new NotFoundError('The order item does not exist.', { parameter: 'item_id' });
    if (meta === undefined) return { next: current, write: false };
    const next: OrderRecord = {
      ...current,
      items: current.items.map((item) => (item.item_id === itemId ? { ...item, meta } : item)),
      modified_ms: Math.max(context.platform.clock.nowMs(), current.modified_ms + 1),
    };
    return { next };
  }, () => readOrder(context, scope));
  const item = saved.items.find((candidate) => candidate.item_id === itemId)!;
  return { status: 200, body: await renderResource(orderItemDeclaration, { order: saved, item }, render) };
});

/** An offset page of records read in full (sub-collections are small: one customer's or order's). */
async function offsetPageOf<T>(
  context: ApiContext,
  render: RenderContext,
  declaration: Parameters<typeof renderElements>[0],
  records: T[],
  path: string,
): Promise<ApiResult> {
  const page = offsetPage(context.query);
  const descending = booleanParameter(context.query, 'desc') ?? false;
  const ordered = descending ? [...records].reverse() : records;
  const data = await renderElements(declaration, ordered.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, records.length, pageUrlBuilder(render.url(path), context.query, 'offset')) };
}

/** `GET /orders/{order_id}/payments`: the payment that completed the order (offset list). */
export async function listOrderPaymentsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const order = await readOrder(context, scope);
  const payment = await findRecord(paymentDeclaration, scope, order.payment_id);
  return offsetPageOf(context, render, paymentDeclaration, payment ? [payment] : [], `orders/${order.order_id}/payments`);
}

/** The customer of a sub-collection request (`me` already resolved), within the caller's reach. */
async function readCustomer(context: ApiContext, scope: RecordScope): Promise<string> {
  const customer = await readReachable(customerDeclaration, scope, context.params.customer_id!, requirePrincipal(context));
  return customer.customer_id;
}

/** `GET /customers/{customer_id}/orders`: offset list in creation order (the store's listing per customer). */
export async function listCustomerOrdersAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const customerId = await readCustomer(context, scope);
  const orders = await customerOrders(scope, customerId);
  return offsetPageOf(context, render, orderDeclaration, orders, `customers/${customerId}/orders`);
}

/** `GET /customers/{customer_id}/payments`: offset list (reads the mode's payments filtered by customer). */
export async function listCustomerPaymentsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const customerId = await readCustomer(context, scope);
  const payments = await paymentsOfCustomer(scope, customerId);
  return offsetPageOf(context, render, paymentDeclaration, payments, `customers/${customerId}/payments`);
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listOrdersAction, { list: 'cursor', filters: { payment_status: 'pending, completed or refunded', fulfilled: 'true or false', customer_id: 'Orders of one customer', q: 'Order id, customer name or email' } });
declareQuery(listOrderItemsAction, { list: 'offset' });
declareQuery(listOrderPaymentsAction, { list: 'offset' });
declareQuery(listCustomerOrdersAction, { list: 'offset' });
declareQuery(listCustomerPaymentsAction, { list: 'offset' });
