/**
 * The customer portal over HTTP against a real local runtime (commerce.md §0.1, §6.1; auth.md
 * 3.3; issue 22 item 1): a customer signs in and, with the customer-scope token it gets, makes the
 * portal's exact calls: `/auths/me?show=customer`, `/customers/me`, `/customers/me/orders`, the
 * order with its items' products and payments expanded and formatted, `/orders/{id}/payments`,
 * `/payments/{id}`, and `/customers/me/payment_methods` read and create. Another customer's
 * token gets 404 on each of those ids, never 403 and never the data; the isolation table below
 * probes every `/customers/me/...` path with every kind of caller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let secret: string;
let liveSecret: string;

type Response = Awaited<ReturnType<typeof api>>;

const PASSWORD = 'open sesame';
const buyer = { email: 'buyer@example.test', billing_address: { country: 'US', postal_code: '94107' } };
const card = (cardholder: string) => ({ type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: cardholder } });

function expectNotFound(response: Response, label: string): void {
  expect(response.status, `${label}: ${response.text}`).toBe(404);
  expect(response.body.error).toMatchObject({ code: 'resource_not_found', status: 404 });
}

/** A test-mode customer with a login, created with the secret token. */
async function customer(id: string): Promise<Record<string, any>> {
  const created = await api(`${base}customers`, { method: 'POST', token: secret, body: { customer_id: id, username: `${id}-user`, password: PASSWORD, name: `Customer ${id}`, ...buyer } });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** An order of `customerId`: a cart linked to it, paid by card with the secret token. */
async function orderOf(customerId: string): Promise<{ orderId: string; paymentId: string }> {
  const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: 'ebook', quantity: 2 }], customer_id: customerId, customer: { name: customerId, ...buyer } } });
  expect(cart.status, cart.text).toBe(201);
  const paid = await api(`${cart.body.url}/payments`, { method: 'POST', token: secret, body: { payment_method: card(customerId) } });
  expect(paid.status, paid.text).toBe(201);
  return { orderId: paid.body.order.split('/').pop(), paymentId: paid.body.payment_id };
}

/** The portal's sign-in: `POST /customers/login?expand=auth`, anonymous; answers the customer-scope token. */
async function signIn(username: string): Promise<string> {
  const signedIn = await api(`${base}customers/login?account_id=${account}&test=true&expand=auth`, { method: 'POST', body: { username, password: PASSWORD } });
  expect(signedIn.status, signedIn.text).toBe(200);
  return signedIn.body.auth.token;
}

let ada: Record<string, any>;
let adaToken: string;
let bobToken: string;
let adaOrder: { orderId: string; paymentId: string };
let adaSecondOrder: { orderId: string; paymentId: string };
let bobOrder: { orderId: string; paymentId: string };
let adaMethodId: string;
let bobMethodId: string;

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  liveSecret = runtime.bootstrap.tokens.live_secret;
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
  const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19.5 }] } });
  expect(product.status, product.text).toBe(201);
  ada = await customer('ADA');
  await customer('BOB');
  adaOrder = await orderOf('ADA');
  adaSecondOrder = await orderOf('ADA');
  bobOrder = await orderOf('BOB');
  const bobMethod = await api(`${base}customers/BOB/payment_methods`, { method: 'POST', token: secret, body: card('Bob') });
  expect(bobMethod.status, bobMethod.text).toBe(201);
  bobMethodId = bobMethod.body.payment_method_id;
  adaToken = await signIn('ada-user');
  bobToken = await signIn('bob-user');
}, 60_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

describe('the customer portal, with the customer-scope token of its sign-in', () => {
  it('reads who is signed in and the customer', async () => {
    const me = await api(`${base}auths/me?show=customer`, { token: adaToken });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toEqual({ url: expect.stringMatching(/\/auths\/\w+$/), customer: ada.url });
    const customer = await api(`${base}customers/me`, { token: adaToken });
    expect(customer.status, customer.text).toBe(200);
    expect(customer.body).toMatchObject({ customer_id: 'ADA', url: ada.url, orders: `${ada.url}/orders`, payment_methods: `${ada.url}/payment_methods` });
    const updated = await api(`${base}customers/me`, { method: 'POST', token: adaToken, body: { phone: '555-0100' } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ customer_id: 'ADA', phone: '555-0100' });
  });

  it('lists its own orders and payments under /customers/me, as under its id', async () => {
    const orders = await api(`${base}customers/me/orders`, { token: adaToken });
    expect(orders.status, orders.text).toBe(200);
    expect(orders.body.total_items).toBe(2);
    expect(orders.body.data.map((order: any) => order.order_id).sort()).toEqual([adaOrder.orderId, adaSecondOrder.orderId].sort());
    expect(orders.body.data.every((order: any) => order.customer === ada.url)).toBe(true);
    const byId = await api(`${ada.url}/orders`, { token: adaToken });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.body.data).toEqual(orders.body.data);

    const payments = await api(`${base}customers/me/payments?desc=true`, { token: adaToken });
    expect(payments.status, payments.text).toBe(200);
    expect(payments.body.data.map((payment: any) => payment.payment_id).sort()).toEqual([adaOrder.paymentId, adaSecondOrder.paymentId].sort());
  });

  it('reads its order with items.product and payments expanded, formatted, and the order payments', async () => {
    const order = await api(`${base}orders/${adaOrder.orderId}?expand=items.product,payments&formatted=true`, { token: adaToken });
    expect(order.status, order.text).toBe(200);
    expect(order.body).toMatchObject({ order_id: adaOrder.orderId, customer: ada.url, total: 39, formatted: { total: expect.stringContaining('39') } });
    expect(order.body.items[0].product).toMatchObject({ object: 'product', product_id: 'ebook' });
    // `payments` is a sub-collection: expanded, it is the first page of GET /orders/{id}/payments.
    expect(order.body.payments).toMatchObject({ object: 'list', total_items: 1, data: [{ object: 'payment', payment_id: adaOrder.paymentId, customer: ada.url }] });

    const payments = await api(`${base}orders/${adaOrder.orderId}/payments`, { token: adaToken });
    expect(payments.status, payments.text).toBe(200);
    expect(payments.body.data).toHaveLength(1);
    expect(payments.body.data[0]).toMatchObject({ payment_id: adaOrder.paymentId, customer: ada.url });

    const items = await api(`${base}orders/${adaOrder.orderId}/items`, { token: adaToken });
    expect(items.status, items.text).toBe(200);
  });

  it('expands its own sub-collections on /customers/me (orders, payments, payment_methods)', async () => {
    const me = await api(`${base}customers/me?expand=orders,payments,payment_methods`, { token: adaToken });
    expect(me.status, me.text).toBe(200);
    expect(me.body.orders.object).toBe('list');
    expect(me.body.orders.data.map((order: any) => order.order_id).sort()).toEqual([adaOrder.orderId, adaSecondOrder.orderId].sort());
    expect(me.body.payments.data.map((payment: any) => payment.payment_id).sort()).toEqual([adaOrder.paymentId, adaSecondOrder.paymentId].sort());
    expect(me.body.payment_methods.object).toBe('list');
    // Nothing of another customer's comes along.
    expect(JSON.stringify(me.body)).not.toContain(bobOrder.orderId);
  });

  it('reads its payment, with its order and customer expanded', async () => {
    const payment = await api(`${base}payments/${adaOrder.paymentId}`, { token: adaToken });
    expect(payment.status, payment.text).toBe(200);
    expect(payment.body).toMatchObject({ payment_id: adaOrder.paymentId, status: 'completed', customer: ada.url });
    const expanded = await api(`${base}payments/${adaOrder.paymentId}?expand=order,customer&formatted=true`, { token: adaToken });
    expect(expanded.status, expanded.text).toBe(200);
    expect(expanded.body.order).toMatchObject({ object: 'order', order_id: adaOrder.orderId });
    expect(expanded.body.customer).toMatchObject({ object: 'customer', customer_id: 'ADA' });
    // It may not change a payment it only reads (a direct payment's token may; §0.1).
    expectNotFound(await api(`${base}payments/${adaOrder.paymentId}`, { method: 'POST', token: adaToken, body: { description: 'mine?' } }), 'payment update');
  });

  it('reads and manages its saved payment methods under /customers/me', async () => {
    const empty = await api(`${base}customers/me/payment_methods`, { token: adaToken });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toMatchObject({ total_items: 0, data: [] });
    const created = await api(`${base}customers/me/payment_methods`, { method: 'POST', token: adaToken, body: card('Ada') });
    expect(created.status, created.text).toBe(201);
    adaMethodId = created.body.payment_method_id;
    expect(created.body).toMatchObject({ url: `${ada.url}/payment_methods/${adaMethodId}`, customer: ada.url, is_default: true, data: { last4: '4242' } });
    expect(created.headers.get('location')).toBe(created.body.url);
    const listed = await api(`${base}customers/me/payment_methods`, { token: adaToken });
    expect(listed.body.data.map((method: any) => method.payment_method_id)).toEqual([adaMethodId]);
    const one = await api(`${base}customers/me/payment_methods/${adaMethodId}`, { token: adaToken });
    expect(one.status, one.text).toBe(200);
    const changed = await api(`${base}customers/me/payment_methods/${adaMethodId}`, { method: 'POST', token: adaToken, body: { data: { label: 'Work card' } } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.label).toBe('Work card');
    // The secret token sees the same card under the customer's id.
    expect((await api(`${ada.url}/payment_methods`, { token: secret })).body.data[0]).toMatchObject({ payment_method_id: adaMethodId, data: { label: 'Work card' } });
    // Another customer's method is not addressable through its own customer.
    expectNotFound(await api(`${base}customers/me/payment_methods/${bobMethodId}`, { token: adaToken }), 'another customer method under me');
  });
});

describe("another customer's token on the same ids", () => {
  it('gets 404 for each, never 403 and never the data', async () => {
    const paths = [
      `orders/${adaOrder.orderId}`,
      `orders/${adaOrder.orderId}?expand=items.product,payments&formatted=true`,
      `orders/${adaOrder.orderId}/payments`,
      `orders/${adaOrder.orderId}/items`,
      `payments/${adaOrder.paymentId}`,
      `payments/${adaOrder.paymentId}?expand=order,customer`,
      'customers/ADA',
      'customers/ADA/orders',
      'customers/ADA/payments',
      'customers/ADA/payment_methods',
      `customers/ADA/payment_methods/${bobMethodId}`,
    ];
    if (adaMethodId) paths.push(`customers/ADA/payment_methods/${adaMethodId}`);
    for (const path of paths) {
      const answer = await api(`${base}${path}`, { token: bobToken });
      expectNotFound(answer, path);
      expect(answer.text).not.toContain('"object"');
    }
    expectNotFound(await api(`${base}customers/ADA/payment_methods`, { method: 'POST', token: bobToken, body: card('Mallory') }), 'add a card to another customer');
    // Its own portal shows only its own records.
    const own = await api(`${base}customers/me/orders`, { token: bobToken });
    expect(own.body.data.map((order: any) => order.order_id)).toEqual([bobOrder.orderId]);
    const ownPayments = await api(`${base}customers/me/payments`, { token: bobToken });
    expect(ownPayments.body.data.map((payment: any) => payment.payment_id)).toEqual([bobOrder.paymentId]);
    expect((await api(`${base}customers/me/payment_methods`, { token: bobToken })).body.data.map((method: any) => method.payment_method_id)).toEqual([bobMethodId]);
    // And Ada's token gets 404 on Bob's.
    for (const path of [`orders/${bobOrder.orderId}`, `orders/${bobOrder.orderId}/payments`, `payments/${bobOrder.paymentId}`, 'customers/BOB/orders', `customers/BOB/payment_methods/${bobMethodId}`]) {
      expectNotFound(await api(`${base}${path}`, { token: adaToken }), path);
    }
  });

  it('leaves other customers’ records out of expansions of its own', async () => {
    // Ada's payment names Ada's order and customer only; expanding them never reaches Bob's.
    const mine = await api(`${base}customers/me/orders?expand=customer,payment`, { token: bobToken });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.text).not.toContain('"customer_id":"ADA"');
    expect(mine.body.data[0].customer).toMatchObject({ customer_id: 'BOB' });
    expect(mine.body.data[0].payment).toMatchObject({ payment_id: bobOrder.paymentId });
  });
});

/**
 * Isolation probes of the `/customers/me/...` paths: every caller that is not a customer scope
 * gets what `/customers/me` gives it (401 without a token, 404 otherwise), and no write happens.
 */
describe('isolation of /customers/me/... (probes)', () => {
  const meRoutes: Array<{ label: string; method: 'GET' | 'POST' | 'DELETE'; path: () => string; body?: () => unknown }> = [
    { label: 'GET /customers/me', method: 'GET', path: () => 'customers/me' },
    { label: 'POST /customers/me', method: 'POST', path: () => 'customers/me', body: () => ({ name: 'Probe' }) },
    { label: 'GET /customers/me/orders', method: 'GET', path: () => 'customers/me/orders' },
    { label: 'GET /customers/me/payments', method: 'GET', path: () => 'customers/me/payments' },
    { label: 'GET /customers/me/subscriptions', method: 'GET', path: () => 'customers/me/subscriptions' },
    { label: 'GET /customers/me/payment_methods', method: 'GET', path: () => 'customers/me/payment_methods' },
    { label: 'POST /customers/me/payment_methods', method: 'POST', path: () => 'customers/me/payment_methods', body: () => card('Probe') },
    { label: 'GET /customers/me/payment_methods/{id}', method: 'GET', path: () => `customers/me/payment_methods/${adaMethodId}` },
    { label: 'POST /customers/me/payment_methods/{id}', method: 'POST', path: () => `customers/me/payment_methods/${adaMethodId}`, body: () => ({ data: { label: 'Probe' } }) },
    { label: 'DELETE /customers/me/payment_methods/{id}', method: 'DELETE', path: () => `customers/me/payment_methods/${adaMethodId}` },
  ];
  const callers: Array<{ label: string; token: () => Promise<string | undefined>; status: number }> = [
    { label: 'no token', token: async () => undefined, status: 401 },
    { label: 'the test secret token', token: async () => secret, status: 404 },
    { label: 'the live secret token', token: async () => liveSecret, status: 404 },
    {
      label: 'a limited token without customer scope',
      token: async () => (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token,
      status: 404,
    },
    {
      label: 'a live limited token',
      token: async () => (await api(`${base}auths/limited?account_id=${account}`, { method: 'POST' })).body.token,
      status: 404,
    },
  ];
  const cases = meRoutes.flatMap((route) => callers.map((caller) => [`${route.label} by ${caller.label}`, route, caller] as const));

  it.each(cases)('%s', async (_label, route, caller) => {
    const before = await api(`${ada.url}/payment_methods`, { token: secret });
    const beforeCustomer = await api(ada.url, { token: secret });
    const token = await caller.token();
    const answer = await api(`${base}${route.path()}`, { method: route.method, ...(token ? { token } : {}), ...(route.body ? { body: route.body() } : {}) });
    expect(answer.status, answer.text).toBe(caller.status);
    expect(answer.body.error.status).toBe(caller.status);
    // Nothing of Ada's in the answer (its random reference aside, which may spell anything).
    const { reference: _reference, ...error } = answer.body.error;
    expect(JSON.stringify({ ...answer.body, error })).not.toContain('ADA');
    expect((await api(`${ada.url}/payment_methods`, { token: secret })).text).toBe(before.text);
    expect((await api(ada.url, { token: secret })).text).toBe(beforeCustomer.text);
  });

  it('answers the customer scope itself under every one of them', async () => {
    for (const route of meRoutes.filter((candidate) => candidate.method === 'GET')) {
      const answer = await api(`${base}${route.path()}`, { token: adaToken });
      expect(answer.status, `${route.path()}: ${answer.text}`).toBe(200);
    }
    // Deleting its own card is the last probe: 204, then 404.
    expect((await api(`${base}customers/me/payment_methods/${adaMethodId}`, { method: 'DELETE', token: adaToken })).status).toBe(204);
    expectNotFound(await api(`${base}customers/me/payment_methods/${adaMethodId}`, { token: adaToken }), 'deleted card');
  });
});
