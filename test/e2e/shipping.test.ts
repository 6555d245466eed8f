/**
 * Shipping over HTTP (commerce.md §2.1, §3.3, §3.4, §4.3 check 5): the merchant manages
 * shipping methods with settings permissions; carts with physical items get quotes from the
 * active methods covering their country, select the cheapest automatically, accept another
 * quoted method and refuse an unquoted one (nothing saved); digital carts have no shipping;
 * shipping and its tax enter the totals, and the paid order carries the shipping line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let secret: string;

const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } };
const buyer = (country: string) => ({ name: 'Ada Lee', email: 'ada@example.test', billing_address: { country, postal_code: '94107' } });

async function shopper(): Promise<string> {
  const minted = await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret });
  expect(minted.status).toBe(201);
  return minted.body.token;
}

async function cart(token: string, body: Record<string, unknown>): Promise<any> {
  const created = await api(`${base}carts?expand=options`, { method: 'POST', token, body });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  const tax = await api(`${base}settings/tax`, { method: 'POST', token: secret, body: { rules: [{ country: 'US', state_prov: null, rate: 0.1 }], tax_shipping: true } });
  expect(tax.status, tax.text).toBe(200);
  const payment = await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0, currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.9 } } });
  expect(payment.status, payment.text).toBe(200);
  for (const [id, type, price] of [
    ['mug', 'physical', 20],
    ['ebook', 'digital', 10],
  ] as const) {
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: id, name: id, type, prices: [{ currency: 'USD', price }] } });
    expect(product.status, product.text).toBe(201);
  }
  for (const body of [
    { shipping_method_id: 'standard', name: 'Standard', description: '5–7 days', prices: [{ currency: 'USD', price: 5 }] },
    { shipping_method_id: 'express', name: 'Express', details: 'Next day', prices: [{ currency: 'usd', price: 15 }] },
    { shipping_method_id: 'us-post', name: 'US Post', countries: ['us'], prices: [{ currency: 'USD', price: 4 }] },
    { shipping_method_id: 'retired', name: 'Retired', active: false, prices: [{ currency: 'USD', price: 1 }] },
  ]) {
    const created = await api(`${base}shipping_methods`, { method: 'POST', token: secret, body });
    expect(created.status, created.text).toBe(201);
  }
});
afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

describe('managing shipping methods', () => {
  it('creates (201, Location), reads, updates, lists and deletes one', async () => {
    const created = await api(`${base}shipping_methods`, {
      method: 'POST',
      token: secret,
      body: { shipping_method_id: 'freight', name: 'Freight', countries: ['de', 'FR'], prices: [{ currency: 'eur', price: 30 }], meta: { carrier: 'x' } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('location')).toBe(`${base}shipping_methods/freight`);
    expect(created.body).toMatchObject({
      object: 'shipping_method',
      url: `${base}shipping_methods/freight`,
      shipping_method_id: 'freight',
      name: 'Freight',
      description: null,
      details: null,
      active: true,
      countries: ['DE', 'FR'],
      prices: [{ currency: 'EUR', price: 30 }],
      test: true,
      account_id: account,
      meta: { carrier: 'x' },
    });
    const updated = await api(`${base}shipping_methods/freight`, { method: 'POST', token: secret, body: { active: false, description: 'Pallets' } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ active: false, description: 'Pallets', name: 'Freight', countries: ['DE', 'FR'] });
    expect((await api(`${base}shipping_methods/freight`, { token: secret })).body.description).toBe('Pallets');
    const list = await api(`${base}shipping_methods?limit=10`, { token: secret });
    expect(list.status).toBe(200);
    expect(list.body.data.map((method: any) => method.shipping_method_id)).toEqual(['standard', 'express', 'us-post', 'retired', 'freight']);
    const active = await api(`${base}shipping_methods?active=false`, { token: secret });
    expect(active.body.data.map((method: any) => method.shipping_method_id)).toEqual(['retired', 'freight']);
    expect((await api(`${base}shipping_methods/freight`, { method: 'DELETE', token: secret })).status).toBe(204);
    expect((await api(`${base}shipping_methods/freight`, { token: secret })).status).toBe(404);
    const after = await api(`${base}shipping_methods`, { token: secret });
    expect(after.body.data).toHaveLength(4);
  });

  it('refuses invalid input, taken ids and limited tokens', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ shipping_method_id: 'x1' }, 'name'],
      [{ name: 'X', countries: ['ZZ'] }, 'countries[0]'],
      [{ name: 'X', countries: 'US' }, 'countries'],
      [{ name: 'X', prices: [{ currency: 'GBP', price: 1 }] }, 'prices[0].currency'],
      [{ name: 'X', prices: [{ currency: 'USD', price: -1 }] }, 'prices[0].price'],
      [{ name: 'X', active: 'yes' }, 'active'],
      [{ name: 'X', active: 1 }, 'active'],
      [{ name: 'X', shipping_method_id: 'bad id' }, 'shipping_method_id'],
      [{ name: 'X', prices: [{ currency: 'USD', price: 1_000_000_000_000 }] }, 'prices[0].price'],
      [{ name: 'X', prices: [{ currency: 'USD', price: '1000000000000' }] }, 'prices[0].price'],
      [{ name: 'X', prices: [{ currency: 'USD', price: '1e3' }] }, 'prices[0].price'],
      [{ name: 'X', prices: [{ currency: 'USD', price: 'two' }] }, 'prices[0].price'],
      [{ name: 'X', prices: [{ currency: 'USD', price: '4.50 ' }] }, 'prices[0].price'],
      [{ name: 'X', prices: [{ currency: 'USD' }] }, 'prices[0].price'],
      [{ name: 'X', prices: [{ currency: 'USD', price: 1 }, { currency: 'usd', price: 2 }] }, 'prices[1].currency'],
      [{ name: 42 }, 'name'],
    ];
    for (const [body, property] of cases) {
      const response = await api(`${base}shipping_methods`, { method: 'POST', token: secret, body });
      expect(response.status, response.text).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_input', meta: { property } });
    }
    const taken = await api(`${base}shipping_methods`, { method: 'POST', token: secret, body: { shipping_method_id: 'standard', name: 'Again' } });
    expect(taken.status).toBe(409);
    const token = await shopper();
    expect((await api(`${base}shipping_methods`, { token })).status).toBe(403);
  });

  it('takes plain decimal strings for prices (conventions.md §4) and the largest money amount', async () => {
    const created = await api(`${base}shipping_methods`, {
      method: 'POST',
      token: secret,
      body: { shipping_method_id: 'courier', name: 'Courier', active: false, prices: [{ currency: 'USD', price: '4.50' }, { currency: 'EUR', price: '4' }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.prices).toEqual([{ currency: 'USD', price: 4.5 }, { currency: 'EUR', price: 4 }]);
    const updated = await api(`${base}shipping_methods/courier`, { method: 'POST', token: secret, body: { prices: [{ currency: 'USD', price: 999_999_999_999 }] } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.prices).toEqual([{ currency: 'USD', price: 999_999_999_999 }]);
    const refused = await api(`${base}shipping_methods/courier`, { method: 'POST', token: secret, body: { name: 'Renamed', prices: [{ currency: 'USD', price: 1e12 }] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.meta).toMatchObject({ property: 'prices[0].price', reason: 'out_of_range' });
    expect((await api(`${base}shipping_methods/courier`, { token: secret })).body).toMatchObject({ name: 'Courier', prices: [{ currency: 'USD', price: 999_999_999_999 }] });
    expect((await api(`${base}shipping_methods/courier`, { method: 'DELETE', token: secret })).status).toBe(204);
  });
});

describe('shipping on carts', () => {
  it('quotes a physical cart and selects the cheapest automatically; totals include shipping and its tax', async () => {
    const body = await cart(await shopper(), { items: [{ product_id: 'mug' }], customer: buyer('US') });
    expect(body.options.shipping_quotes.map((quote: any) => quote.method_id)).toEqual(['us-post', 'standard', 'express']);
    expect(body.options.shipping_quotes[1]).toEqual({
      method_id: 'standard',
      name: 'Standard',
      description: '5–7 days',
      details: null,
      price: 5,
      price_original: 5,
      total: 5.5,
      total_original: 5.5,
    });
    expect(body.shipping_method_id).toBe('us-post');
    expect(body.shipping_item).toMatchObject({ object: 'item', item_id: 'us-post', name: 'US Post', quantity: 1, subtotal: 4, tax: 0.4, total: 4.4 });
    expect(body).toMatchObject({ subtotal: 20, shipping: 4, shipping_original: 4, tax: 2.4, total: 26.4 });
  });

  it('accepts another quoted method and refuses an unquoted one without saving', async () => {
    const token = await shopper();
    const created = await cart(token, { items: [{ product_id: 'mug' }], customer: buyer('US'), shipping_method_id: 'express' });
    expect(created).toMatchObject({ shipping_method_id: 'express', shipping: 15, total: 38.5 });
    for (const id of ['retired', 'nope', 'us-post-x']) {
      const refused = await api(`${base}carts/${created.cart_id}`, { method: 'POST', token, body: { shipping_method_id: id, meta: { changed: true } } });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'shipping_method_id' } });
    }
    const unchanged = await api(`${base}carts/${created.cart_id}`, { token });
    expect(unchanged.body).toMatchObject({ shipping_method_id: 'express', meta: null, total: 38.5 });
    const refusedCreate = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'mug' }], shipping_method_id: 'nope' } });
    expect(refusedCreate.status).toBe(400);
    const back = await api(`${base}carts/${created.cart_id}`, { method: 'POST', token, body: { shipping_method_id: null } });
    expect(back.body.shipping_method_id).toBe('us-post');
  });

  it('quotes only the methods covering the shipping country, and re-selects when the choice is no longer quoted', async () => {
    const token = await shopper();
    const created = await cart(token, { items: [{ product_id: 'mug' }], customer: buyer('US') });
    expect(created.shipping_method_id).toBe('us-post');
    const moved = await api(`${base}carts/${created.cart_id}?expand=options`, {
      method: 'POST',
      token,
      body: { customer: { shipping_address: { country: 'DE' } } },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.options.shipping_quotes.map((quote: any) => quote.method_id)).toEqual(['standard', 'express']);
    expect(moved.body).toMatchObject({ shipping_method_id: 'standard', shipping: 5, tax: 0, total: 25 });
  });

  it('gives digital-only carts no shipping', async () => {
    const token = await shopper();
    const body = await cart(token, { items: [{ product_id: 'ebook' }], customer: buyer('US') });
    expect(body).toMatchObject({ shipping_method_id: null, shipping_item: null, shipping: 0, total: 11 });
    expect(body.options.shipping_quotes).toEqual([]);
    const refused = await api(`${base}carts/${body.cart_id}`, { method: 'POST', token, body: { shipping_method_id: 'standard' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.meta.property).toBe('shipping_method_id');
  });

  it('pays a physical cart; the order carries the shipping line', async () => {
    const token = await shopper();
    const created = await cart(token, { items: [{ product_id: 'mug', quantity: 2 }], customer: buyer('US'), shipping_method_id: 'standard' });
    expect(created.total).toBe(49.5);
    const paid = await api(`${base}carts/${created.cart_id}/payments?expand=order`, { method: 'POST', token, body: card });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({ status: 'completed', total: 49.5, shipping: 5 });
    expect(paid.body.order).toMatchObject({ shipping: 5, total: 49.5, shipping_item: { item_id: 'standard', name: 'Standard', quantity: 1, subtotal: 5, tax: 0.5, total: 5.5 } });
  });
});
