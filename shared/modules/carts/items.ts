/**
 * Cart items (commerce.md §3.2): the replace rules of an `items` array, the upsert of
 * `POST /carts/{id}/items`, single-item changes, and pricing each line from its product.
 *
 * Every write goes through the same three steps: the request becomes a list of line intents
 * (pure: `replaceItems`, `upsertItem`, `changeItem`, `removeItem`), the products of those lines
 * are read in one BatchGetItem (`readLineProducts`), and the lines are checked and priced in
 * the cart currency (`priceLines`). Lines the request named must be sellable products; lines
 * the request left alone keep their place even when their product has since gone.
 */
import type { PaymentSettings } from '../accounts';
import { convert, unitPrice, productDeclaration, type ProductRecord } from '../catalog';
import { invalid, sends } from '../../rest/input';
import { batchGetItems, recordKey, type RecordScope } from '../../store/records';
import type { CartItemUpdateInput, CartItemUpsertInput, CartLineInput } from './cart-schemas';
import { BodyTokenTypeMismatchError } from './errors';
import type { CartItemRecord } from './types';

/** Largest quantity of one line. */
export const MAX_QUANTITY = 9999;

/**
 * Most lines one cart holds (defined here). A cart is one DynamoDB item of at most 400 KB;
 * a line with its priced twin and a full `meta` takes up to about 6 KB.
 */
export const MAX_CART_LINES = 50;

/** One entry of a request: an `items[i]` element, or the body of an item endpoint. */
export interface ItemEntry {
  /** Where the entry sits in the body, for error paths: `items[2]`, or `` for a top-level body. */
  at: string;
  /** As sent; resolved against the catalog by `resolveProductId`. */
  productId: string;
  quantity: number | undefined;
  /** Present when the entry sent `meta` (null clears). */
  meta?: { value: unknown };
}

/** What one cart line should become: its product, quantity and meta, and whether the request named it. */
export interface LineIntent {
  productId: string;
  quantity: number;
  meta: unknown;
  /** The entry that named the line in this request; such lines must be sellable. */
  sent?: ItemEntry;
}

function propertyPath(at: string, property: string): string {
  return at ? `${at}.${property}` : property;
}

/** One parsed entry (`cartLine` or `cartItemUpsert`) at `at`, remembering whether it sent `meta`. */
function entryOf(line: CartLineInput | CartItemUpsertInput, at: string): ItemEntry {
  const entry: ItemEntry = { at, productId: line.product_id, quantity: line.quantity };
  if (sends(line, 'meta')) entry.meta = { value: line.meta };
  return entry;
}

/**
 * The entries of a parsed `items` array of a create or update (`cartCreate`, `cartUpdate`),
 * each with its place in the body for error paths. `null` means no items.
 * @example itemEntries([{ product_id: 'ebook', quantity: 2 }]) // [{ at: 'items[0]', productId: 'ebook', quantity: 2 }]
 */
export function itemEntries(lines: readonly CartLineInput[] | null): ItemEntry[] {
  return (lines ?? []).map((line, index) => entryOf(line, `items[${index}]`));
}

/** The entry of a parsed `POST /carts/{id}/items` body (`cartItemUpsert`). */
export function upsertEntry(body: CartItemUpsertInput): ItemEntry {
  return entryOf(body, '');
}

/** The change of a parsed `POST /carts/{id}/items/{item_id}` body (`cartItemUpdate`). */
export function itemChange(body: CartItemUpdateInput): { quantity?: number; meta?: { value: unknown } } {
  return {
    ...(body.quantity !== undefined ? { quantity: body.quantity } : {}),
    ...(sends(body, 'meta') ? { meta: { value: body.meta } } : {}),
  };
}

/** The product ids whose records a write needs: the cart's lines, the sent ids, and their `.test`-less twins in test mode. */
export function productIdsToRead(current: readonly CartItemRecord[], entries: readonly ItemEntry[], mode: 'live' | 'test'): string[] {
  const ids = new Set(current.map((item) => item.product_id));
  for (const entry of entries) {
    ids.add(entry.productId);
    const stripped = withoutTestSuffix(entry.productId, mode);
    if (stripped !== undefined) ids.add(stripped);
  }
  return [...ids];
}

function withoutTestSuffix(id: string, mode: 'live' | 'test'): string | undefined {
  return mode === 'test' && id.endsWith('.test') && id.length > 5 ? id.slice(0, -5) : undefined;
}

/**
 * The catalog id an entry names. In test mode an id ending in `.test` that does not exist
 * means the id without the suffix (conventions.md §7: existing storefront clients add it).
 */
export function resolveProductId(id: string, products: ReadonlyMap<string, ProductRecord>, mode: 'live' | 'test'): string {
  if (products.has(id)) return id;
  const stripped = withoutTestSuffix(id, mode);
  return stripped !== undefined && products.has(stripped) ? stripped : id;
}

/** Reads products by id in one BatchGetItem (eventually consistent), keyed by product id. */
export async function readLineProducts(scope: RecordScope, ids: readonly string[]): Promise<Map<string, ProductRecord>> {
  const found = new Map<string, ProductRecord>();
  if (ids.length === 0) return found;
  const stored = await batchGetItems(ids.map((id) => recordKey(productDeclaration, scope, id)));
  for (const item of stored.values()) {
    const product = item as unknown as ProductRecord;
    found.set(product.product_id, product);
  }
  return found;
}

/** The current lines as intents, unchanged. */
export function keepItems(current: readonly CartItemRecord[]): LineIntent[] {
  return current.map((item) => ({ productId: item.product_id, quantity: item.quantity, meta: item.meta ?? null }));
}

/**
 * Replace semantics of an `items` array (§3.2): the array is the new list; a repeated product
 * takes its last entry; `quantity: 0` drops a line; a line that stays keeps what its entry
 * omits (its quantity and `meta`); a new line defaults to quantity 1 and no meta.
 * Entry ids must already be resolved (`resolveProductId`). Lines follow the first mention.
 * @example replaceItems([{ product_id: 'a', quantity: 2, meta: { gift: true }, … }], [{ productId: 'a', quantity: 3 }]) // a × 3, meta kept
 */
export function replaceItems(current: readonly CartItemRecord[], entries: readonly ItemEntry[]): LineIntent[] {
  const existing = new Map(current.map((item) => [item.product_id, item]));
  const lines = new Map<string, LineIntent>();
  for (const entry of entries) {
    const before = existing.get(entry.productId);
    // The last entry wins whole: an earlier duplicate contributes nothing to it.
    lines.set(entry.productId, {
      productId: entry.productId,
      quantity: entry.quantity ?? before?.quantity ?? 1,
      meta: entry.meta ? entry.meta.value : (before?.meta ?? null),
      sent: entry,
    });
  }
  return [...lines.values()].filter((line) => line.quantity > 0);
}

/**
 * The upsert of `POST /carts/{id}/items`: an item already in the cart gets its quantity set
 * (and `meta` when sent); otherwise it is appended. `created` tells which happened.
 */
export function upsertItem(current: readonly CartItemRecord[], entry: ItemEntry): { lines: LineIntent[]; created: boolean } {
  const lines = keepItems(current);
  const quantity = entry.quantity ?? 1;
  const index = lines.findIndex((line) => line.productId === entry.productId);
  if (index === -1) {
    lines.push({ productId: entry.productId, quantity, meta: entry.meta ? entry.meta.value : null, sent: entry });
    return { lines, created: true };
  }
  const line = lines[index]!;
  lines[index] = { ...line, quantity, ...(entry.meta ? { meta: entry.meta.value } : {}), sent: entry };
  return { lines, created: false };
}

/** `POST /carts/{id}/items/{item_id}` on a line of the cart: quantity set (0 removes) and/or meta replaced. */
export function changeItem(current: readonly CartItemRecord[], itemId: string, change: { quantity?: number; meta?: { value: unknown } }): LineIntent[] {
  return keepItems(current)
    .map((line) =>
      line.productId === itemId
        ? { ...line, ...(change.quantity !== undefined ? { quantity: change.quantity } : {}), ...(change.meta ? { meta: change.meta.value } : {}) }
        : line,
    )
    .filter((line) => line.quantity > 0);
}

/** The lines without one item. */
export function removeItem(current: readonly CartItemRecord[], itemId: string): LineIntent[] {
  return keepItems(current).filter((line) => line.productId !== itemId);
}

/** Whether a product can be added to a sale now (commerce.md §2: active and not deleted). */
export function isSellable(product: ProductRecord | undefined): product is ProductRecord {
  return product !== undefined && product.active && !product.deleted;
}

/**
 * Checks the lines the request named: each needs a sellable product of the token's mode. An id
 * that exists only in the other mode gives 400 token_type_mismatch; anything else missing,
 * inactive or deleted gives 400 invalid_input, reason `not_found`. The first failing entry in
 * body order is reported.
 */
export async function checkSentLines(scope: RecordScope, lines: readonly LineIntent[], products: ReadonlyMap<string, ProductRecord>): Promise<void> {
  if (lines.length > MAX_CART_LINES) {
    invalid('items', `A cart holds at most ${MAX_CART_LINES} different items.`, 'too_long');
  }
  const failing = lines
    .filter((line): line is LineIntent & { sent: ItemEntry } => line.sent !== undefined && !isSellable(products.get(line.productId)))
    .sort((a, b) => entryOrder(a.sent) - entryOrder(b.sent));
  const first = failing[0];
  if (!first) return;
  const property = propertyPath(first.sent.at, 'product_id');
  if (!products.has(first.productId)) {
    const other: RecordScope = { ...scope, mode: scope.mode === 'live' ? 'test' : 'live' };
    const elsewhere = await readLineProducts(other, [first.productId]);
    if (elsewhere.has(first.productId)) throw new BodyTokenTypeMismatchError(property, 'product', first.productId);
  }
  invalid(property, `The product ${first.sent.productId} does not exist or cannot be sold.`, 'not_found');
}

function entryOrder(entry: ItemEntry): number {
  const match = /^items\[(\d+)\]$/.exec(entry.at);
  return match ? Number(match[1]) : 0;
}

/**
 * Prices lines in the cart currency (§1.1). A line whose product still exists takes the
 * product's current facts and price; a line kept from before whose product has since gone
 * keeps its facts, its price converted when the currency changed.
 */
export function priceLines(
  lines: readonly LineIntent[],
  products: ReadonlyMap<string, ProductRecord>,
  previous: { items: readonly CartItemRecord[]; currency: string },
  currency: string,
  payment: PaymentSettings,
): CartItemRecord[] {
  const before = new Map(previous.items.map((item) => [item.product_id, item]));
  return lines.map((line): CartItemRecord => {
    const product = products.get(line.productId);
    if (product) {
      return {
        item_id: product.product_id,
        product_id: product.product_id,
        name: product.name,
        type: product.type,
        quantity: line.quantity,
        meta: line.meta ?? null,
        tax_code: product.tax_code,
        subscription_plan: product.subscription_plan,
        unit_price_original: unitPrice(product.prices, currency, payment),
      };
    }
    const kept = before.get(line.productId);
    if (!kept) throw new Error(`Line ${line.productId} has neither a product nor a previous line`);
    return {
      ...kept,
      quantity: line.quantity,
      meta: line.meta ?? null,
      unit_price_original: convertKept(kept.unit_price_original, previous.currency, currency, payment),
    };
  });
}

/** A kept price in another currency; a currency no longer enabled has no rate, so its amount is read as the default currency's. */
function convertKept(amount: number, from: string, to: string, payment: PaymentSettings): number {
  if (from === to) return amount;
  const source = from === payment.default_payment_currency || payment.exchange_rates[from] ? from : payment.default_payment_currency;
  return convert(amount, source, to, payment);
}
