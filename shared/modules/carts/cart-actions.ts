/**
 * The `/carts` endpoints (commerce.md §3.5), as actions of the API pipeline. Limited tokens
 * come through the route check for single carts (`allowOrReach`): every action on one cart
 * asserts reach first, so a cart the token did not create answers 404 like a missing one.
 */
import { readPaymentSettingsCached, readTaxSettingsCached } from '../accounts';
import { assertReach } from '../identity';
import { type Principal } from '../../core/access/principal';
import { InvalidInputError, NotFoundError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareQuery, withBody, type ApiContext, type ApiResult } from '../../http/types';
import type { Clock } from '../../platform/ports';
import { cursorQuery, type CursorSource, renderCursorList } from '../../rest/cursor-list';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import type { RenderContext } from '../../rest/render-context';
import { collectionPartition, findRecord, getRecord, type RecordScope } from '../../store/records';
import {
  assertWritable,
  cartDeclaration,
  cartItemDeclaration,
  cartPath,
  changeCart,
  changeCartLines,
  createCart,
  viewerCountry,
  type CartItemView,
  type CartWriteContext,
} from './carts';
import { updateCart } from './cart-store';
import { cartCreate, cartItemUpdate, cartItemUpsert, cartUpdate } from './cart-schemas';
import { changeItem, itemChange, removeItem, upsertEntry, upsertItem } from './items';
import type { CartItemRecord, CartRecord } from './types';

const PAYMENT_STATUSES = ['unpaid', 'completed'] as const;

interface Prepared {
  principal: Principal;
  scope: RecordScope;
  render: RenderContext;
}

/**
 * Writes price with the settings of this second (the per-process cache: a change made here is
 * seen at once, one made elsewhere within a second, as for payments), which saves a shopper's
 * every cart write two reads.
 */
async function writeContext({ principal, scope }: Prepared, clock: Clock): Promise<CartWriteContext> {
  const [payment, tax] = await Promise.all([readPaymentSettingsCached(scope.accountId), readTaxSettingsCached(scope.accountId)]);
  return { principal, scope, payment, tax, clock };
}

/** 404 unless the caller reaches the cart (a limited token only the carts it created). */
function assertCartReach({ principal }: Prepared, cartId: string): void {
  assertReach(principal, `carts/${cartId}`, 'cart');
}

/** Reads the addressed cart (404 when missing, 400 token_type_mismatch when in the other mode). */
function readCart({ scope }: Prepared, cartId: string): Promise<CartRecord> {
  return getRecord(cartDeclaration, scope, cartId);
}

/** The line an `{item_id}` names: its id, or in test mode the id without a `.test` suffix storefronts add. */
function findItem(cart: CartRecord, itemId: string): CartItemRecord | undefined {
  const exact = cart.items.find((item) => item.item_id === itemId);
  if (exact || cart.mode !== 'test' || !itemId.endsWith('.test')) return exact;
  const stripped = itemId.slice(0, -5);
  return cart.items.find((item) => item.item_id === stripped);
}

function itemNotFound(itemId: string): NotFoundError {
  return new NotFoundError(`The item ${itemId} is not in the cart.`, { parameter: 'item_id' });
}

function itemView(cart: CartRecord, item: CartItemRecord): CartItemView {
  return { item_id: item.item_id, cart, item };
}

/** `POST /carts`: 201; a limited token becomes bound to the new cart. */
export const createCartAction = withBody(cartCreate, async (context) => {
  const prepared = await actionScope(context);
  const origin = { ipAddress: context.sourceIp || null, ipCountry: viewerCountry(context.headers, context.fromOwnEdge) };
  const cart = await createCart(context.body, origin, await writeContext(prepared, context.platform.clock));
  const body = await renderResource(cartDeclaration, cart, prepared.render);
  return { status: 201, body, location: prepared.render.url(cartPath(cart.cart_id)) };
});

/** `GET /carts/{cart_id}`. */
export async function getCartAction(context: ApiContext): Promise<ApiResult> {
  const prepared = await actionScope(context);
  const cartId = context.params.cart_id!;
  assertCartReach(prepared, cartId);
  return { status: 200, body: await renderResource(cartDeclaration, await readCart(prepared, cartId), prepared.render) };
}

/** `POST /carts/{cart_id}`: partial update with the create fields; 422 once paid, 409 while a payment runs. */
export const updateCartAction = withBody(cartUpdate, async (context) => {
  const prepared = await actionScope(context);
  const cartId = context.params.cart_id!;
  assertCartReach(prepared, cartId);
  const write = await writeContext(prepared, context.platform.clock);
  const saved = await updateCart(prepared.scope, cartId, (current) => changeCart(current, context.body, write), context.platform.clock, { remember: true });
  return { status: 200, body: await renderResource(cartDeclaration, saved, prepared.render) };
});

/** `GET /carts`: cursor list; filters `payment_status`, `open`, `customer_id`. */
export async function listCartsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const query = context.query;
  const request = cursorQuery(query, render);
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const status = query.payment_status || undefined;
  if (status !== undefined) {
    if (!(PAYMENT_STATUSES as readonly string[]).includes(status)) {
      throw new InvalidInputError('The parameter payment_status must be unpaid or completed.', { parameter: 'payment_status', reason: 'invalid' });
    }
    conditions.push('payment_status = :status');
    values[':status'] = status;
  }
  const open = booleanParameter(query, 'open');
  if (open !== undefined) {
    conditions.push('#open = :open');
    names['#open'] = 'open';
    values[':open'] = open;
  }
  const customerId = query.customer_id || undefined;
  if (customerId !== undefined) {
    conditions.push('#customer.#customer_id = :customer_id');
    names['#customer'] = 'customer';
    names['#customer_id'] = 'customer_id';
    values[':customer_id'] = customerId;
  }
  const source: CursorSource = {
    partition: collectionPartition(cartDeclaration, scope),
    idOf: (item) => item.cart_id as string,
    find: async (id) => (await findRecord(cartDeclaration, scope, id)) as unknown as Record<string, unknown> | undefined,
    ...(conditions.length ? { filter: { expression: conditions.join(' AND '), values, ...(Object.keys(names).length ? { names } : {}) } } : {}),
  };
  return { status: 200, body: await renderCursorList(source, request, cartDeclaration, render, 'carts') };
}

/** `GET /carts/{cart_id}/items`: the cart's items as an offset list, in cart order. */
export async function listItemsAction(context: ApiContext): Promise<ApiResult> {
  const prepared = await actionScope(context);
  const cartId = context.params.cart_id!;
  assertCartReach(prepared, cartId);
  const page = offsetPage(context.query);
  const cart = await readCart(prepared, cartId);
  const views = cart.items.slice(page.offset, page.offset + page.limit).map((item) => itemView(cart, item));
  const data = await renderElements(cartItemDeclaration, views, prepared.render);
  const url = prepared.render.url(`${cartPath(cartId)}/items`);
  return { status: 200, body: offsetList(data, page, cart.items.length, pageUrlBuilder(url, context.query, 'offset')) };
}

/** `POST /carts/{cart_id}/items`: upsert; 201 with `Location` when added, 200 when the quantity was set. */
export const upsertItemAction = withBody(cartItemUpsert, async (context) => {
  const prepared = await actionScope(context);
  const cartId = context.params.cart_id!;
  assertCartReach(prepared, cartId);
  const entry = upsertEntry(context.body);
  const write = await writeContext(prepared, context.platform.clock);
  let created = false;
  let itemId = entry.productId;
  const saved = await updateCart(
    prepared.scope,
    cartId,
    (cart) =>
      changeCartLines(cart, [entry], (resolve) => {
        itemId = resolve(entry.productId);
        const result = upsertItem(cart.items, { ...entry, productId: itemId });
        created = result.created;
        return result.lines;
      }, write),
    context.platform.clock,
    { remember: true },
  );
  const item = saved.items.find((line) => line.item_id === itemId)!;
  const body = await renderResource(cartItemDeclaration, itemView(saved, item), prepared.render);
  return created ? { status: 201, body, location: body.url as string } : { status: 200, body };
});

/** `GET /carts/{cart_id}/items/{item_id}`. */
export async function getItemAction(context: ApiContext): Promise<ApiResult> {
  const prepared = await actionScope(context);
  const cartId = context.params.cart_id!;
  assertCartReach(prepared, cartId);
  const cart = await readCart(prepared, cartId);
  const item = findItem(cart, context.params.item_id!);
  if (!item) throw itemNotFound(context.params.item_id!);
  return { status: 200, body: await renderResource(cartItemDeclaration, itemView(cart, item), prepared.render) };
}

/**
 * `POST /carts/{cart_id}/items/{item_id}`: `{quantity, meta}`; 200 with the item, or 204 when
 * quantity 0 removed it. An item that is not in the cart is 404, whatever the body asks.
 */
export const updateItemAction = withBody(cartItemUpdate, async (context) => {
  const prepared = await actionScope(context);
  const cartId = context.params.cart_id!;
  assertCartReach(prepared, cartId);
  const change = itemChange(context.body);
  const write = await writeContext(prepared, context.platform.clock);
  let itemId = '';
  const saved = await updateCart(prepared.scope, cartId, (cart) => {
    assertWritable(cart, context.platform.clock.nowMs());
    const item = findItem(cart, context.params.item_id!);
    if (!item) throw itemNotFound(context.params.item_id!);
    itemId = item.item_id;
    return changeCartLines(cart, [], () => changeItem(cart.items, item.item_id, change), write, 'quantity');
  }, context.platform.clock, { remember: true });
  const kept = saved.items.find((line) => line.item_id === itemId);
  if (!kept) return { status: 204 };
  return { status: 200, body: await renderResource(cartItemDeclaration, itemView(saved, kept), prepared.render) };
});

/**
 * `DELETE /carts/{cart_id}/items/{item_id}`: 204 when the item was removed; 404 and nothing
 * written when it is not in the cart (a second delete of one item included).
 */
export async function deleteItemAction(context: ApiContext): Promise<ApiResult> {
  const prepared = await actionScope(context);
  const cartId = context.params.cart_id!;
  assertCartReach(prepared, cartId);
  const write = await writeContext(prepared, context.platform.clock);
  await updateCart(prepared.scope, cartId, (cart) => {
    assertWritable(cart, context.platform.clock.nowMs());
    const item = findItem(cart, context.params.item_id!);
    if (!item) throw itemNotFound(context.params.item_id!);
    return changeCartLines(cart, [], () => removeItem(cart.items, item.item_id), write);
  }, context.platform.clock, { remember: true });
  return { status: 204 };
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listCartsAction, { list: 'cursor', filters: { payment_status: 'unpaid or completed', open: 'true or false', customer_id: 'Carts of one customer' } });
declareQuery(listItemsAction, { list: 'offset' });
