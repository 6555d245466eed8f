/**
 * Shipments end to end over HTTP against a real local runtime (commerce.md §5.5, §8, §14): an
 * order of physical items paid through a cart by a shopper's limited token is shipped in two
 * shipments and `fulfilled` follows (items and order); deleting one turns it back; over-shipping
 * and non-physical items are refused and change nothing; concurrent shipments of the last units
 * never ship more than was ordered; `shipment:created` is delivered; another account, the other
 * mode and other shoppers' tokens reach nothing, while the order's own limited token and its
 * customer's scope read the shipments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, startRuntimeWithSecondAccount, type RuntimeProcess } from '../support/runtime-process';

const RATES = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };

let runtime: RuntimeProcess;
let receiver: Receiver;
let base: string;
let account: string;
let secret: string;
let live: string;
let other: { account_id: string; tokens: { live_secret: string; test_secret: string } };

const buyer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };
const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } };

/** A new limited token of the account (test mode), as a storefront mints one. */
async function shopperToken(): Promise<string> {
  const minted = await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.token;
}

/** An order paid through a cart by a new shopper: its id, the shopper's token and the order's customer. */
async function paidOrder(items: Array<{ product_id: string; quantity: number }>): Promise<{ orderId: string; shopper: string; customerId: string }> {
  const shopper = await shopperToken();
  const cart = await api(`${base}carts`, { method: 'POST', token: shopper, body: { items, customer: buyer } });
  expect(cart.status, cart.text).toBe(201);
  const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order`, { method: 'POST', token: shopper, body: card });
  expect(paid.status, paid.text).toBe(201);
  return { orderId: paid.body.order.order_id, shopper, customerId: String(paid.body.order.customer).split('/').pop()! };
}

const ship = (orderId: string, body: unknown = {}, token = secret) => api(`${base}orders/${orderId}/shipments`, { method: 'POST', token, body });
const order = async (orderId: string) => {
  const read = await api(`${base}orders/${orderId}`, { token: secret });
  expect(read.status, read.text).toBe(200);
  return read.body as { fulfilled: boolean; items: Array<{ item_id: string; fulfilled: boolean }> };
};
/** `fulfilled` of the order and of each item, by item id. */
const fulfilment = async (orderId: string) => {
  const read = await order(orderId);
  return { order: read.fulfilled, ...Object.fromEntries(read.items.map((item) => [item.item_id, item.fulfilled])) };
};
/** What shipping could have changed: the order and its shipments. */
const shippedState = async (orderId: string) =>
  [await api(`${base}orders/${orderId}`, { token: secret }), await api(`${base}orders/${orderId}/shipments`, { token: secret }), await api(`${base}shipments?order_id=${orderId}`, { token: secret })].map((read) => read.text);

beforeAll(async () => {
  receiver = await startReceiver();
  ({ runtime, other: other } = await startRuntimeWithSecondAccount({ env: RATES }));
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  live = runtime.bootstrap.tokens.live_secret;
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
  for (const [product_id, type, price] of [['mug', 'physical', 12], ['poster', 'physical', 5], ['ebook', 'digital', 7], ['setup', 'service', 30]] as const) {
    const created = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id, name: `The ${product_id}`, type, prices: [{ currency: 'USD', price }] } });
    expect(created.status, created.text).toBe(201);
  }
  const subscribed = await api(`${base}event_subscriptions`, { method: 'POST', token: secret, body: { event_type: 'shipment:created', method: 'http', destination: `${receiver.url}/shipments`, signature_key: 'shipments-signing-key-0123' } });
  expect(subscribed.status, subscribed.text).toBe(201);
}, 180_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
  await receiver.close();
});

describe('shipping an order', () => {
  it('ships it in two shipments, fulfilled follows; deleting one turns it back; the event is delivered', async () => {
    const { orderId } = await paidOrder([{ product_id: 'mug', quantity: 3 }, { product_id: 'poster', quantity: 2 }, { product_id: 'ebook', quantity: 1 }, { product_id: 'setup', quantity: 1 }]);
    // Digital goods without a license and services are fulfilled at creation; physical ones wait for shipments.
    expect(await fulfilment(orderId)).toEqual({ order: false, mug: false, poster: false, ebook: true, setup: true });

    const first = await ship(orderId, { items: [{ item_id: 'mug', quantity: '2' }], courier: 'Post', tracking_number: 'TRK-1', tracking_url: 'https://track.example.test/TRK-1', meta: { box: 1 } });
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('location')).toBe(first.body.url);
    expect(first.body).toMatchObject({
      object: 'shipment', test: true, account_id: account, order: `${base}orders/${orderId}`, courier: 'Post', tracking_number: 'TRK-1', tracking_url: 'https://track.example.test/TRK-1',
      items: [{ item_id: 'mug', product_id: 'mug', name: 'The mug', quantity: 2 }], meta: { box: 1 },
    });
    expect(first.body.url).toBe(`${base}shipments/${first.body.shipment_id}`);
    expect(Math.abs(Date.parse(first.body.date_shipped) - Date.now())).toBeLessThan(60_000);
    expect(await fulfilment(orderId)).toEqual({ order: false, mug: false, poster: false, ebook: true, setup: true });

    // The default: every unshipped physical unit (the last mug and both posters), nothing digital.
    const second = await ship(orderId, { date_shipped: '2026-03-04T05:06:07Z' });
    expect(second.status, second.text).toBe(201);
    expect(second.body.items).toEqual([{ item_id: 'mug', product_id: 'mug', name: 'The mug', quantity: 1 }, { item_id: 'poster', product_id: 'poster', name: 'The poster', quantity: 2 }]);
    expect(second.body).toMatchObject({ date_shipped: '2026-03-04T05:06:07Z', courier: null, tracking_number: null, tracking_url: null, meta: null });
    expect(await fulfilment(orderId)).toEqual({ order: true, mug: true, poster: true, ebook: true, setup: true });

    // Lists: under the order (offset), under each item, the top-level cursor list filtered by order, and the order's expansion.
    const listed = await api(`${base}orders/${orderId}/shipments`, { token: secret });
    expect(listed.body).toMatchObject({ object: 'list', total_items: 2, current_page: 1 });
    expect(listed.body.data.map((shipment: { shipment_id: string }) => shipment.shipment_id)).toEqual([first.body.shipment_id, second.body.shipment_id]);
    const posters = await api(`${base}orders/${orderId}/items/poster/shipments`, { token: secret });
    expect(posters.body.data.map((shipment: { shipment_id: string }) => shipment.shipment_id)).toEqual([second.body.shipment_id]);
    expect((await api(`${base}orders/${orderId}/items/mug/shipments?desc=true`, { token: secret })).body.data.map((shipment: { shipment_id: string }) => shipment.shipment_id)).toEqual([second.body.shipment_id, first.body.shipment_id]);
    expect((await api(`${base}orders/${orderId}/items/nope/shipments`, { token: secret })).status).toBe(404);
    const top = await api(`${base}shipments?order_id=${orderId}&limit=1`, { token: secret });
    expect(top.body).toMatchObject({ object: 'list', next_page_after_item: first.body.shipment_id });
    expect(top.body).not.toHaveProperty('total_items');
    const expanded = await api(`${base}orders/${orderId}?expand=shipments.order`, { token: secret });
    expect(expanded.body.shipments).toMatchObject({ object: 'list', total_items: 2 });
    expect(expanded.body.shipments.data[1]).toMatchObject({ shipment_id: second.body.shipment_id, order: { object: 'order', order_id: orderId } });
    const item = (await order(orderId)).items.find((line) => line.item_id === 'poster') as unknown as { shipments: string };
    expect(item.shipments).toBe(`${base}orders/${orderId}/items/poster/shipments`);

    // An update changes tracking fields, the date and meta; items and order sent back are discarded.
    const updated = await api(`${base}shipments/${first.body.shipment_id}?formatted=true`, { method: 'POST', token: secret, body: { ...first.body, tracking_number: 'TRK-2', courier: '', date_shipped: '2026-03-01', items: [{ item_id: 'mug', quantity: 3 }] } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ tracking_number: 'TRK-2', courier: null, date_shipped: '2026-03-01T23:59:59Z', items: [{ item_id: 'mug', quantity: 2 }], meta: { box: 1 } });
    expect(typeof updated.body.formatted.date_shipped).toBe('string');
    expect(await fulfilment(orderId)).toEqual({ order: true, mug: true, poster: true, ebook: true, setup: true });

    // Deleting the second shipment: its units count as unshipped again.
    const deleted = await api(`${base}shipments/${second.body.shipment_id}`, { method: 'DELETE', token: secret });
    expect(deleted.status, deleted.text).toBe(204);
    expect(await fulfilment(orderId)).toEqual({ order: false, mug: false, poster: false, ebook: true, setup: true });
    expect((await api(`${base}shipments/${second.body.shipment_id}`, { token: secret })).status).toBe(404);
    expect((await api(`${base}shipments/${second.body.shipment_id}`, { method: 'DELETE', token: secret })).status).toBe(404);
    expect((await api(`${base}orders/${orderId}/shipments`, { token: secret })).body.total_items).toBe(1);
    // ... so they can be shipped again.
    const again = await ship(orderId);
    expect(again.status, again.text).toBe(201);
    expect(again.body.items.map((line: { item_id: string; quantity: number }) => [line.item_id, line.quantity])).toEqual([['mug', 1], ['poster', 2]]);
    expect(await fulfilment(orderId)).toEqual({ order: true, mug: true, poster: true, ebook: true, setup: true });
    expect((await api(`${base}orders?fulfilled=true`, { token: secret })).body.data.map((listedOrder: { order_id: string }) => listedOrder.order_id)).toContain(orderId);

    // shipment:created for each of the three new shipments, none for the deletion.
    const delivered = await receiver.receivedAt('/shipments', 3, 20_000);
    const bodies = delivered.map((request) => JSON.parse(request.body.toString('utf8')));
    expect(bodies.map((body) => body.type)).toEqual(['shipment:created', 'shipment:created', 'shipment:created']);
    expect(new Set(bodies.map((body) => body.data.shipment_id))).toEqual(new Set([first.body.shipment_id, second.body.shipment_id, again.body.shipment_id]));
    expect(bodies.find((body) => body.data.shipment_id === first.body.shipment_id).data).toMatchObject({ object: 'shipment', order: `${base}orders/${orderId}`, items: [{ item_id: 'mug', quantity: 2 }] });
    const events = await api(`${base}events?event_type=shipment:created`, { token: secret });
    expect(events.status, events.text).toBe(200);
  });

  it('refuses over-shipping and non-physical items (400), and nothing left to ship (422), changing nothing', async () => {
    const { orderId } = await paidOrder([{ product_id: 'mug', quantity: 2 }, { product_id: 'ebook', quantity: 1 }]);
    const before = await shippedState(orderId);
    const refusals: Array<[unknown, number, string, string | undefined]> = [
      [{ items: [{ item_id: 'mug', quantity: 3 }] }, 400, 'invalid_input', 'items[0].quantity'],
      [{ items: [{ item_id: 'ebook', quantity: 1 }] }, 400, 'invalid_input', 'items[0].item_id'],
      [{ items: [{ item_id: 'mug', quantity: 1 }, { item_id: 'nope', quantity: 1 }] }, 400, 'invalid_input', 'items[1].item_id'],
      [{ items: [{ item_id: 'mug', quantity: 0 }] }, 400, 'invalid_input', 'items[0].quantity'],
      [{ items: [] }, 400, 'invalid_input', 'items'],
    ];
    for (const [body, status, code, property] of refusals) {
      const refused = await ship(orderId, body);
      expect(refused.status, refused.text).toBe(status);
      expect(refused.body.error).toMatchObject({ code, meta: { property } });
      expect(await shippedState(orderId)).toEqual(before);
    }
    expect((await ship(orderId, { items: [{ item_id: 'mug', quantity: 2 }] })).status).toBe(201);
    const shipped = await shippedState(orderId);
    for (const body of [{}, { items: [{ item_id: 'mug', quantity: 1 }] }]) {
      const refused = await ship(orderId, body);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.error.code).toBe('invalid_state');
      expect(await shippedState(orderId)).toEqual(shipped);
    }
  });

  it('has nothing to ship in an order without physical items (422), and refuses naming its digital item (400)', async () => {
    const { orderId } = await paidOrder([{ product_id: 'ebook', quantity: 2 }, { product_id: 'setup', quantity: 1 }]);
    expect(await fulfilment(orderId)).toEqual({ order: true, ebook: true, setup: true });
    const nothing = await ship(orderId);
    expect(nothing.status, nothing.text).toBe(422);
    expect(nothing.body.error.code).toBe('invalid_state');
    const digital = await ship(orderId, { items: [{ item_id: 'ebook', quantity: 1 }] });
    expect(digital.status, digital.text).toBe(400);
    expect(digital.body.error.meta).toMatchObject({ property: 'items[0].item_id', reason: 'not_allowed' });
    const service = await ship(orderId, { items: [{ item_id: 'setup', quantity: 1 }] });
    expect(service.status, service.text).toBe(400);
    expect((await api(`${base}orders/${orderId}/shipments`, { token: secret })).body.total_items).toBe(0);
  });
});

describe('concurrent shipments', () => {
  it('of the last units never ship more than was ordered: 12 requests for 3 units, exactly 3 succeed', async () => {
    const { orderId } = await paidOrder([{ product_id: 'mug', quantity: 3 }]);
    const answers = await Promise.all(Array.from({ length: 12 }, () => ship(orderId, { items: [{ item_id: 'mug', quantity: 1 }] })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses, answers.map((answer) => answer.text).join('\n')).toEqual([...Array(3).fill(201), ...Array(9).fill(422)]);
    for (const refused of answers.filter((answer) => answer.status === 422)) expect(refused.body.error.code).toBe('invalid_state');
    const listed = await api(`${base}orders/${orderId}/shipments`, { token: secret });
    expect(listed.body.total_items).toBe(3);
    expect(listed.body.data.reduce((sum: number, shipment: { items: Array<{ quantity: number }> }) => sum + shipment.items[0]!.quantity, 0)).toBe(3);
    expect(await fulfilment(orderId)).toEqual({ order: true, mug: true });
  });

  it('of everything at once: one wins, the others find nothing left', async () => {
    const { orderId } = await paidOrder([{ product_id: 'mug', quantity: 2 }, { product_id: 'poster', quantity: 1 }]);
    const answers = await Promise.all(Array.from({ length: 8 }, () => ship(orderId)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 422)).toHaveLength(7);
    expect((await api(`${base}orders/${orderId}/shipments`, { token: secret })).body.total_items).toBe(1);
    expect(await fulfilment(orderId)).toEqual({ order: true, mug: true, poster: true });
  });

  it('and deletions together keep the shipped quantities exact', async () => {
    const { orderId } = await paidOrder([{ product_id: 'mug', quantity: 4 }]);
    const made = await Promise.all(Array.from({ length: 4 }, () => ship(orderId, { items: [{ item_id: 'mug', quantity: 1 }] })));
    expect(made.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    // Two deletions and two new shipments race; then exactly the deleted units are shippable again.
    const raced = await Promise.all([
      api(`${base}shipments/${made[0]!.body.shipment_id}`, { method: 'DELETE', token: secret }),
      api(`${base}shipments/${made[1]!.body.shipment_id}`, { method: 'DELETE', token: secret }),
      ship(orderId, { items: [{ item_id: 'mug', quantity: 1 }] }),
      ship(orderId, { items: [{ item_id: 'mug', quantity: 1 }] }),
    ]);
    expect(raced.slice(0, 2).map((answer) => answer.status)).toEqual([204, 204]);
    const shippedNow = raced.slice(2).filter((answer) => answer.status === 201).length;
    const listed = await api(`${base}orders/${orderId}/shipments`, { token: secret });
    expect(listed.body.total_items).toBe(2 + shippedNow);
    const rest = await ship(orderId);
    if (shippedNow === 2) expect(rest.status).toBe(422);
    else {
      expect(rest.status, rest.text).toBe(201);
      expect(rest.body.items[0].quantity).toBe(2 - shippedNow);
    }
    expect(await fulfilment(orderId)).toEqual({ order: true, mug: true });
  });
});

describe('who reaches shipments', () => {
  let orderId: string;
  let shopper: string;
  let customerId: string;
  let shipmentId: string;

  beforeAll(async () => {
    ({ orderId, shopper, customerId } = await paidOrder([{ product_id: 'mug', quantity: 2 }]));
    const made = await ship(orderId, { items: [{ item_id: 'mug', quantity: 1 }] });
    expect(made.status, made.text).toBe(201);
    shipmentId = made.body.shipment_id;
  });

  it('another account: 404 for the shipment, the order and its lists, and none of them listed', async () => {
    const token = other.tokens.test_secret;
    for (const path of [`shipments/${shipmentId}`, `orders/${orderId}/shipments`, `orders/${orderId}/items/mug/shipments`]) {
      expect((await api(`${base}${path}`, { token })).status, path).toBe(404);
    }
    expect((await api(`${base}shipments/${shipmentId}`, { method: 'POST', token, body: { courier: 'X' } })).status).toBe(404);
    expect((await api(`${base}shipments/${shipmentId}`, { method: 'DELETE', token })).status).toBe(404);
    expect((await ship(orderId, {}, token)).status).toBe(404);
    const listed = await api(`${base}shipments`, { token });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
    expect((await api(`${base}shipments/${shipmentId}`, { token: secret })).body.courier).toBeNull();
  });

  it('the other mode: 400 token_type_mismatch by id, and an empty list', async () => {
    for (const [method, path, body] of [['GET', `shipments/${shipmentId}`], ['POST', `shipments/${shipmentId}`, { courier: 'X' }], ['DELETE', `shipments/${shipmentId}`], ['POST', `orders/${orderId}/shipments`, {}], ['GET', `orders/${orderId}/shipments`]] as const) {
      const answer = await api(`${base}${path}`, { method, token: live, ...(body ? { body } : {}) });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(400);
      expect(answer.body.error.code).toBe('token_type_mismatch');
    }
    expect((await api(`${base}shipments`, { token: live })).body.data).toEqual([]);
    expect((await order(orderId)).items[0]!.fulfilled).toBe(false);
  });

  it("the order's own limited token reads its shipments, and writes none", async () => {
    const read = await api(`${base}shipments/${shipmentId}?expand=order`, { token: shopper });
    expect(read.status, read.text).toBe(200);
    expect(read.body.order).toMatchObject({ object: 'order', order_id: orderId });
    expect((await api(`${base}orders/${orderId}/shipments`, { token: shopper })).body.total_items).toBe(1);
    expect((await api(`${base}orders/${orderId}/items/mug/shipments`, { token: shopper })).body.total_items).toBe(1);
    expect((await api(`${base}orders/${orderId}?expand=shipments`, { token: shopper })).body.shipments).toMatchObject({ object: 'list', total_items: 1 });
    expect((await ship(orderId, {}, shopper)).status).toBe(403);
    expect((await api(`${base}shipments/${shipmentId}`, { method: 'POST', token: shopper, body: { courier: 'X' } })).status).toBe(403);
    expect((await api(`${base}shipments/${shipmentId}`, { method: 'DELETE', token: shopper })).status).toBe(403);
    expect((await api(`${base}shipments`, { token: shopper })).status).toBe(403);
  });

  it("another shopper's limited token: 404 for the shipment and the order's lists", async () => {
    const stranger = (await paidOrder([{ product_id: 'poster', quantity: 1 }])).shopper;
    for (const path of [`shipments/${shipmentId}`, `orders/${orderId}/shipments`, `orders/${orderId}/items/mug/shipments`]) {
      const answer = await api(`${base}${path}`, { token: stranger });
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.code).toBe('resource_not_found');
    }
    expect((await api(`${base}orders/${orderId}?expand=shipments`, { token: stranger })).status).toBe(404);
  });

  it("the order's customer's scope reads them; another customer's scope does not", async () => {
    const signIn = async (customer: string, username: string) => {
      expect((await api(`${base}customers/${customer}`, { method: 'POST', token: secret, body: { username, password: 'portal password' } })).status).toBe(200);
      const signedIn = await api(`${base}customers/login?account_id=${account}&test=true&expand=auth`, { method: 'POST', body: { username, password: 'portal password' } });
      expect(signedIn.status, signedIn.text).toBe(200);
      return signedIn.body.auth.token as string;
    };
    const own = await signIn(customerId, 'ada-ships');
    expect((await api(`${base}shipments/${shipmentId}`, { token: own })).status).toBe(200);
    expect((await api(`${base}orders/${orderId}/shipments`, { token: own })).body.total_items).toBe(1);
    const stranger = await signIn((await paidOrder([{ product_id: 'poster', quantity: 1 }])).customerId, 'bo-ships');
    expect((await api(`${base}shipments/${shipmentId}`, { token: stranger })).status).toBe(404);
    expect((await api(`${base}orders/${orderId}/shipments`, { token: stranger })).status).toBe(404);
    expect((await ship(orderId, {}, own)).status).toBe(403);
  });
});
