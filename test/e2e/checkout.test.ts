/**
 * The checkout path over HTTP (commerce issue "Must show"): a shopper holding only a limited
 * token fills a cart and pays; the merchant gets exactly one order, and the confirmation
 * email lands in the outbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let secret: string;

const card = (number: string, extra: Record<string, unknown> = {}) => ({
  payment_method: { type: 'credit_card', data: { number, exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee', ...extra } },
});
const buyer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };

async function shopper(): Promise<string> {
  const minted = await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret });
  expect(minted.status).toBe(201);
  return minted.body.token;
}

async function cartFor(token: string, quantity = 1): Promise<string> {
  const cart = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'ebook', quantity }], customer: buyer } });
  expect(cart.status, cart.text).toBe(201);
  return cart.body.cart_id;
}

async function orderCount(): Promise<number> {
  let count = 0;
  let url: string | null = `${base}orders?limit=100`;
  while (url) {
    const page: { body: { data: unknown[]; next_page_url: string | null } } = await api(url, { token: secret });
    count += page.body.data.length;
    url = page.body.next_page_url;
  }
  return count;
}

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  expect((await api(`${base}settings/tax`, { method: 'POST', token: secret, body: { rules: [{ country: 'US', state_prov: null, rate: 0.1 }] } })).status).toBe(200);
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
  const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'ebook', name: 'E-book, basic edition', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
  expect(product.status).toBe(201);
});
afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

describe('a shopper with only a limited token', () => {
  it('lists products, fills a cart, pays, reads the order and gets the email', async () => {
    const token = await shopper();
    const products = await api(`${base}products`, { token });
    expect(products.body.data.map((p: { product_id: string }) => p.product_id)).toContain('ebook');
    const created = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'ebook', quantity: 1 }], meta: { campaign: 'spring' } } });
    expect(created.status).toBe(201);
    const cartId = created.body.cart_id;
    const replaced = await api(`${base}carts/${cartId}`, { method: 'POST', token, body: { items: [{ product_id: 'ebook', quantity: 2, meta: { gift: true } }], customer: buyer } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ subtotal: 38, tax: 3.8, total: 41.8 });

    const paid = await api(`${base}carts/${cartId}/payments?expand=order`, { method: 'POST', token, body: card('4444555566661111') });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.order).toMatchObject({ object: 'order', payment_status: 'completed' });
    expect(paid.body).toMatchObject({ status: 'completed', success: true, total: 41.8, currency: 'USD' });
    expect(paid.body.payment_method.data).toMatchObject({ last4: '1111', mask: '************1111' });
    expect(paid.text).not.toContain('4444555566661111');
    expect(paid.headers.get('location')).toBe(paid.body.url);

    const read = await api(`${paid.body.url}?expand=order.items,order.customer&formatted=true`, { token });
    expect(read.status, read.text).toBe(200);
    const order = read.body.order;
    expect(order).toMatchObject({ object: 'order', payment_status: 'completed', total: 41.8, meta: { campaign: 'spring' } });
    expect(order.items[0]).toMatchObject({ item_id: 'ebook', quantity: 2, meta: { gift: true } });
    expect(order.customer).toMatchObject({ object: 'customer', name: 'Ada Lee', email: 'ada@example.test', has_payments: true });
    expect(order.formatted.total).toBe('$41.80');
    expect(read.body.formatted.total).toBe('$41.80');

    const cart = await api(`${base}carts/${cartId}`, { token });
    expect(cart.body).toMatchObject({ open: false, payment_status: 'completed' });
    expect(cart.body.order).toBe(order.url);
    expect((await api(`${base}carts/${cartId}`, { method: 'POST', token, body: { meta: 'late' } })).status).toBe(422);

    const outbox = await api(`${runtime.url}/_local/outbox`);
    const email = outbox.body.data.find((m: { order_id?: string }) => m.order_id === order.order_id);
    expect(email).toMatchObject({ to: 'ada@example.test', kind: 'order_confirmation' });
    const html = await (await fetch(email.html_url)).text();
    expect(html).toContain('E-book, basic edition');
    expect(html).toContain('$41.80');

    // Another shopper sees nothing of it, and no shopper can list orders.
    const other = await shopper();
    expect((await api(`${base}carts/${cartId}`, { token: other })).status).toBe(404);
    expect((await api(order.url, { token: other })).status).toBe(404);
    expect((await api(`${base}orders`, { token })).status).toBe(403);
    expect((await api(`${base}orders`, { token: other })).status).toBe(403);
  });
});

describe('failed payments', () => {
  it.each([
    ['4000000000000002', {}, 402, 'payment_declined'],
    ['4242424242424242', { cvv: '000' }, 402, 'invalid_cvv'],
    ['4242424242424242', { billing_address: { postal_code: '00000' } }, 402, 'invalid_avs'],
    ['4000000000000119', {}, 502, 'bank_network_error'],
    ['4000000000000127', {}, 504, 'bank_network_timeout'],
  ])('card %s %j gives %i %s, carries the failed payment and leaves no order', async (number, extra, status, code) => {
    const token = await shopper();
    const cartId = await cartFor(token);
    const before = await orderCount();
    const failed = await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card(number, extra) });
    expect(failed.status).toBe(status);
    expect(failed.body.error.code).toBe(code);
    expect(failed.body.error.meta.payment).toMatchObject({ object: 'payment', status: 'failed', success: false, error_code: code });
    expect(await orderCount()).toBe(before);
    const cart = await api(`${base}carts/${cartId}`, { token });
    expect(cart.body).toMatchObject({ open: true, payment_status: 'unpaid', order: null });
    // The cart stays open: a good card then pays it.
    expect((await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424242') })).status).toBe(201);
  });

  it('refuses bad card data with 400 and stores nothing', async () => {
    const token = await shopper();
    const cartId = await cartFor(token);
    const bad = await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424241') });
    expect(bad.status).toBe(400);
    expect(bad.body.error.meta.property).toBe('payment_method.data.number');
    const payments = await api(`${base}carts/${cartId}/payments`, { token: secret });
    expect(payments.body.total_items).toBe(0);
  });
});

describe('exactly one order', () => {
  it('makes 50 orders for 50 parallel checkouts of distinct carts', async () => {
    const before = await orderCount();
    const tokens = await Promise.all(Array.from({ length: 10 }, () => shopper()));
    const carts = await Promise.all(Array.from({ length: 50 }, (_, i) => cartFor(tokens[i % 10]!).then((id) => [tokens[i % 10]!, id] as const)));
    const results = await Promise.all(carts.map(([token, id]) => api(`${base}carts/${id}/payments`, { method: 'POST', token, body: card('4242424242424242') })));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(await orderCount()).toBe(before + 50);
  }, 120_000);

  it('makes one order when the same cart is paid 10 times at once', async () => {
    const token = await shopper();
    const cartId = await cartFor(token);
    const before = await orderCount();
    const results = await Promise.all(Array.from({ length: 10 }, () => api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424242') })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const response of results.filter((r) => r.status !== 201)) {
      expect([409, 422]).toContain(response.status);
      expect(['in_use', 'invalid_state']).toContain(response.body.error.code);
    }
    expect(await orderCount()).toBe(before + 1);
  });

  it('replays a retried payment with its Idempotency-Key instead of charging again', async () => {
    const token = await shopper();
    const cartId = await cartFor(token);
    const before = await orderCount();
    const headers = { 'Idempotency-Key': `pay-${cartId}` };
    const first = await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424242'), headers });
    const again = await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424242'), headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.payment_id).toBe(first.body.payment_id);
    expect(await orderCount()).toBe(before + 1);
  });
});

describe('payments without a sale, and what follows a checkout', () => {
  it('charges a direct payment without an order, binds it to a limited caller, and refuses a bad total', async () => {
    const before = await orderCount();
    const token = await shopper();
    const paid = await api(`${base}payments`, { method: 'POST', token, body: { currency: 'usd', subtotal: 10, tax: 1, reference: 'INV-1', ...card('4242424242424242') } });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({ status: 'completed', total: 11, subtotal: 10, tax: 1, currency: 'USD', order: null, cart: null, reference: 'INV-1' });
    expect(await orderCount()).toBe(before);
    expect((await api(paid.body.url, { token })).status).toBe(200);
    expect((await api(paid.body.url, { token: await shopper() })).status).toBe(404);
    const me = await api(`${base}auths/me`, { token });
    expect(me.body.bindings_count).toBe(1);

    const mismatch = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', subtotal: 10, tax: 1, total: 12, ...card('4242424242424242') } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.meta.property).toBe('total');
    const stringAmount = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: '12.00', ...card('4242424242424242') } });
    expect(stringAmount.status).toBe(400);
    const declined = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 5, ...card('4000000000000002') } });
    expect(declined.status).toBe(402);
    expect(declined.body.error.meta.payment.status).toBe('failed');
  });

  it('changes only reference, description and meta of a payment, and commit is idempotent', async () => {
    const paid = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 3, ...card('4242424242424242') } });
    const updated = await api(paid.body.url, { method: 'POST', token: secret, body: { ...paid.body, reference: 'R-9', total: 1000, status: 'refunded', meta: { a: 1 } } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ reference: 'R-9', total: 3, status: 'completed', meta: { a: 1 } });
    const committed = await api(`${paid.body.url}/commit`, { method: 'POST', token: secret });
    expect(committed.status).toBe(200);
    expect(committed.body.status).toBe('completed');
    const failed = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 4, ...card('4000000000000002') } });
    expect((await api(`${base}payments/${failed.body.error.meta.payment.payment_id}/commit`, { method: 'POST', token: secret })).status).toBe(422);
  });

  it('lists a customer orders and payments, an order its payment, and lets the merchant change order meta', async () => {
    const token = await shopper();
    const cartId = await cartFor(token);
    const paid = await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424242') });
    const payment = await api(`${paid.body.url}?expand=order`, { token: secret });
    const order = payment.body.order;
    const customerUrl = order.customer as string;
    const orders = await api(`${customerUrl}/orders`, { token: secret });
    expect(orders.body).toMatchObject({ object: 'list', total_items: 1 });
    expect(orders.body.data[0].order_id).toBe(order.order_id);
    const payments = await api(`${customerUrl}/payments`, { token: secret });
    expect(payments.body.data.map((p: { payment_id: string }) => p.payment_id)).toEqual([paid.body.payment_id]);
    expect((await api(`${order.url}/payments`, { token })).body.total_items).toBe(1);
    // The shopper reaches its own customer, not others.
    expect((await api(customerUrl, { token })).status).toBe(200);
    expect((await api(customerUrl, { token: await shopper() })).status).toBe(404);

    const item = await api(`${order.url}/items/ebook`, { method: 'POST', token: secret, body: { meta: { serial: 7 }, quantity: 99 } });
    expect(item.status).toBe(200);
    expect(item.body).toMatchObject({ meta: { serial: 7 }, quantity: 1 });
    const changed = await api(order.url, { method: 'POST', token: secret, body: { ...order, meta: { note: 'vip' }, total: 0 } });
    expect(changed.body).toMatchObject({ meta: { note: 'vip' }, total: order.total });
    // Order updates validate only what they change (commerce.md §5.6), and a refused one changes nothing.
    const referred = await api(order.url, { method: 'POST', token: secret, body: { referrer: 'newsletter', affiliate_id: '' } });
    expect(referred.body).toMatchObject({ referrer: 'newsletter', affiliate_id: null });
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      [order.url, { meta: { note: 'lost' }, referrer: 42 }, 'referrer'],
      [order.url, { affiliate_id: 'a'.repeat(201) }, 'affiliate_id'],
      [order.url, { meta: true }, 'meta'],
      [`${order.url}/items/ebook`, { meta: JSON.parse(`${'{"n":'.repeat(40)}1${'}'.repeat(40)}`) }, 'meta'],
    ];
    for (const [url, body, property] of refusals) {
      const refused = await api(url, { method: 'POST', token: secret, body });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta: { property } });
    }
    expect((await api(order.url, { token: secret })).body).toMatchObject({ meta: { note: 'vip' }, referrer: 'newsletter', items: [{ meta: { serial: 7 } }] });
    expect((await api(`${base}orders`, { method: 'POST', token: secret, body: {} })).status).toBe(405);
  });
});
