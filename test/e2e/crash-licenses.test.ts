/**
 * No license code is lost or stored twice, and no confirmation email is sent twice, across a
 * crash (licenses.md §4, §9): 30 orders of two licensed items each (one remote script, one
 * list), paid side by side while the runtime is killed (`kill -9`) and restarted on the same
 * data. Afterwards every request is completed with one code on its item, no list code went to
 * two items, and every order has exactly one confirmation email.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const ORDERS = 30;
const PARALLEL = 6;
const SETTLE_MS = 90_000;
const env = { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
const CARD = { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let receiver: Receiver;
let issued = 0;

beforeAll(async () => {
  // Each request gets its own code; a repeated request (at least once) gets a new one.
  receiver = await startReceiver(() => ({ status: 200, body: `R-${++issued}` }));
});

afterAll(async () => {
  await receiver.close();
});

/** Calls the API until it answers (the runtime may be down or restarting). */
async function persist<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch {
      await pause(20);
    }
  }
}

it('completes every license request once and sends every order one email across a kill -9', async () => {
  let runtime: RuntimeProcess = await startRuntime({ env });
  const base = runtime.bootstrap.api_url;
  const secret = runtime.bootstrap.tokens.test_secret;
  try {
    const remote = await api(`${base}license_services`, { method: 'POST', token: secret, body: { name: 'Remote', type: 'remote_url', configuration: { url: `${receiver.url}/keys` } } });
    expect(remote.status, remote.text).toBe(201);
    const codes = Array.from({ length: ORDERS + 10 }, (_, n) => `L-${n}`);
    const list = await api(`${base}license_services`, { method: 'POST', token: secret, body: { name: 'List', type: 'list', configuration: { licenses: codes } } });
    expect(list.status, list.text).toBe(201);
    for (const [productId, serviceId] of [['remote-key', remote.body.license_service_id], ['list-key', list.body.license_service_id]]) {
      const created = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: productId, name: productId, type: 'digital', prices: [{ currency: 'USD', price: 3 }], license_service_id: serviceId } });
      expect(created.status, created.text).toBe(201);
    }
    const cartIds: string[] = [];
    for (let n = 0; n < ORDERS; n++) {
      const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: 'remote-key' }, { product_id: 'list-key' }], customer: { name: `Buyer ${n}`, email: `buyer${n}@example.org`, billing_address: { country: 'US' } } } });
      expect(cart.status, cart.text).toBe(201);
      cartIds.push(cart.body.cart_id);
    }

    let next = 0;
    let paid = 0;
    const worker = async () => {
      while (next < ORDERS) {
        const cartId = cartIds[next++]!;
        // A payment the kill interrupted is sent again: the cart answers 409/422 once it is paid or locked.
        for (let round = 0; round < 200; round++) {
          const answer = await persist(() => api(`${base}carts/${cartId}/payments`, { method: 'POST', token: secret, body: { payment_method: CARD } }));
          if (answer.status === 201 || answer.status === 422) break;
          await pause(50);
        }
        paid++;
      }
    };
    const workers = Array.from({ length: PARALLEL }, () => worker());
    while (paid < ORDERS / 3) await pause(10);
    await runtime.kill9();
    runtime = await runtime.restart();
    await Promise.all(workers);

    // Every cart has its order (a payment lost to the kill is recovered by the sweep).
    const orderIds: string[] = [];
    const settleBy = Date.now() + SETTLE_MS;
    for (const cartId of cartIds) {
      for (;;) {
        const cart = await api(`${base}carts/${cartId}`, { token: secret });
        if (cart.body.order) {
          orderIds.push(String(cart.body.order).split('/').pop()!);
          break;
        }
        if (Date.now() > settleBy) throw new Error(`cart ${cartId} has no order`);
        // A payment the kill cut short before its charge is failed by recovery once its lock
        // lapses, and the cart is open again: the shopper pays again, as a real one would.
        await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 60 } });
        await api(`${base}carts/${cartId}/payments`, { method: 'POST', token: secret, body: { payment_method: CARD } });
        await pause(100);
      }
    }
    expect(orderIds).toHaveLength(ORDERS);

    // Move the clock until every item has its code.
    const orders = new Map<string, Record<string, any>>();
    while (orders.size < ORDERS) {
      for (const orderId of orderIds) {
        if (orders.has(orderId)) continue;
        const order = await api(`${base}orders/${orderId}?expand=items.license`, { token: secret });
        if (order.body.items.every((item: { license_pending: boolean }) => !item.license_pending)) orders.set(orderId, order.body);
      }
      if (Date.now() > settleBy) throw new Error(`${ORDERS - orders.size} orders still wait for a code`);
      await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 90 } });
      await pause(100);
    }

    const listCodes: string[] = [];
    for (const order of orders.values()) {
      for (const item of order.items) expect(item.license, `${order.order_id} ${item.product_id}`).toMatchObject({ object: 'license', text: expect.stringMatching(/^(R|L)-\d+$/) });
      listCodes.push(order.items.find((item: { product_id: string }) => item.product_id === 'list-key').license.text);
      const requests = await api(`${base}license_requests?order_id=${order.order_id}`, { token: secret });
      expect(requests.body.data.map((request: { status: string }) => request.status)).toEqual(['completed', 'completed']);
    }
    // No list code went to two orders.
    expect(new Set(listCodes).size).toBe(ORDERS);
    const service = await api(`${base}license_services/${list.body.license_service_id}`, { token: secret });
    expect(service.body.configuration.license_count).toBe(10);

    // One confirmation per order, with both codes in it.
    await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 600 } });
    await pause(500);
    const outbox = await api(`${runtime.url}/_local/outbox`);
    for (const order of orders.values()) {
      const emails = outbox.body.data.filter((message: { order_id?: string; kind: string }) => message.order_id === order.order_id && message.kind === 'order_confirmation');
      expect(emails, order.order_id).toHaveLength(1);
      const text = await (await fetch(emails[0].text_url)).text();
      for (const item of order.items) expect(text).toContain(item.license.text);
    }
  } finally {
    await runtime.stop();
  }
}, 240_000);
