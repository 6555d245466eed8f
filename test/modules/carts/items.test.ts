/** The rules of writing cart items (commerce.md §3.2), as pure functions: parsing, replace, upsert, change, pricing. */
import { describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../../shared/modules/catalog/products';
import {
  changeItem,
  checkSentLines,
  itemChange,
  itemEntries,
  MAX_CART_LINES,
  priceLines,
  productIdsToRead,
  removeItem,
  replaceItems,
  resolveProductId,
  upsertEntry,
  upsertItem,
} from '../../../shared/modules/carts/items';
import { cartItemUpdate, cartItemUpsert, cartUpdate } from '../../../shared/modules/carts/cart-schemas';
import type { CartItemRecord } from '../../../shared/modules/carts/types';
import { parseInput } from '../../../shared/rest/validate';
import { paymentSettings } from '../pricing/fixtures';

function item(productId: string, quantity: number, meta: unknown = null, price = 10): CartItemRecord {
  return {
    item_id: productId,
    product_id: productId,
    name: productId,
    type: 'digital',
    quantity,
    meta,
    tax_code: null,
    subscription_plan: null,
    unit_price_original: price,
  };
}

function product(productId: string, overrides: Partial<ProductRecord> = {}): ProductRecord {
  return {
    product_id: productId,
    account_id: 'A',
    mode: 'live',
    name: `Product ${productId}`,
    headline: null,
    description: null,
    type: 'digital',
    active: true,
    hidden: false,
    deleted: false,
    prices: [{ currency: 'USD', price: 19 }],
    tax_code: 'TX1',
    subscription_plan: null,
    license_service_id: null,
    meta: null,
    created_ms: 0,
    modified_ms: 0,
    seq: 1,
    ...overrides,
  };
}

/** The request bodies as the pipeline hands them over: validated by their schemas, then read. */
const parseItemEntries = (items: unknown) => itemEntries(parseInput(cartUpdate, { items }).items ?? null);
const parseUpsertEntry = (body: unknown) => upsertEntry(parseInput(cartItemUpsert, body));
const parseItemChange = (body: unknown) => itemChange(parseInput(cartItemUpdate, body));

const lines = (intents: Array<{ productId: string; quantity: number; meta: unknown }>) => intents.map((l) => [l.productId, l.quantity, l.meta]);

describe('parsing items', () => {
  it('reads product_id, quantity and meta, and ignores other properties', () => {
    expect(parseItemEntries([{ product_id: 'a', quantity: 2, meta: { x: 1 }, price: 1, url: 'u' }, { product_id: 'b' }])).toEqual([
      { at: 'items[0]', productId: 'a', quantity: 2, meta: { value: { x: 1 } } },
      { at: 'items[1]', productId: 'b', quantity: undefined },
    ]);
    expect(parseItemEntries(null)).toEqual([]);
  });

  it('refuses bad entries with the property path of the first error', () => {
    const failure = (value: unknown) => {
      try {
        parseItemEntries(value);
      } catch (error) {
        return (error as { meta: unknown }).meta;
      }
      return undefined;
    };
    expect(failure({ product_id: 'a' })).toEqual({ property: 'items', reason: 'invalid' });
    expect(failure(['a'])).toEqual({ property: 'items[0]', reason: 'invalid' });
    expect(failure([{ product_id: 'a' }, { quantity: 1 }])).toEqual({ property: 'items[1].product_id', reason: 'required' });
    expect(failure([{ product_id: true }])).toEqual({ property: 'items[0].product_id', reason: 'invalid' });
    expect(failure([{ product_id: '' }])).toEqual({ property: 'items[0].product_id', reason: 'required' });
    for (const quantity of ['1e3', ' 2', '2 ', 'two', '', [], {}, true]) {
      expect(failure([{ product_id: 'a', quantity }]), JSON.stringify(quantity)).toEqual({ property: 'items[0].quantity', reason: 'invalid' });
    }
    expect(failure([{ product_id: 'a', quantity: 2.5 }])).toEqual({ property: 'items[0].quantity', reason: 'invalid' });
    expect(failure([{ product_id: 'a', quantity: '2.5' }])).toEqual({ property: 'items[0].quantity', reason: 'invalid' });
    expect(failure([{ product_id: 'a', quantity: -1 }])).toEqual({ property: 'items[0].quantity', reason: 'out_of_range' });
    expect(failure([{ product_id: 'a', quantity: 10000 }])).toEqual({ property: 'items[0].quantity', reason: 'out_of_range' });
    expect(failure([{ product_id: 'a', quantity: '-1' }])).toEqual({ property: 'items[0].quantity', reason: 'out_of_range' });
    expect(failure([{ product_id: 'a', quantity: 9999 }])).toBeUndefined();
    expect(failure([{ product_id: 'a', meta: 'x'.repeat(2049) }])).toEqual({ property: 'items[0].meta', reason: 'too_long' });
    expect(failure(Array.from({ length: 201 }, () => ({ product_id: 'a' })))).toEqual({ property: 'items', reason: 'too_long' });
  });

  it('takes plain decimal quantities and numeric product ids as storefronts post them (conventions.md §4)', () => {
    expect(parseItemEntries([{ product_id: 'a', quantity: '2' }, { product_id: 1234, quantity: '0' }])).toEqual([
      { at: 'items[0]', productId: 'a', quantity: 2 },
      { at: 'items[1]', productId: '1234', quantity: 0 },
    ]);
    expect(parseUpsertEntry({ product_id: 42, quantity: '3' })).toEqual({ at: '', productId: '42', quantity: 3 });
    expect(parseItemChange({ quantity: '0' })).toEqual({ quantity: 0 });
  });

  it('needs quantity ≥ 1 in an upsert and allows 0 in a single-item change', () => {
    expect(parseUpsertEntry({ product_id: 'a' })).toEqual({ at: '', productId: 'a', quantity: undefined });
    expect(() => parseUpsertEntry({ product_id: 'a', quantity: 0 })).toThrowError(expect.objectContaining({ meta: { property: 'quantity', reason: 'out_of_range' } }));
    expect(() => parseUpsertEntry({})).toThrowError(expect.objectContaining({ meta: { property: 'product_id', reason: 'required' } }));
    expect(parseItemChange({ quantity: 0, product_id: 'ignored' })).toEqual({ quantity: 0 });
    expect(parseItemChange({ meta: null })).toEqual({ meta: { value: null } });
  });
});

describe('replace semantics', () => {
  const current = [item('a', 2, { gift: true }), item('b', 1, 'keep')];

  it('makes the array the new list: missing products go, new ones default to quantity 1', () => {
    expect(lines(replaceItems(current, parseItemEntries([{ product_id: 'c' }, { product_id: 'b' }])))).toEqual([
      ['c', 1, null],
      ['b', 1, 'keep'],
    ]);
  });

  it('keeps what a staying entry omits (quantity and meta), and replaces what it sends', () => {
    expect(lines(replaceItems(current, parseItemEntries([{ product_id: 'a' }, { product_id: 'b', quantity: 4, meta: null }])))).toEqual([
      ['a', 2, { gift: true }],
      ['b', 4, null],
    ]);
  });

  it('drops quantity 0 and lets the last duplicate win whole', () => {
    const entries = parseItemEntries([
      { product_id: 'a', quantity: 5, meta: 'first' },
      { product_id: 'b', quantity: 0 },
      { product_id: 'a', quantity: 3 },
      { product_id: 'c', quantity: 2 },
      { product_id: 'c', quantity: 0 },
    ]);
    expect(lines(replaceItems(current, entries))).toEqual([['a', 3, { gift: true }]]);
    // The winning entry is the one named in errors.
    expect(replaceItems(current, entries)[0]!.sent!.at).toBe('items[2]');
  });

  it('empties the cart with [] or null', () => {
    expect(replaceItems(current, parseItemEntries([]))).toEqual([]);
    expect(replaceItems(current, parseItemEntries(null))).toEqual([]);
  });
});

describe('upsert and single items', () => {
  const current = [item('a', 2, { gift: true })];

  it('sets the quantity of an item already in the cart (200) and keeps its meta', () => {
    const result = upsertItem(current, parseUpsertEntry({ product_id: 'a', quantity: 7 }));
    expect(result.created).toBe(false);
    expect(lines(result.lines)).toEqual([['a', 7, { gift: true }]]);
    expect(lines(upsertItem(current, parseUpsertEntry({ product_id: 'a' })).lines)).toEqual([['a', 1, { gift: true }]]);
  });

  it('appends a new item (201)', () => {
    const result = upsertItem(current, parseUpsertEntry({ product_id: 'b', meta: 'm' }));
    expect(result.created).toBe(true);
    expect(lines(result.lines)).toEqual([
      ['a', 2, { gift: true }],
      ['b', 1, 'm'],
    ]);
  });

  it('changes or removes one item', () => {
    expect(lines(changeItem(current, 'a', { meta: { value: null } }))).toEqual([['a', 2, null]]);
    expect(lines(changeItem(current, 'a', { quantity: 5 }))).toEqual([['a', 5, { gift: true }]]);
    expect(changeItem(current, 'a', { quantity: 0 })).toEqual([]);
    expect(removeItem(current, 'a')).toEqual([]);
    expect(lines(removeItem(current, 'zzz'))).toEqual([['a', 2, { gift: true }]]);
  });
});

describe('product ids and prices', () => {
  it('reads the cart lines, the sent ids and, in test mode, their ids without `.test`', () => {
    expect(productIdsToRead([item('a', 1)], parseItemEntries([{ product_id: 'b.test' }]), 'test')).toEqual(['a', 'b.test', 'b']);
    expect(productIdsToRead([], parseItemEntries([{ product_id: 'b.test' }]), 'live')).toEqual(['b.test']);
  });

  it('resolves a `.test` id to the product without the suffix only in test mode and only when the exact id is unknown', () => {
    const products = new Map([['ebook', product('ebook')], ['x.test', product('x.test')]]);
    expect(resolveProductId('ebook.test', products, 'test')).toBe('ebook');
    expect(resolveProductId('ebook.test', products, 'live')).toBe('ebook.test');
    expect(resolveProductId('x.test', products, 'test')).toBe('x.test');
    expect(resolveProductId('nope.test', products, 'test')).toBe('nope.test');
  });

  it('prices from the product in the cart currency, and keeps a vanished product’s line, converted', () => {
    const payment = paymentSettings();
    const products = new Map([
      ['a', product('a', { prices: [{ currency: 'USD', price: 19 }, { currency: 'EUR', price: 18 }], tax_code: 'T' })],
      ['b', product('b', { prices: [{ currency: 'USD', price: 10 }] })],
    ]);
    const previous = { items: [item('a', 1, null, 19), item('b', 1, null, 10), item('gone', 1, 'm', 5)], currency: 'USD' };
    const intents = [
      { productId: 'a', quantity: 2, meta: null },
      { productId: 'b', quantity: 1, meta: null },
      { productId: 'gone', quantity: 3, meta: 'm' },
    ];
    const priced = priceLines(intents, products, previous, 'EUR', payment);
    expect(priced.map((line) => [line.item_id, line.unit_price_original, line.quantity, line.name, line.tax_code])).toEqual([
      ['a', 18, 2, 'Product a', 'T'],
      ['b', 9.2, 1, 'Product b', 'TX1'],
      ['gone', 4.6, 3, 'gone', null],
    ]);
    expect(priceLines(intents, products, previous, 'USD', payment)[2]!.unit_price_original).toBe(5);
  });
});

describe('checking sent lines', () => {
  it('refuses more lines than a cart holds before reading anything', async () => {
    const many = Array.from({ length: MAX_CART_LINES + 1 }, (_, i) => ({ productId: `p${i}`, quantity: 1, meta: null }));
    await expect(checkSentLines({ accountId: 'A', mode: 'live' }, many, new Map())).rejects.toMatchObject({
      status: 400,
      meta: { property: 'items', reason: 'too_long' },
    });
  });

  it('reports the first unsellable entry in body order, inactive and deleted products included', async () => {
    const scope = { accountId: 'A', mode: 'live' as const };
    const products = new Map([
      ['ok', product('ok')],
      ['off', product('off', { active: false })],
      ['deleted', product('deleted', { deleted: true })],
    ]);
    const entries = parseItemEntries([{ product_id: 'ok' }, { product_id: 'deleted' }, { product_id: 'off' }]);
    await expect(checkSentLines(scope, replaceItems([], entries), products)).rejects.toMatchObject({
      meta: { property: 'items[1].product_id', reason: 'not_found' },
    });
    // Lines the request did not name are not checked: they stay until removed.
    await expect(checkSentLines(scope, [{ productId: 'off', quantity: 1, meta: null }], products)).resolves.toBeUndefined();
  });
});

