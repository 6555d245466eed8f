/**
 * Request bodies of `/carts` (commerce.md §3), declared once: validation, types and OpenAPI.
 *
 * What a schema cannot know stays with the operations: whether a product exists and can be
 * sold (`items[i].product_id`, reason `not_found`), whether a currency is enabled, whether a
 * promotion code or a shipping method applies, and whether the priced cart stays within the
 * money limit (conventions.md §20).
 */
import { saleCustomerInput } from '../customers';
import { body, idReference, list, meta, quantity, reason, sentCurrencyCode, text, z } from '../../rest/fields';
import { MAX_QUANTITY } from './items';

/**
 * Most entries one `items` array may carry (defined here): a cart holds at most 50 lines
 * (`MAX_CART_LINES`, checked once the entries are merged), and the array leaves room for
 * repeats and `quantity: 0` removals without reading thousands of products first.
 */
export const MAX_ITEM_ENTRIES = 200;

/** One `items[i]` of a create or update (§3.2): `product_id`, `quantity` 0–9999 (0 drops the line), `meta`. */
export const cartLine = body({
  product_id: idReference(100),
  quantity: quantity(0, MAX_QUANTITY).optional(),
  meta: meta().optional(),
});

const cartShape = {
  items: list(cartLine, MAX_ITEM_ENTRIES).nullable().optional(),
  currency: sentCurrencyCode().optional(),
  customer: saleCustomerInput.optional(),
  customer_id: text(100).optional(),
  promotion_code: text(200).optional(),
  shipping_method_id: text(100).optional(),
  referrer: text(2000).optional(),
  affiliate_id: text(200).optional(),
  meta: meta().optional(),
};

/** `POST /carts`: every property optional. */
export const cartCreate = body(cartShape);

/** `POST /carts/{cart_id}`: the create fields, partially (§3.5). */
export const cartUpdate = body(cartShape);

/** A cart body as parsed, create or update. */
export type CartInput = z.output<typeof cartUpdate>;

/** One parsed `items[i]`. */
export type CartLineInput = z.output<typeof cartLine>;


/** `POST /carts/{cart_id}/items`: an upsert of `{product_id, quantity ≥ 1 (default 1), meta}` (§3.2). */
export const cartItemUpsert = body({
  product_id: idReference(100),
  quantity: quantity(1, MAX_QUANTITY).optional(),
  meta: meta().optional(),
});

/** A parsed item upsert. */
export type CartItemUpsertInput = z.output<typeof cartItemUpsert>;

/** `POST /carts/{cart_id}/items/{item_id}`: `{quantity (0 removes), meta}`; `product_id` is read-only there. */
export const cartItemUpdate = body({
  quantity: quantity(0, MAX_QUANTITY).optional(),
  meta: meta().optional(),
});

/** A parsed item change. */
export type CartItemUpdateInput = z.output<typeof cartItemUpdate>;
