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

    // The confirmation is sent by the notifications queue's worker, just after the payment's answer.
    await expect.poll(async () => (await api(`${runtime.url}/_local/outbox`)).body.data.filter((m: { order_id?: string }) => m.order_id === order.order_id).length, { timeout: 10_000 }).toBe(1);
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

describe('strict types and limits before anything is charged (conventions.md §4, §20)', () => {
  const charges = async (): Promise<number> => (await api(`${runtime.url}/_local/gateway/charges`)).body.data.length;
  const refusal = (response: { status: number; text: string; body: any }, meta: Record<string, unknown>) => {
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_input', meta });
  };

  it('refuses allow_duplicate "yes" on a cart payment and a direct payment, and charges nothing', async () => {
    const token = await shopper();
    const cartId = await cartFor(token);
    const before = await charges();
    const orders = await orderCount();
    for (const allow_duplicate of ['yes', 'true', 1, null]) {
      refusal(await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: { ...card('4242424242424242'), allow_duplicate } }), {
        property: 'allow_duplicate',
        reason: 'invalid',
      });
      refusal(await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 5, ...card('4242424242424242'), allow_duplicate } }), {
        property: 'allow_duplicate',
        reason: 'invalid',
      });
    }
    refusal(await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: { payment_method: { ...card('4242424242424242').payment_method, save: 'yes' } } }), {
      property: 'payment_method.save',
      reason: 'invalid',
    });
    expect(await charges()).toBe(before);
    expect(await orderCount()).toBe(orders);
    expect((await api(`${base}carts/${cartId}/payments`, { token: secret })).body.total_items).toBe(0);
    expect((await api(`${base}carts/${cartId}`, { token })).body).toMatchObject({ open: true, payment_status: 'unpaid' });
    // A strict true passes, and pays.
    const paid = await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: { ...card('4242424242424242'), allow_duplicate: true } });
    expect(paid.status, paid.text).toBe(201);
    expect(await charges()).toBe(before + 1);
  });

  it('refuses direct payments over 999,999,999,999, sent or computed, and charges nothing', async () => {
    const before = await charges();
    const direct = (amounts: Record<string, unknown>) => api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', ...amounts, ...card('4242424242424242') } });
    refusal(await direct({ total: 1e300 }), { property: 'total', reason: 'out_of_range' });
    refusal(await direct({ total: '1000000000000' }), { property: 'total', reason: 'out_of_range' });
    refusal(await direct({ subtotal: 1e300, total: 1e300 }), { property: 'subtotal', reason: 'out_of_range' });
    refusal(await direct({ subtotal: 999_999_999_999, shipping: 999_999_999_999 }), { property: 'total', reason: 'out_of_range' });
    refusal(await direct({ total: 5, shipping: 10 }), { property: 'total', reason: 'conflict' });
    expect(await charges()).toBe(before);
    const largest = await direct({ subtotal: '999999999990', shipping: '9' });
    expect(largest.status, largest.text).toBe(201);
    expect(largest.body).toMatchObject({ total: 999_999_999_999, settlement_total: 999_999_999_999 });
    expect(await charges()).toBe(before + 1);
  });

  it('refuses a malformed card or payment method with the property, and charges nothing', async () => {
    const token = await shopper();
    const cartId = await cartFor(token);
    const before = await charges();
    refusal(await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card(4242424242424242 as never) }), { property: 'payment_method.data.number', reason: 'invalid' });
    refusal(await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424242', { exp_month: '1e1' }) }), {
      property: 'payment_method.data.exp_month',
      reason: 'invalid',
    });
    refusal(await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424242', { cvv: 123 }) }), { property: 'payment_method.data.cvv', reason: 'invalid' });
    refusal(await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: { payment_method: { type: 'paypal' } } }), { property: 'payment_method.type', reason: 'invalid' });
    refusal(await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: { payment_method: { type: 'credit_card' } } }), { property: 'payment_method.data', reason: 'required' });
    refusal(await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: {} }), { property: 'payment_method', reason: 'required' });
    refusal(await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424242', { exp_month: 1, exp_year: 2020 }) }), {
      property: 'payment_method.data.exp_year',
      reason: 'expired',
    });
    expect(await charges()).toBe(before);
    // Expiry and amounts sent as strings by a checkout form are fine.
    const paid = await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card('4242424242424242', { exp_month: '12', exp_year: '31' }) });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.payment_method.data).toMatchObject({ exp_month: 12, exp_year: 2031 });
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
    // Amounts take plain decimal strings (conventions.md §4); anything else is refused.
    const stringAmount = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: '12.00', ...card('4242424242424242') } });
    expect(stringAmount.status, stringAmount.text).toBe(201);
    expect(stringAmount.body.total).toBe(12);
    for (const total of ['1e3', ' 12', 'twelve', [12]]) {
      const refused = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total, ...card('4242424242424242') } });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error.meta).toMatchObject({ property: 'total', reason: 'invalid' });
    }
    const declined = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 5, ...card('4000000000000002') } });
    expect(declined.status).toBe(402);
    expect(declined.body.error.meta.payment.status).toBe('failed');
  });

  it('links a direct payment to its payer (commerce.md §4.3): a new customer from customer fields, a saved one by customer_id, none without', async () => {
    const payer = { name: 'Grace Hopper', email: 'grace@example.test', billing_address: { country: 'US', postal_code: '10001' } };
    const byFields = await api(`${base}payments?expand=customer`, { method: 'POST', token: secret, body: { currency: 'USD', total: 21, customer: payer, ...card('4242424242424242') } });
    expect(byFields.status, byFields.text).toBe(201);
    expect(byFields.body.customer).toMatchObject({ object: 'customer', name: 'Grace Hopper', email: 'grace@example.test', has_payments: true, billing_address: { country: 'US', postal_code: '10001' } });
    const made = byFields.body.customer.customer_id;
    const read = await api(`${base}payments/${byFields.body.payment_id}`, { token: secret });
    expect(read.body.customer).toBe(`${base}customers/${made}`);
    const ofCustomer = await api(`${base}customers/${made}/payments`, { token: secret });
    expect(ofCustomer.body.data.map((payment: { payment_id: string }) => payment.payment_id)).toEqual([byFields.body.payment_id]);

    const saved = await api(`${base}customers`, { method: 'POST', token: secret, body: { name: 'Saved Payer', email: 'saved@example.test' } });
    expect(saved.status, saved.text).toBe(201);
    const savedId = saved.body.customer_id;
    const byId = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 22, customer_id: savedId, customer: payer, ...card('4242424242424242') } });
    expect(byId.status, byId.text).toBe(201);
    expect(byId.body.customer).toBe(`${base}customers/${savedId}`);
    expect((await api(`${base}customers/${savedId}`, { token: secret })).body.has_payments).toBe(true);
    const byNestedId = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 23, customer: { customer_id: savedId }, ...card('4242424242424242') } });
    expect(byNestedId.body.customer).toBe(`${base}customers/${savedId}`);
    const unknown = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 24, customer_id: 'nobody', ...card('4242424242424242') } });
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.body.error.meta).toMatchObject({ property: 'customer_id', reason: 'not_found' });

    const customerCount = async () => (await api(`${base}customers?limit=100`, { token: secret })).body.data.length as number;
    const customersBefore = await customerCount();
    for (const body of [{}, { customer: null }, { customer: { name: null, billing_address: null } }]) {
      const nobody = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 25, ...body, ...card('4242424242424242') } });
      expect(nobody.status, nobody.text).toBe(201);
      expect(nobody.body.customer).toBeNull();
    }
    // A declined payer never becomes a customer.
    const declined = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 26, customer: payer, ...card('4000000000000002') } });
    expect(declined.status).toBe(402);
    expect(declined.body.error.meta.payment.customer).toBeNull();
    expect(await customerCount()).toBe(customersBefore);
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

describe('creating an account on the receipt page (commerce.md §0.1)', () => {
  type Response = Awaited<ReturnType<typeof api>>;
  const expectError = (response: Response, status: number, code: string, meta?: Record<string, unknown>) => {
    expect(response.status, response.text).toBe(status);
    expect(response.body.error).toMatchObject({ status, code });
    if (meta) expect(response.body.error.meta).toEqual(meta);
  };
  const signIn = (username: string, password: string) =>
    api(`${base}customers/login?account_id=${account}&test=true`, { method: 'POST', body: { username, password } });

  /** A shopper who paid a cart, and the URL of the customer the sale made (no login yet). */
  async function paidShopper(): Promise<{ token: string; customerUrl: string; customer: Record<string, any> }> {
    const token = await shopper();
    const paid = await api(`${base}carts/${await cartFor(token)}/payments?expand=order`, { method: 'POST', token, body: card('4242424242424242') });
    expect(paid.status, paid.text).toBe(201);
    const customerUrl = paid.body.order.customer as string;
    const customer = await api(customerUrl, { token: secret });
    expect(customer.body).toMatchObject({ username: null, name: 'Ada Lee', tax_exempt: false });
    return { token, customerUrl, customer: customer.body };
  }

  it('lets the paying token set username and password once; other properties are ignored; the login works', async () => {
    const { token, customerUrl, customer } = await paidShopper();
    const created = await api(customerUrl, {
      method: 'POST',
      token,
      body: { username: 'ada-receipt', password: 'correct horse', name: 'Mallory', email: 'mallory@example.test', tax_exempt: true, meta: { x: 1 } },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ ...customer, username: 'ada-receipt', date_modified: created.body.date_modified });
    expect(created.text).not.toContain('correct horse');
    const signedIn = await signIn('ada-receipt', 'correct horse');
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body.customer_id).toBe(customer.customer_id);

    // The one update is spent: a second one is refused, and changes nothing.
    expectError(await api(customerUrl, { method: 'POST', token, body: { username: 'ada-other', password: 'another secret' } }), 403, 'insufficient_permissions');
    expectError(await api(customerUrl, { method: 'POST', token, body: { name: 'Mallory' } }), 403, 'insufficient_permissions');
    expect((await api(customerUrl, { token: secret })).body).toMatchObject({ username: 'ada-receipt', name: 'Ada Lee' });
    expect((await signIn('ada-receipt', 'correct horse')).status).toBe(200);
    // Secret tokens keep their normal update.
    const renamed = await api(customerUrl, { method: 'POST', token: secret, body: { username: 'ada-renamed', name: 'Ada L.' } });
    expect(renamed.body).toMatchObject({ username: 'ada-renamed', name: 'Ada L.' });
  });

  it('refuses a customer that already has a login (403), one out of reach (404), and invalid values (400, 409), changing nothing', async () => {
    const { token, customerUrl, customer } = await paidShopper();
    const other = await paidShopper();
    const taken = await api(`${base}customers`, { method: 'POST', token: secret, body: { username: 'taken-name', password: 'secret pass' } });
    expect(taken.status, taken.text).toBe(201);
    const valid = { username: 'ada-valid', password: 'long enough' };

    expectError(await api(other.customerUrl, { method: 'POST', token, body: valid }), 404, 'resource_not_found');
    expectError(await api(taken.body.url, { method: 'POST', token, body: valid }), 404, 'resource_not_found');
    expectError(await api(`${base}customers/NOSUCHCUSTOM`, { method: 'POST', token, body: valid }), 404, 'resource_not_found');
    expectError(await api(customerUrl, { method: 'POST', token: await shopper(), body: valid }), 404, 'resource_not_found');

    expectError(await api(customerUrl, { method: 'POST', token, body: { password: 'long enough' } }), 400, 'invalid_input', { property: 'username', reason: 'required' });
    expectError(await api(customerUrl, { method: 'POST', token, body: { username: 'ada-valid' } }), 400, 'invalid_input', { property: 'password', reason: 'required' });
    expectError(await api(customerUrl, { method: 'POST', token, body: { username: 'ada-valid', password: null } }), 400, 'invalid_input', { property: 'password', reason: 'required' });
    expectError(await api(customerUrl, { method: 'POST', token, body: { username: '', password: 'long enough' } }), 400, 'invalid_input', { property: 'username', reason: 'required' });
    expectError(await api(customerUrl, { method: 'POST', token, body: { username: 'ada-valid', password: 'short' } }), 400, 'invalid_input', { property: 'password', reason: 'too_short' });
    expectError(await api(customerUrl, { method: 'POST', token, body: { username: 'has space', password: 'long enough' } }), 400, 'invalid_input', { property: 'username', reason: 'invalid' });
    expectError(await api(customerUrl, { method: 'POST', token, body: { username: 42, password: 'long enough' } }), 400, 'invalid_input', { property: 'username', reason: 'invalid' });
    expectError(await api(customerUrl, { method: 'POST', token, body: { username: 'TAKEN-name', password: 'long enough' } }), 409, 'in_use', { property: 'username', reason: 'conflict' });
    expect((await api(customerUrl, { token: secret })).body).toEqual(customer);
    expect((await api(other.customerUrl, { token: secret })).body).toEqual(other.customer);

    // A login the merchant set first leaves the shopper no update to make.
    expect((await api(customerUrl, { method: 'POST', token: secret, body: { username: 'set-by-merchant' } })).status).toBe(200);
    expectError(await api(customerUrl, { method: 'POST', token, body: valid }), 403, 'insufficient_permissions');
    expect((await api(customerUrl, { token: secret })).body.username).toBe('set-by-merchant');
    expect((await signIn('ada-valid', 'long enough')).status).toBe(401);
  });

  it('makes exactly one of concurrent account creations', async () => {
    const { token, customerUrl } = await paidShopper();
    const attempts = await Promise.all(
      ['race-a', 'race-b', 'race-c', 'race-d'].map((username) => api(customerUrl, { method: 'POST', token, body: { username, password: 'long enough' } })),
    );
    expect(attempts.map((attempt) => attempt.status).sort()).toEqual([200, 403, 403, 403]);
    const winner = attempts.find((attempt) => attempt.status === 200)!.body.username as string;
    expect((await api(customerUrl, { token: secret })).body.username).toBe(winner);
  });
});

describe('allow_duplicate is a strict JSON boolean (conventions.md §4, commerce.md §4.5)', () => {
  const charges = async (): Promise<number> => (await api(`${runtime.url}/_local/gateway/charges`)).body.data.length;
  const window = (seconds: number) => api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: seconds } });

  it('refuses anything but true or false with 400 invalid_input, before any duplicate check or charge, on both payment endpoints', async () => {
    expect((await window(120)).status).toBe(200);
    try {
      // A first payment, so that the card, currency and total below repeat a recent one.
      const first = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 7.77, ...card('4242424242424242') } });
      expect(first.status, first.text).toBe(201);
      const token = await shopper();
      const cartId = await cartFor(token);
      const before = await charges();
      for (const value of ['yes', 'true', 1, 0, null, {}, []]) {
        const direct = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 7.77, allow_duplicate: value, ...card('4242424242424242') } });
        expect(direct.status, `${JSON.stringify(value)}: ${direct.text}`).toBe(400);
        expect(direct.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'allow_duplicate', reason: 'invalid' } });
        const onCart = await api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: { allow_duplicate: value, ...card('4242424242424242') } });
        expect(onCart.status, `${JSON.stringify(value)}: ${onCart.text}`).toBe(400);
        expect(onCart.body.error.meta).toEqual({ property: 'allow_duplicate', reason: 'invalid' });
      }
      expect(await charges()).toBe(before);
      expect((await api(`${base}carts/${cartId}`, { token })).body).toMatchObject({ open: true, payment_status: 'unpaid' });
      expect((await api(`${base}carts/${cartId}/payments`, { token: secret })).body.total_items).toBe(0);

      // The booleans keep their meaning: false checks (409 duplicate), true charges again.
      const checked = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 7.77, allow_duplicate: false, ...card('4242424242424242') } });
      expect(checked.status, checked.text).toBe(409);
      expect(checked.body.error).toMatchObject({ code: 'duplicate', meta: { payment_id: first.body.payment_id } });
      expect(await charges()).toBe(before);
      const again = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: 7.77, allow_duplicate: true, ...card('4242424242424242') } });
      expect(again.status, again.text).toBe(201);
      expect(await charges()).toBe(before + 1);
    } finally {
      expect((await window(0)).status).toBe(200);
    }
  });
});

describe('GET /payments/options', () => {
  it('gives a shopper the checkout form: field paths, card types, currencies and countries as a cart options has them', async () => {
    const token = await shopper();
    const options = await api(`${base}payments/options`, { token });
    expect(options.status, options.text).toBe(200);
    const cart = await api(`${base}carts/${await cartFor(token)}?expand=options`, { token });
    const { shipping_quotes: _quotes, customer_default_country: _country, ...cartForm } = cart.body.options;
    expect(options.body).toMatchObject({ object: 'payment_options', customer_default_currency: 'USD', ...cartForm });
    // Field paths, not the settings tokens they come from (commerce.md §3.4).
    expect(options.body.customer_required_fields).toEqual(expect.arrayContaining(['email', 'name', 'billing_address.country']));
    expect(options.body.customer_required_fields).not.toContain('country');
    expect(options.body.allowed_customer_countries).toContain('US');
  });
});
