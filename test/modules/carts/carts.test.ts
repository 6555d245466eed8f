/**
 * Cart writes against the real local DynamoDB emulator: stored totals stay current, paid and
 * locked carts refuse writes, a payment that locks or closes the cart between a write's read
 * and its save wins, lines of vanished products stay, and the binding limit holds under a race.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../shared/platform/adapters/system-clock';
import { authenticate } from '../../../shared/modules/identity/authenticate';
import { issueToken } from '../../../shared/modules/identity/auths';
import { BindingLimitExceededError } from '../../../shared/modules/identity/bindings';
import { createProduct, productDeclaration, saveProduct } from '../../../shared/modules/catalog/products';
import { productCreate } from '../../../shared/modules/catalog/product-schemas';
import { cartDeclaration, changeCart, changeCartLines, createCart, type CartWriteContext } from '../../../shared/modules/carts/carts';
import { saveCart } from '../../../shared/modules/carts/cart-store';
import { cartCreate, cartItemUpsert, cartUpdate } from '../../../shared/modules/carts/cart-schemas';
import { CartLockedError, CartPaidError } from '../../../shared/modules/carts/errors';
import { changeItem, removeItem, upsertEntry, upsertItem } from '../../../shared/modules/carts/items';
import type { CartRecord } from '../../../shared/modules/carts/types';
import { config } from '../../../shared/core/config';
import { configureStore, db, resetDb } from '../../../shared/store/client';
import { collectionPartition, getRecord, retryOnConflict, VersionConflictError } from '../../../shared/store/records';
import { queryItems } from '../../../shared/store/query';
import { emulatedStore, Harness, TABLE } from '../../local/fixtures/dynamo-harness';
import { paymentSettings, taxSettings } from '../pricing/fixtures';

const harness = new Harness();

/** One versioned write of a cart change over the version the cart was read at (what the cart actions retry). */
async function updateCart(current: CartRecord, body: Parameters<typeof changeCart>[1], context: CartWriteContext): Promise<CartRecord> {
  return saveCart(current, await changeCart(current, body, context), context.clock.nowMs(), { remember: true });
}

/** One versioned write of a change of a cart's lines (what the item actions retry). */
async function writeCartLines(current: CartRecord, ...change: Parameters<typeof changeCartLines> extends [CartRecord, ...infer Rest] ? Rest : never): Promise<CartRecord> {
  return saveCart(current, await changeCartLines(current, ...change), change[2].clock.nowMs(), { remember: true });
}
const scope = { accountId: 'ACCT', mode: 'live' as const };
const payment = paymentSettings({ currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.9 } });
const tax = taxSettings([{ country: 'US', state_prov: null, rate: 0.1 }]);
let write: CartWriteContext;

beforeAll(async () => {
  const { emulator } = await harness.startWithTable();
  configureStore(emulatedStore(emulator.endpoint));
  const { token } = await issueToken({ accountId: scope.accountId, mode: scope.mode, kind: 'secret', permissions: [] }, systemClock);
  write = { scope, principal: await authenticate(token, systemClock, config().rateLimits.perToken), payment, tax, clock: systemClock };
  for (const body of [
    { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] },
    { product_id: 'mug', name: 'Mug', type: 'physical', prices: [{ currency: 'USD', price: 10 }] },
  ]) {
    await createProduct(scope, productCreate.parse(body), payment, systemClock);
  }
});
afterAll(async () => {
  resetDb();
  await harness.cleanup();
});

const US = { billing_address: { country: 'US' } };
const origin = { ipAddress: '127.0.0.1', ipCountry: null };

async function stored(cartId: string): Promise<CartRecord> {
  return getRecord(cartDeclaration, scope, cartId);
}

/** The cart's item as stored, with its keys. */
async function storedItem(cartId: string): Promise<Record<string, string>> {
  return (await db().send(new GetCommand({ TableName: TABLE, Key: { pk: `${scope.accountId}#${scope.mode}#carts#${cartId}`, sk: 'record' } }))).Item as Record<string, string>;
}

async function setAttributes(cartId: string, expression: string, values: Record<string, unknown>, names?: Record<string, string>): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: TABLE,
      Key: { pk: `${scope.accountId}#${scope.mode}#carts#${cartId}`, sk: 'record' },
      UpdateExpression: expression,
      ExpressionAttributeValues: values,
      ...(names ? { ExpressionAttributeNames: names } : {}),
    }),
  );
}

describe('stored totals', () => {
  it('are recomputed on every write with the settings passed in, and stored as rendered', async () => {
    const cart = await createCart({ customer: US, items: [{ product_id: 'ebook', quantity: 2 }] }, origin, write);
    expect(cart.totals).toMatchObject({ subtotal: 38, tax: 3.8, total: 41.8, items_count: 1, items_quantity: 2 });
    expect((await stored(cart.cart_id)).totals).toEqual(cart.totals);
    // A write that touches no line still re-prices with the current settings.
    const higher = { ...write, tax: taxSettings([{ country: 'US', state_prov: null, rate: 0.2 }]) };
    const saved = await updateCart(await stored(cart.cart_id), { meta: { n: 1 } }, higher);
    expect(saved.totals).toMatchObject({ tax: 7.6, total: 45.6 });
    expect(saved.modified_ms).toBeGreaterThan(cart.modified_ms);
    expect((await storedItem(cart.cart_id)).gsi2sk!.endsWith(`#${cart.cart_id}`)).toBe(true);
    expect(await stored(cart.cart_id)).toEqual(saved);
  });

  it('keep a line whose product has gone, and refuse to add it again', async () => {
    await createProduct(scope, { product_id: 'retired', name: 'Retired', type: 'digital', prices: [{ currency: 'USD', price: 5 }] }, payment, systemClock);
    const cart = await createCart({ items: [{ product_id: 'retired' }, { product_id: 'ebook' }] }, origin, write);
    const product = await getRecord(productDeclaration, scope, 'retired');
    await saveProduct(product, product, true, systemClock);
    const eur = await updateCart(await stored(cart.cart_id), { currency: 'EUR' }, write);
    expect(eur.items.map((item) => [item.item_id, item.unit_price_original])).toEqual([
      ['retired', 4.5],
      ['ebook', 17.1],
    ]);
    await expect(updateCart(eur, { items: [{ product_id: 'ebook' }, { product_id: 'retired' }] }, write)).rejects.toMatchObject({
      status: 400,
      meta: { property: 'items[1].product_id', reason: 'not_found' },
    });
    const removed = await writeCartLines(eur, [], () => removeItem(eur.items, 'retired'), write);
    expect(removed.items.map((item) => item.item_id)).toEqual(['ebook']);
  });
});

describe('the money limit (conventions.md §20: 999,999,999,999, every computed total included)', () => {
  const refused = (property: string) => ({ status: 400, code: 'invalid_input', meta: { property, reason: 'out_of_range' } });
  let count: () => Promise<number>;

  beforeAll(async () => {
    for (const body of [
      { product_id: 'priciest', name: 'Priciest', type: 'service', prices: [{ currency: 'USD', price: '999999999999' }] },
      { product_id: 'big', name: 'Big', type: 'service', prices: [{ currency: 'USD', price: 600_000_000_000 }] },
    ]) {
      await createProduct(scope, productCreate.parse(body), payment, systemClock);
    }
    const partition = collectionPartition(cartDeclaration, scope);
    count = async () =>
      (await queryItems({ TableName: TABLE, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': partition } }, 10_000)).length;
  });

  it('refuses 9,999 units at the largest price on the line quantity, and creates nothing', async () => {
    const before = await count();
    await expect(createCart(cartCreate.parse({ items: [{ product_id: 'ebook' }, { product_id: 'priciest', quantity: '9999' }] }), origin, write)).rejects.toMatchObject(
      refused('items[1].quantity'),
    );
    expect(await count()).toBe(before);
    // One unit at the largest price is a sale; tax on top of it is not (the line total is over).
    expect((await createCart(cartCreate.parse({ items: [{ product_id: 'priciest' }] }), origin, write)).totals.total).toBe(999_999_999_999);
    await expect(createCart(cartCreate.parse({ customer: US, items: [{ product_id: 'priciest' }] }), origin, write)).rejects.toMatchObject(refused('items[0].quantity'));
  });

  it('blames items when only the sum is over, currency when a currency change gets there, and changes nothing', async () => {
    const cart = await createCart(cartCreate.parse({ items: [{ product_id: 'big' }] }), origin, write);
    await expect(updateCart(cart, cartUpdate.parse({ items: [{ product_id: 'big' }, { product_id: 'priciest' }] }), write)).rejects.toMatchObject(refused('items'));
    const dearer = { ...write, payment: paymentSettings({ currencies: ['USD', 'EUR'], exchange_rates: { EUR: 2 } }) };
    await expect(updateCart(cart, cartUpdate.parse({ currency: 'EUR' }), dearer)).rejects.toMatchObject(refused('currency'));
    expect(await stored(cart.cart_id)).toEqual(cart);
  });

  it('blames quantity on the item endpoints', async () => {
    const cart = await createCart(cartCreate.parse({ items: [{ product_id: 'big' }] }), origin, write);
    const entry = upsertEntry(cartItemUpsert.parse({ product_id: 'big', quantity: 2 }));
    await expect(writeCartLines(cart, [entry], () => upsertItem(cart.items, entry).lines, write)).rejects.toMatchObject(refused('quantity'));
    await expect(writeCartLines(cart, [], () => changeItem(cart.items, 'big', { quantity: 2 }), write, 'quantity')).rejects.toMatchObject(refused('quantity'));
    expect(await stored(cart.cart_id)).toEqual(cart);
  });
});

describe('cart states', () => {
  it('refuses every write to a paid cart (422 invalid_state)', async () => {
    const cart = await createCart({ items: [{ product_id: 'ebook' }] }, origin, write);
    await setAttributes(cart.cart_id, 'SET #open = :false, payment_status = :completed, order_id = :order', { ':false': false, ':completed': 'completed', ':order': 'ORDER1' }, { '#open': 'open' });
    const paid = await stored(cart.cart_id);
    await expect(updateCart(paid, { meta: 'x' }, write)).rejects.toBeInstanceOf(CartPaidError);
    await expect(updateCart(paid, { meta: 'x' }, write)).rejects.toMatchObject({ status: 422, code: 'invalid_state' });
    await expect(writeCartLines(paid, [], () => [], write)).rejects.toBeInstanceOf(CartPaidError);
  });

  it('refuses writes while a payment holds the lock (409 in_use), and accepts them once it lapsed', async () => {
    const cart = await createCart({ items: [{ product_id: 'ebook' }] }, origin, write);
    await setAttributes(cart.cart_id, 'SET payment_lock = :lock', { ':lock': { payment_id: 'PAY1', until_ms: Date.now() + 60_000 } });
    await expect(updateCart(await stored(cart.cart_id), { meta: 'x' }, write)).rejects.toMatchObject({ status: 409, code: 'in_use' });
    await setAttributes(cart.cart_id, 'SET payment_lock = :lock', { ':lock': { payment_id: 'PAY1', until_ms: Date.now() - 1 } });
    const saved = await updateCart(await stored(cart.cart_id), { meta: 'x' }, write);
    expect(saved.meta).toBe('x');
    // A cleared lock (null, as payments leave it) is no lock.
    await setAttributes(cart.cart_id, 'SET payment_lock = :lock', { ':lock': null });
    expect((await updateCart(await stored(cart.cart_id), { meta: 'y' }, write)).meta).toBe('y');
  });

  it('loses against a payment that locks the cart between the read and the save, then answers 409', async () => {
    const cart = await createCart({ items: [{ product_id: 'ebook' }] }, origin, write);
    const read = await stored(cart.cart_id);
    await setAttributes(cart.cart_id, 'SET payment_lock = :lock', { ':lock': { payment_id: 'PAY2', until_ms: Date.now() + 60_000 } });
    await expect(updateCart(read, { items: [] }, write)).rejects.toBeInstanceOf(VersionConflictError);
    let reads = 0;
    const attempt = retryOnConflict(async () => updateCart(reads++ === 0 ? read : await stored(cart.cart_id), { items: [] }, write));
    await expect(attempt).rejects.toBeInstanceOf(CartLockedError);
    expect((await stored(cart.cart_id)).items).toHaveLength(1);
  });

  it('never reopens a cart a payment closed meanwhile, even when its version did not move', async () => {
    const cart = await createCart({ items: [{ product_id: 'ebook' }] }, origin, write);
    const read = await stored(cart.cart_id);
    await setAttributes(cart.cart_id, 'SET #open = :false, payment_status = :completed', { ':false': false, ':completed': 'completed' }, { '#open': 'open' });
    await expect(updateCart(read, { meta: 'late' }, write)).rejects.toBeInstanceOf(VersionConflictError);
    expect((await stored(cart.cart_id)).open).toBe(false);
  });
});

describe('binding', () => {
  it('lets the transaction condition refuse the 21st cart when two creations race for the last slot', async () => {
    const { token } = await issueToken({ accountId: scope.accountId, mode: scope.mode, kind: 'limited' }, systemClock);
    const limited = (principal: Awaited<ReturnType<typeof authenticate>>) => ({ ...write, principal });
    for (let i = 0; i < 19; i++) await createCart({}, origin, limited(await authenticate(token, systemClock, config().rateLimits.perToken)));
    const stale = await authenticate(token, systemClock, config().rateLimits.perToken);
    expect(stale.record.bindings).toHaveLength(19);
    const partition = collectionPartition(cartDeclaration, scope);
    const count = async () =>
      (await queryItems({ TableName: TABLE, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': partition } }, 10_000)).length;
    const before = await count();
    const results = await Promise.allSettled([createCart({}, origin, limited(stale)), createCart({}, origin, limited(stale))]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect((results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(BindingLimitExceededError);
    expect(await count()).toBe(before + 1);
    expect((await authenticate(token, systemClock, config().rateLimits.perToken)).record.bindings).toHaveLength(20);
    await expect(createCart({}, origin, limited(await authenticate(token, systemClock, config().rateLimits.perToken)))).rejects.toMatchObject({ status: 422, code: 'binding_limit_exceeded' });
    expect(await count()).toBe(before + 1);
  });
});
