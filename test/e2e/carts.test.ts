/**
 * End-to-end over HTTP against a real local runtime: `/carts` (commerce.md section 3) made by
 * limited tokens the way storefronts do, with binding (auth.md 3.3), replace semantics of
 * `items`, the item endpoints, totals with tax (section 1), currencies, `options`,
 * `expand=items.product`, `formatted`, reach, validation that changes nothing, and the
 * cursor list with filters for secret tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let live: string;
let test: string;

type Response = Awaited<ReturnType<typeof api>>;

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  live = runtime.bootstrap.tokens.live_secret;
  test = runtime.bootstrap.tokens.test_secret;
  const payment = await post('settings/payment', {
    currencies: ['USD', 'EUR', 'JPY'],
    exchange_rates: { EUR: 0.9, JPY: 150 },
    blocked_countries: ['KP'],
    customer_required_fields: ['name', 'full_address'],
    customer_optional_fields: ['phone', 'credentials'],
  });
  expect(payment.status, payment.text).toBe(200);
  const tax = await post('settings/tax', { rules: [{ country: 'US', state_prov: null, rate: 0.1 }, { country: 'DE', state_prov: null, rate: 0.19 }] });
  expect(tax.status, tax.text).toBe(200);
  for (const [token, product] of [
    [live, { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }, { currency: 'EUR', price: 18 }] }],
    [live, { product_id: 'poster', name: 'Poster', type: 'physical', prices: [{ currency: 'USD', price: 10 }] }],
    [live, { product_id: 'hidden', name: 'Hidden', type: 'service', hidden: true, prices: [{ currency: 'USD', price: 5 }] }],
    [live, { product_id: 'inactive', name: 'Inactive', type: 'digital', active: false, prices: [{ currency: 'USD', price: 5 }] }],
    [live, { product_id: 'gone', name: 'Gone', type: 'digital', prices: [{ currency: 'USD', price: 5 }] }],
    [
      live,
      {
        product_id: 'club',
        name: 'Club',
        type: 'service',
        prices: [{ currency: 'USD', price: 7 }],
        subscription_plan: { billing_interval: 1, billing_interval_unit: 'month', end_at_billing_count: null },
      },
    ],
    [test, { product_id: 'test-only', name: 'Test only', type: 'digital', prices: [{ currency: 'USD', price: 1 }] }],
  ] as const) {
    const created = await post('products', product, token);
    expect(created.status, created.text).toBe(201);
  }
  expect((await api(`${base}products/gone`, { method: 'DELETE', token: live })).status).toBe(204);
});
afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

function get(path: string, token = live, headers: Record<string, string> = {}) {
  return api(`${base}${path}`, { token, headers });
}
function post(path: string, body: unknown, token = live, headers: Record<string, string> = {}) {
  return api(`${base}${path}`, { method: 'POST', token, body, headers });
}
function del(path: string, token = live) {
  return api(`${base}${path}`, { method: 'DELETE', token });
}

async function limitedToken(): Promise<string> {
  const minted = await api(`${base}auths/limited?account_id=${account}`, { method: 'POST' });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.token;
}

const expectError = (response: Response, status: number, code: string, meta?: Record<string, unknown>) => {
  expect(response.status, response.text).toBe(status);
  expect(response.body.error).toMatchObject({ status, code });
  if (meta !== undefined) expect(response.body.error.meta).toMatchObject(meta);
};

const US = { billing_address: { country: 'US' } };

async function createCart(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Record<string, any>> {
  const created = await post('carts', body, token, headers);
  expect(created.status, created.text).toBe(201);
  return created.body;
}

const CART_KEYS = [
  'object', 'url', 'cart_id', 'test', 'account_id', 'open', 'payment_status', 'currency', 'customer', 'items', 'shipping_method_id',
  'shipping_item', 'promotion_code', 'promotion', 'subtotal', 'subtotal_original', 'shipping', 'shipping_original', 'discount', 'tax',
  'tax_original', 'total', 'total_original', 'settlement_currency', 'settlement_subtotal', 'settlement_subtotal_original',
  'settlement_shipping', 'settlement_shipping_original', 'settlement_discount', 'settlement_tax', 'settlement_tax_original',
  'settlement_total', 'settlement_total_original', 'tax_inclusive', 'discount_on_gross', 'items_count', 'items_quantity', 'referrer',
  'affiliate_id', 'customer_ip_address', 'customer_ip_country', 'payments', 'order', 'meta', 'date_created', 'date_modified',
];
const ITEM_KEYS = [
  'object', 'url', 'item_id', 'product_id', 'test', 'account_id', 'name', 'type', 'quantity', 'currency', 'price', 'price_original',
  'subtotal', 'subtotal_original', 'discount', 'tax_rate', 'tax', 'tax_original', 'total', 'total_original', 'settlement_currency',
  'settlement_price', 'settlement_subtotal', 'settlement_subtotal_original', 'settlement_discount', 'settlement_tax',
  'settlement_tax_original', 'settlement_total', 'settlement_total_original', 'tax_code', 'product', 'subscription_plan',
  'subscription_terms', 'meta',
];

describe('creating a cart with a limited token', () => {
  it('prices the contract example (2 × 19.00 at 10 %), answers 201 with Location, and binds the cart', async () => {
    const token = await limitedToken();
    const created = await post('carts', { items: [{ product_id: 'ebook', quantity: 2 }], customer: US, meta: { ref: 'spring' } }, token);
    expect(created.status, created.text).toBe(201);
    const cart = created.body;
    expect(created.headers.get('location')).toBe(cart.url);
    expect(Object.keys(cart).sort()).toEqual([...CART_KEYS].sort());
    expect(cart).toMatchObject({
      object: 'cart',
      url: `${base}carts/${cart.cart_id}`,
      test: false,
      account_id: account,
      open: true,
      payment_status: 'unpaid',
      currency: 'USD',
      subtotal: 38,
      subtotal_original: 38,
      shipping: 0,
      discount: 0,
      tax: 3.8,
      total: 41.8,
      total_original: 41.8,
      settlement_currency: 'USD',
      settlement_total: 41.8,
      tax_inclusive: false,
      discount_on_gross: false,
      items_count: 1,
      items_quantity: 2,
      promotion_code: null,
      promotion: null,
      shipping_method_id: null,
      shipping_item: null,
      payments: `${base}carts/${cart.cart_id}/payments`,
      order: null,
      meta: { ref: 'spring' },
      customer_ip_address: '127.0.0.1',
      customer_ip_country: null,
    });
    expect(cart.cart_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{12}$/);
    expect(cart.customer).toMatchObject({ object: 'customer', url: null, customer_id: null, username: null, payment_methods: null });
    expect(cart.customer.billing_address).toMatchObject({ object: 'address', country: 'US', city: null });
    const [item] = cart.items;
    expect(Object.keys(item).sort()).toEqual([...ITEM_KEYS].sort());
    expect(item).toMatchObject({
      object: 'item',
      url: `${cart.url}/items/ebook`,
      item_id: 'ebook',
      product_id: 'ebook',
      name: 'E-book',
      type: 'digital',
      quantity: 2,
      currency: 'USD',
      price: 19,
      price_original: 19,
      subtotal: 38,
      discount: 0,
      tax_rate: 0.1,
      tax: 3.8,
      total: 41.8,
      settlement_total: 41.8,
      product: `${base}products/ebook`,
      subscription_plan: null,
      subscription_terms: null,
      meta: null,
    });
    const me = await get('auths/me', token);
    expect(me.body.bindings).toEqual([cart.url]);
    expect(me.body.bindings_count).toBe(1);
    const read = await get(`carts/${cart.cart_id}`, token);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(cart);
  });

  it('chooses the national currency of the viewer country when it is enabled, else the default', async () => {
    const token = await limitedToken();
    const german = await createCart(token, { items: [{ product_id: 'ebook' }] }, { 'CloudFront-Viewer-Country': 'DE' });
    expect(german).toMatchObject({ currency: 'EUR', customer_ip_country: 'DE', subtotal: 18, tax: 3.42, total: 21.42 });
    const swiss = await createCart(token, {}, { 'CloudFront-Viewer-Country': 'CH' });
    expect(swiss).toMatchObject({ currency: 'USD', customer_ip_country: 'CH', total: 0, items: [] });
    const explicit = await createCart(token, { currency: 'jpy' }, { 'CloudFront-Viewer-Country': 'DE' });
    expect(explicit.currency).toBe('JPY');
  });

  it('shows subscription terms, hidden products and the settlement twins', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, { currency: 'EUR', items: [{ product_id: 'club' }, { product_id: 'hidden', quantity: 3 }] });
    expect(cart.items[0]).toMatchObject({
      subscription_plan: { billing_interval: 1, billing_interval_unit: 'month', end_at_billing_count: null, description: 'Every 1 month' },
      subscription_terms: { description: 'Every 1 month' },
      price: 6.3,
      settlement_currency: 'USD',
      settlement_price: 7,
    });
    expect(cart).toMatchObject({ subtotal: 19.8, settlement_subtotal: 22, items_count: 2, items_quantity: 4 });
  });
});

describe('replacing items', () => {
  it('drops quantity 0, takes the last duplicate, keeps what kept entries omit, and empties with [] or null', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, {
      customer: US,
      items: [
        { product_id: 'ebook', quantity: 1, meta: { gift: true } },
        { product_id: 'poster', quantity: 2 },
      ],
    });
    const path = `carts/${cart.cart_id}`;
    const replaced = await post(path, {
      items: [
        { product_id: 'ebook', quantity: 5 },
        { product_id: 'hidden', quantity: 1 },
        { product_id: 'ebook', quantity: 3 },
        { product_id: 'poster', quantity: 0 },
      ],
    }, token);
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.items.map((i: any) => [i.item_id, i.quantity, i.meta])).toEqual([
      ['ebook', 3, { gift: true }],
      ['hidden', 1, null],
    ]);
    expect(replaced.body).toMatchObject({ subtotal: 62, tax: 6.2, total: 68.2, items_quantity: 4 });

    // Posting back the whole cart works, and an omitted quantity keeps the current one.
    const echoed = await post(path, { ...replaced.body, items: [{ product_id: 'ebook', meta: null }, ...replaced.body.items.slice(1)] }, token);
    expect(echoed.status, echoed.text).toBe(200);
    expect(echoed.body.items.map((i: any) => [i.item_id, i.quantity, i.meta])).toEqual([
      ['ebook', 3, null],
      ['hidden', 1, null],
    ]);

    // Properties other than items leave the lines alone.
    const meta = await post(path, { meta: 'x' }, token);
    expect(meta.body.items).toHaveLength(2);

    const emptied = await post(path, { items: [] }, token);
    expect(emptied.body).toMatchObject({ items: [], items_count: 0, total: 0 });
    await post(path, { items: [{ product_id: 'ebook' }] }, token);
    const nulled = await post(path, { items: null }, token);
    expect(nulled.body.items).toEqual([]);
  });

  it('refuses unknown, inactive, deleted and other-mode products, bad quantities and currencies, and changes nothing', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, { customer: US, items: [{ product_id: 'ebook', quantity: 2 }] });
    const path = `carts/${cart.cart_id}`;
    const attempts: Array<[Record<string, unknown>, number, string, Record<string, unknown>]> = [
      [{ items: [{ product_id: 'ebook' }, { product_id: 'nope' }] }, 400, 'invalid_input', { property: 'items[1].product_id', reason: 'not_found' }],
      [{ items: [{ product_id: 'inactive' }] }, 400, 'invalid_input', { property: 'items[0].product_id', reason: 'not_found' }],
      [{ items: [{ product_id: 'gone' }] }, 400, 'invalid_input', { property: 'items[0].product_id', reason: 'not_found' }],
      [{ items: [{ product_id: 'test-only' }] }, 400, 'token_type_mismatch', { property: 'items[0].product_id' }],
      [{ items: [{ product_id: 'ebook', quantity: '1e3' }] }, 400, 'invalid_input', { property: 'items[0].quantity', reason: 'invalid' }],
      [{ items: [{ product_id: 'ebook', quantity: ' 2' }] }, 400, 'invalid_input', { property: 'items[0].quantity', reason: 'invalid' }],
      [{ items: [{ product_id: 'ebook', quantity: 'two' }] }, 400, 'invalid_input', { property: 'items[0].quantity', reason: 'invalid' }],
      [{ items: [{ product_id: 'ebook', quantity: 10000 }] }, 400, 'invalid_input', { property: 'items[0].quantity', reason: 'out_of_range' }],
      [{ items: [{ product_id: 'ebook', quantity: 1.5 }] }, 400, 'invalid_input', { property: 'items[0].quantity' }],
      [{ items: [{ quantity: 1 }] }, 400, 'invalid_input', { property: 'items[0].product_id', reason: 'required' }],
      [{ items: { product_id: 'ebook' } }, 400, 'invalid_input', { property: 'items' }],
      [{ items: [{ product_id: 'ebook', meta: 'x'.repeat(2100) }] }, 400, 'invalid_input', { property: 'items[0].meta', reason: 'too_long' }],
      [{ currency: 'GBP', items: [] }, 400, 'invalid_input', { property: 'currency' }],
      [{ currency: 7 }, 400, 'invalid_input', { property: 'currency' }],
      [{ promotion_code: 'SPRING', items: [] }, 400, 'invalid_promotion_code', { property: 'promotion_code', reason: 'not_found' }],
      [{ shipping_method_id: 'fast' }, 400, 'invalid_input', { property: 'shipping_method_id' }],
      [{ customer: { email: 'not-an-email' } }, 400, 'invalid_input', { property: 'customer.email' }],
      [{ customer: { billing_address: { country: 'XX' } } }, 400, 'invalid_input', { property: 'customer.billing_address.country' }],
      [{ meta: 'y'.repeat(2100) }, 400, 'invalid_input', { property: 'meta', reason: 'too_long' }],
    ];
    for (const [body, status, code, meta] of attempts) {
      expectError(await post(path, body, token), status, code, meta);
    }
    expect((await get(path, token)).body).toEqual(cart);
    // null removes the code; a posted-back null shipping method is accepted.
    const cleared = await post(path, { promotion_code: null, shipping_method_id: null }, token);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ promotion_code: null, total: 41.8 });
  });

  it('re-prices on a currency change', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, { customer: US, items: [{ product_id: 'ebook' }, { product_id: 'poster', quantity: 2 }] });
    expect(cart).toMatchObject({ subtotal: 39, total: 42.9 });
    const eur = await post(`carts/${cart.cart_id}`, { currency: 'eur' }, token);
    expect(eur.status, eur.text).toBe(200);
    expect(eur.body.items.map((i: any) => [i.item_id, i.price, i.currency])).toEqual([
      ['ebook', 18, 'EUR'],
      ['poster', 9, 'EUR'],
    ]);
    expect(eur.body).toMatchObject({ currency: 'EUR', subtotal: 36, tax: 3.6, total: 39.6, settlement_currency: 'USD', settlement_total: 44 });
    const jpy = await post(`carts/${cart.cart_id}`, { currency: 'JPY' }, token);
    expect(jpy.body).toMatchObject({ currency: 'JPY', subtotal: 5850, tax: 585, total: 6435 });
  });

  it('taxes at the shipping address for physical carts, else the billing address', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, {
      customer: { billing_address: { country: 'US' }, shipping_address: { country: 'DE' } },
      items: [{ product_id: 'ebook' }],
    });
    expect(cart.tax).toBe(1.9);
    const physical = await post(`carts/${cart.cart_id}`, { items: [{ product_id: 'ebook' }, { product_id: 'poster' }] }, token);
    expect(physical.body).toMatchObject({ tax: 5.51, total: 34.51, shipping_item: null });
    expect(physical.body.items.map((i: any) => i.tax_rate)).toEqual([0.19, 0.19]);
    // Address merge: a partial address keeps the rest.
    const merged = await post(`carts/${cart.cart_id}`, { customer: { shipping_address: { city: 'Berlin' } } }, token);
    expect(merged.body.customer.shipping_address).toMatchObject({ city: 'Berlin', country: 'DE' });
    // customer: null clears the entered details, and with them the tax location.
    const cleared = await post(`carts/${cart.cart_id}`, { customer: null }, token);
    expect(cleared.body.customer).toMatchObject({ name: null, billing_address: { country: null }, shipping_address: { country: null, city: null } });
    expect(cleared.body).toMatchObject({ tax: 0, total: 29 });
  });
});

describe('storefront tolerance and limits (conventions.md §4, §20)', () => {
  const deep = (levels: number): unknown => {
    let value: unknown = 'leaf';
    for (let i = 0; i < levels; i++) value = { n: value };
    return value;
  };

  beforeAll(async () => {
    for (const product of [
      { product_id: 'form', name: 'From a form', type: 'digital', prices: [{ currency: 'USD', price: '19.99' }] },
      { product_id: '1234', name: 'Numbered', type: 'digital', prices: [{ currency: 'USD', price: 5 }] },
      { product_id: 'priciest', name: 'Priciest', type: 'service', prices: [{ currency: 'USD', price: 999_999_999_999 }] },
    ]) {
      const created = await post('products', product);
      expect(created.status, created.text).toBe(201);
    }
    expectError(await post('products', { name: 'Too dear', type: 'digital', prices: [{ currency: 'USD', price: 1e20 }] }), 400, 'invalid_input', {
      property: 'prices[0].price',
      reason: 'out_of_range',
    });
  });

  it('creates and updates a cart with plain decimal strings, as browsers post them', async () => {
    const token = await limitedToken();
    const created = await post('carts', { items: [{ product_id: 'form', quantity: '1' }] }, token);
    expect(created.status, created.text).toBe(201);
    expect(created.body.items[0]).toMatchObject({ product_id: 'form', quantity: 1, price: 19.99 });
    expect(created.body.total).toBe(19.99);
    const path = `carts/${created.body.cart_id}`;
    const updated = await post(path, { items: [{ product_id: 'form', quantity: '3' }] }, token);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ items_quantity: 3, subtotal: 59.97 });
    const upserted = await post(`${path}/items`, { product_id: 'form', quantity: '2' }, token);
    expect(upserted.status, upserted.text).toBe(200);
    expect(upserted.body.quantity).toBe(2);
    const changed = await post(`${path}/items/form`, { quantity: '4' }, token);
    expect(changed.body.quantity).toBe(4);
    expect((await post(`${path}/items/form`, { quantity: '0' }, token)).status).toBe(204);
  });

  it('converts a numeric product_id and postal code to strings', async () => {
    const token = await limitedToken();
    const created = await post('carts', { items: [{ product_id: 1234, quantity: 2 }], customer: { phone: 5550100, billing_address: { postal_code: 94107 } } }, token);
    expect(created.status, created.text).toBe(201);
    expect(created.body.items[0]).toMatchObject({ item_id: '1234', product_id: '1234', quantity: 2 });
    expect(created.body.customer).toMatchObject({ phone: '5550100', billing_address: { postal_code: '94107' } });
    const upserted = await post(`carts/${created.body.cart_id}/items`, { product_id: 1234, quantity: 1 }, token);
    expect(upserted.status, upserted.text).toBe(200);
  });

  it('refuses malformed numbers with nothing created or changed', async () => {
    const token = await limitedToken();
    for (const quantity of ['1e3', ' 2', 'two', '1 ', [], {}]) {
      expectError(await post('carts', { items: [{ product_id: 'ebook', quantity }] }, token), 400, 'invalid_input', { property: 'items[0].quantity', reason: 'invalid' });
    }
    // Nothing was created: the token holds no cart yet.
    expect((await get('auths/me', token)).body.bindings_count).toBe(0);
    const cart = await createCart(token, { items: [{ product_id: 'ebook', quantity: 2 }] });
    const path = `carts/${cart.cart_id}`;
    for (const quantity of ['1e3', ' 2', 'two']) {
      expectError(await post(path, { meta: 'changed', items: [{ product_id: 'ebook', quantity }] }, token), 400, 'invalid_input', { property: 'items[0].quantity' });
      expectError(await post(`${path}/items`, { product_id: 'ebook', quantity }, token), 400, 'invalid_input', { property: 'quantity' });
      expectError(await post(`${path}/items/ebook`, { quantity, meta: 'changed' }, token), 400, 'invalid_input', { property: 'quantity' });
    }
    expect((await get(path, token)).body).toEqual(cart);
  });

  it('refuses a cart whose amounts would pass 999,999,999,999 (400, not an overflow), with nothing created or changed', async () => {
    const token = await limitedToken();
    const tooMuch = await post('carts', { items: [{ product_id: 'priciest', quantity: 9999 }] }, token);
    expectError(tooMuch, 400, 'invalid_input', { property: 'items[0].quantity', reason: 'out_of_range' });
    expect((await get('auths/me', token)).body.bindings_count).toBe(0);
    const cart = await createCart(token, { items: [{ product_id: 'priciest' }] });
    expect(cart.total).toBe(999_999_999_999);
    const path = `carts/${cart.cart_id}`;
    expectError(await post(path, { items: [{ product_id: 'priciest', quantity: '9999' }] }, token), 400, 'invalid_input', { property: 'items[0].quantity', reason: 'out_of_range' });
    expectError(await post(path, { items: [{ product_id: 'priciest' }, { product_id: 'ebook' }] }, token), 400, 'invalid_input', { property: 'items', reason: 'out_of_range' });
    expectError(await post(path, { customer: US }, token), 400, 'invalid_input', { property: 'items', reason: 'out_of_range' });
    expectError(await post(path, { currency: 'JPY' }, token), 400, 'invalid_input', { property: 'currency', reason: 'out_of_range' });
    expectError(await post(`${path}/items`, { product_id: 'priciest', quantity: 2 }, token), 400, 'invalid_input', { property: 'quantity', reason: 'out_of_range' });
    expectError(await post(`${path}/items/priciest`, { quantity: 2 }, token), 400, 'invalid_input', { property: 'quantity', reason: 'out_of_range' });
    expect((await get(path, token)).body).toEqual(cart);
  });

  it('limits meta to 32 levels (too_long beyond) and refuses a body nested 10,000 deep before reading it', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, { meta: deep(30), items: [{ product_id: 'ebook', meta: deep(31) }] });
    expect(cart.meta).toEqual(deep(30));
    const path = `carts/${cart.cart_id}`;
    expectError(await post(path, { meta: deep(40) }, token), 400, 'invalid_input', { property: 'meta', reason: 'too_long' });
    expectError(await post(path, { items: [{ product_id: 'ebook', meta: deep(40) }] }, token), 400, 'invalid_input', { property: 'items[0].meta', reason: 'too_long' });
    expectError(await post(`${path}/items/ebook`, { meta: deep(33) }, token), 400, 'invalid_input', { property: 'meta', reason: 'too_long' });
    const abyss = `{"meta":${'{"n":'.repeat(10_000)}"leaf"${'}'.repeat(10_000)}}`;
    const raw = (url: string) => api(`${base}${url}`, { method: 'POST', token, rawBody: abyss, headers: { 'Content-Type': 'application/json' } });
    expectError(await raw(path), 400, 'invalid_input', { reason: 'too_deep' });
    expectError(await raw('carts'), 400, 'invalid_input', { reason: 'too_deep' });
    expect((await get('auths/me', token)).body.bindings_count).toBe(1);
    expect((await get(path, token)).body).toEqual(cart);
  });
});

describe('item endpoints', () => {
  it('upserts, reads, changes and removes single items', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, { customer: US });
    const items = `carts/${cart.cart_id}/items`;

    const added = await post(items, { product_id: 'ebook', quantity: 2, meta: { note: 'a' } }, token);
    expect(added.status, added.text).toBe(201);
    expect(added.headers.get('location')).toBe(`${cart.url}/items/ebook`);
    expect(Object.keys(added.body).sort()).toEqual([...ITEM_KEYS].sort());
    expect(added.body).toMatchObject({ object: 'item', item_id: 'ebook', quantity: 2, total: 41.8, meta: { note: 'a' } });

    const set = await post(items, { product_id: 'ebook', quantity: 4 }, token);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ quantity: 4, meta: { note: 'a' }, subtotal: 76 });
    expect((await post(items, { product_id: 'poster' }, token)).status).toBe(201);

    expectError(await post(items, { product_id: 'ebook', quantity: 0 }, token), 400, 'invalid_input', { property: 'quantity', reason: 'out_of_range' });
    expectError(await post(items, { product_id: 'nope' }, token), 400, 'invalid_input', { property: 'product_id', reason: 'not_found' });
    expectError(await post(items, { quantity: 1 }, token), 400, 'invalid_input', { property: 'product_id', reason: 'required' });

    const one = await get(`${items}/ebook`, token);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ item_id: 'ebook', quantity: 4 });
    expectError(await get(`${items}/club`, token), 404, 'resource_not_found');

    const changed = await post(`${items}/ebook`, { quantity: 1, meta: null }, token);
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ quantity: 1, meta: null, total: 20.9 });
    expectError(await post(`${items}/ebook`, { quantity: -1 }, token), 400, 'invalid_input', { property: 'quantity' });
    expectError(await post(`${items}/club`, { quantity: 1 }, token), 404, 'resource_not_found');

    const list = await get(`${items}?limit=1`, token);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      object: 'list',
      total_items: 2,
      total_pages: 2,
      current_page: 1,
      next_page_offset: 1,
      next_page_url: `${base}${items}?limit=1&offset=1`,
      previous_page_url: null,
      current_page_url: `${base}${items}?limit=1`,
    });
    expect(list.body.data.map((i: any) => i.item_id)).toEqual(['ebook']);
    const expanded = await get(`${items}?expand=product`, token);
    expect(expanded.body.data[1].product).toMatchObject({ object: 'product', product_id: 'poster' });

    const removed = await post(`${items}/ebook`, { quantity: 0 }, token);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    expect((await del(`${items}/poster`, token)).status).toBe(204);
    expectError(await del(`${items}/poster`, token), 404, 'resource_not_found', { parameter: 'item_id' });
    const after = await get(`carts/${cart.cart_id}`, token);
    expect(after.body).toMatchObject({ items: [], total: 0, items_count: 0 });
  });

  it('answers 404 resource_not_found for an item that is not in the cart, and changes nothing', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, { customer: US, items: [{ product_id: 'ebook', quantity: 2 }] });
    const items = `carts/${cart.cart_id}/items`;
    // `poster` is a product, just not in this cart; `nope` is no product at all.
    for (const itemId of ['poster', 'nope']) {
      for (const [method, body] of [
        ['DELETE', undefined],
        ['POST', { quantity: 0 }],
        ['POST', { quantity: 3 }],
        ['POST', { meta: { note: 'x' } }],
        ['GET', undefined],
      ] as const) {
        const response = await api(`${base}${items}/${itemId}`, { method, token, ...(body ? { body } : {}) });
        expectError(response, 404, 'resource_not_found', { parameter: 'item_id' });
        expect(response.body.error.message).toBe(`The item ${itemId} is not in the cart.`);
      }
    }
    const after = await get(`carts/${cart.cart_id}`, token);
    expect(after.body).toEqual(cart);
  });
});

describe('rendering', () => {
  it('adds options only when asked (expand=options or options=true)', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, { items: [{ product_id: 'poster' }] }, { 'CloudFront-Viewer-Country': 'US' });
    expect(cart.options).toBeUndefined();
    const withOptions = await get(`carts/${cart.cart_id}?expand=options`, token);
    const options = withOptions.body.options;
    expect(options).toMatchObject({
      customer_required_fields: ['name', 'billing_address.address_1', 'billing_address.city', 'billing_address.state_prov', 'billing_address.postal_code', 'billing_address.country', 'email'],
      customer_optional_fields: ['phone', 'username', 'billing_address.address_2'],
      shipping_quotes: [],
      payment_methods: [{ payment_method_type: 'credit_card' }],
      customer_default_country: 'US',
      currencies: [
        { code: 'USD', name: 'US Dollar' },
        { code: 'EUR', name: 'Euro' },
        { code: 'JPY', name: 'Japanese Yen' },
      ],
    });
    expect(options.card_types).toContain('Visa');
    expect(options.allowed_customer_countries).toContain('US');
    expect(options.allowed_customer_countries).toContain('XK');
    expect(options.allowed_customer_countries).not.toContain('KP');
    expect(options.allowed_customer_countries.length).toBeGreaterThan(240);
    const legacy = await get(`carts/${cart.cart_id}?options=true`, token);
    expect(legacy.body.options).toEqual(options);
    const created = await post('carts', {}, token, {});
    expect(created.body.options).toBeUndefined();
    const createdWithOptions = await api(`${base}carts?expand=options`, { method: 'POST', token, body: {} });
    expect(createdWithOptions.body.options.customer_default_country).toBeNull();
  });

  it('expands the products of the embedded items', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, { items: [{ product_id: 'ebook' }, { product_id: 'hidden' }] });
    const expanded = await get(`carts/${cart.cart_id}?expand=items.product`, token);
    expect(expanded.status).toBe(200);
    expect(expanded.body.items[0].product).toMatchObject({ object: 'product', product_id: 'ebook', name: 'E-book' });
    expect(expanded.body.items[1].product).toMatchObject({ object: 'product', product_id: 'hidden' });
    const shown = await get(`carts/${cart.cart_id}?expand=items.product&show=items.product.name,total`, token);
    expect(shown.body).toEqual({ url: cart.url, total: cart.total, items: [{ product: { name: 'E-book' } }, { product: { name: 'Hidden' } }] });
  });

  it('formats money, settlement twins, rates, dates and countries', async () => {
    const token = await limitedToken();
    const cart = await createCart(token, { currency: 'EUR', customer: { billing_address: { country: 'DE' } }, items: [{ product_id: 'ebook', quantity: 2 }] });
    const formatted = await get(`carts/${cart.cart_id}?formatted=true&user_locale=de-DE`, token);
    const body = formatted.body;
    expect(body.formatted).toMatchObject({ subtotal: '36,00 €', tax: '6,84 €', total: '42,84 €', settlement_total: '47,60 $' });
    expect(typeof body.formatted.date_created).toBe('string');
    expect(body.items[0].formatted).toMatchObject({ price: '18,00 €', tax_rate: '19 %', settlement_price: '20,00 $' });
    expect(body.customer.billing_address.formatted).toEqual({ country: 'Deutschland' });
    expect(body.total).toBe(42.84);
    const english = await get(`carts/${cart.cart_id}?formatted=true`, token);
    expect(english.body.formatted.total).toBe('€42.84');
  });
});

describe('reach and bindings', () => {
  it('hides a cart from other limited tokens (404) and refuses them the list (403)', async () => {
    const owner = await limitedToken();
    const stranger = await limitedToken();
    const cart = await createCart(owner, { items: [{ product_id: 'ebook' }] });
    for (const [method, path, body] of [
      ['GET', `carts/${cart.cart_id}`, undefined],
      ['POST', `carts/${cart.cart_id}`, { items: [] }],
      ['GET', `carts/${cart.cart_id}/items`, undefined],
      ['POST', `carts/${cart.cart_id}/items`, { product_id: 'ebook' }],
      ['GET', `carts/${cart.cart_id}/items/ebook`, undefined],
      ['POST', `carts/${cart.cart_id}/items/ebook`, { quantity: 2 }],
      ['DELETE', `carts/${cart.cart_id}/items/ebook`, undefined],
    ] as const) {
      const response = await api(`${base}${path}`, { method, token: stranger, ...(body ? { body } : {}) });
      expectError(response, 404, 'resource_not_found');
    }
    expectError(await get('carts', owner), 403, 'insufficient_permissions');
    expect((await get(`carts/${cart.cart_id}`, owner)).body.items).toHaveLength(1);
    // Secret tokens of the mode reach every cart; the other mode's token gets token_type_mismatch.
    expect((await get(`carts/${cart.cart_id}`, live)).status).toBe(200);
    expectError(await get(`carts/${cart.cart_id}`, test), 400, 'token_type_mismatch');
    expectError(await get('carts/NOSUCHCART12', live), 404, 'resource_not_found');
  });

  it('refuses the 21st cart of a limited token with nothing created', async () => {
    const token = await limitedToken();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await createCart(token, {})).cart_id);
    const before = await get('carts?limit=100&desc=true&date_type=date_created', live);
    const refused = await post('carts', { items: [{ product_id: 'ebook' }] }, token);
    expectError(refused, 422, 'binding_limit_exceeded', { limit: 20 });
    const after = await get('carts?limit=100&desc=true&date_type=date_created', live);
    expect(after.body.data.map((c: any) => c.cart_id)).toEqual(before.body.data.map((c: any) => c.cart_id));
    // The carts it has keep working.
    expect((await post(`carts/${ids[0]}/items`, { product_id: 'ebook' }, token)).status).toBe(201);
    expect((await get('auths/me', token)).body.bindings_count).toBe(20);
  });
});

describe('secret tokens', () => {
  it('link saved customers, while limited tokens cannot', async () => {
    const saved = await post('customers', {
      customer_id: 'cust-exempt',
      name: 'Exempt Ltd',
      email: 'buyer@example.test',
      tax_exempt: true,
      billing_address: { country: 'US', city: 'Austin' },
    });
    expect(saved.status, saved.text).toBe(201);
    const cart = await createCart(live, { customer_id: 'cust-exempt', customer: { phone: '555-0100' }, items: [{ product_id: 'ebook' }] });
    expect(cart.customer).toMatchObject({
      url: `${base}customers/cust-exempt`,
      customer_id: 'cust-exempt',
      name: 'Exempt Ltd',
      email: 'buyer@example.test',
      phone: '555-0100',
      payment_methods: `${base}customers/cust-exempt/payment_methods`,
    });
    expect(cart.customer.billing_address).toMatchObject({ city: 'Austin', country: 'US' });
    expect(cart).toMatchObject({ tax: 0, total: 19 });
    // Posting back the same link changes nothing; null unlinks and keeps the details.
    const again = await post(`carts/${cart.cart_id}`, { customer: { ...cart.customer, name: 'Changed' } });
    expect(again.body.customer).toMatchObject({ customer_id: 'cust-exempt', name: 'Changed' });
    const unlinked = await post(`carts/${cart.cart_id}`, { customer_id: null });
    expect(unlinked.body).toMatchObject({ customer: { customer_id: null, name: 'Changed', url: null }, tax: 1.9 });
    expectError(await post(`carts/${cart.cart_id}`, { customer_id: 'nobody' }), 400, 'invalid_input', { property: 'customer_id', reason: 'not_found' });

    const token = await limitedToken();
    const shopper = await createCart(token, { customer_id: 'cust-exempt', customer: { customer_id: 'cust-exempt', name: 'Me' }, items: [{ product_id: 'ebook' }] });
    expect(shopper.customer).toMatchObject({ customer_id: null, name: 'Me' });
  });

  it('list carts with a cursor and filters payment_status, open and customer_id', async () => {
    const first = await createCart(live, { customer_id: 'cust-exempt', meta: 'listed' });
    const second = await createCart(live, { meta: 'listed' });
    const all = await get('carts?desc=true&limit=2');
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(['current_page_url', 'data', 'next_page_after_item', 'next_page_url', 'object', 'previous_page_before_item', 'previous_page_url']);
    expect(all.body.data.map((c: any) => c.cart_id)).toEqual([second.cart_id, first.cart_id]);
    expect(all.body.next_page_after_item).toBe(first.cart_id);
    const byCustomer = await get('carts?customer_id=cust-exempt');
    expect(byCustomer.body.data.every((c: any) => c.customer.customer_id === 'cust-exempt')).toBe(true);
    expect(byCustomer.body.data.map((c: any) => c.cart_id)).toContain(first.cart_id);
    expect(byCustomer.body.data.map((c: any) => c.cart_id)).not.toContain(second.cart_id);
    const unpaid = await get('carts?payment_status=unpaid&open=true&limit=100');
    expect(unpaid.body.data.length).toBeGreaterThan(2);
    expect((await get('carts?payment_status=completed')).body.data).toEqual([]);
    expect((await get('carts?open=false')).body.data).toEqual([]);
    expectError(await get('carts?payment_status=paid'), 400, 'invalid_input', { parameter: 'payment_status' });
    expectError(await get('carts?open=maybe'), 400, 'invalid_input', { parameter: 'open' });
    const listed = await get('carts?desc=true&limit=2&expand=items.product,options');
    expect(listed.body.data[0].options.payment_methods).toEqual([{ payment_method_type: 'credit_card' }]);
    // The other mode lists its own carts only.
    const testCart = await createCart(test, {});
    const testList = await get('carts?limit=100', test);
    expect(testList.body.data.map((c: any) => c.cart_id)).toEqual([testCart.cart_id]);
    expect(testList.body.data[0].test).toBe(true);
  });
});
