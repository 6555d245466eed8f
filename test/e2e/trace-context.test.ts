/**
 * W3C trace context end to end (issue 28, tracing): a request carrying a `traceparent` makes an
 * order; the webhook of its `order:created` and the license request of its licensed item are
 * sent later (the fan-out and the queue's worker) and, after the receiver answered 500, again
 * by the sweep on the manual clock. Every attempt carries the caller's trace id with a parent
 * id of its own; a request with an invalid header, or none, causes attempts without one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Received, type Receiver } from '../support/receiver';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_PARENT = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_PARENT}-01`;
const CARD = { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } };

let runtime: RuntimeProcess;
let base: string;
let secret: string;
let receiver: Receiver;
/** Status each path answers next; a path not listed answers 200 (`ok`, or a license code under /license). */
const plans = new Map<string, number[]>();

async function moveClock(seconds: number): Promise<void> {
  const moved = await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: seconds } });
  expect(moved.status, moved.text).toBe(200);
}

/** Polls (real time) until `read` answers something `done` accepts; fails after 30 s. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const by = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > by) throw new Error(`condition not met: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The trace id and parent id of a received request's `traceparent` (it must be a valid version 00 one). */
function traceOf(request: Received): { traceId: string; parentId: string; flags: string } {
  const header = request.headers.traceparent;
  expect(header, `${request.path} carried no traceparent`).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
  const [, traceId, parentId, flags] = String(header).split('-');
  return { traceId: traceId!, parentId: parentId!, flags: flags! };
}

async function subscribe(eventType: string, path: string): Promise<void> {
  const created = await api(`${base}event_subscriptions`, { method: 'POST', token: secret, body: { method: 'http', event_type: eventType, destination: `${receiver.url}${path}` } });
  expect(created.status, created.text).toBe(201);
}

/** Pays one of `productId` in a request carrying `headers`; answers the order id. */
async function buy(productId: string, headers: Record<string, string>): Promise<string> {
  const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: productId }], customer: { name: 'Ana Ruiz', email: 'ana@example.org', billing_address: { country: 'US' } } } });
  expect(cart.status, cart.text).toBe(201);
  const paid = await api(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token: secret, headers, body: { payment_method: CARD } });
  expect(paid.status, paid.text).toBe(201);
  return String(paid.body.order).split('/').pop()!;
}

/** The API's view of an event: its attempts so far. */
async function eventAttempts(eventId: string): Promise<number> {
  const event = await api(`${base}events/${eventId}?debug=true`, { token: secret });
  expect(event.status, event.text).toBe(200);
  // The stored trace context is never shown, not even in the recorded request.
  expect(event.text).not.toContain(TRACE_ID);
  return event.body.attempts_count;
}

beforeAll(async () => {
  receiver = await startReceiver((path) => {
    const next = plans.get(path)?.shift();
    if (next) return next;
    return path === '/license' ? { status: 200, body: 'TRACED-CODE' } : undefined;
  });
  runtime = await startRuntime({ env: { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  secret = runtime.bootstrap.tokens.test_secret;
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
  await receiver.close();
});

describe('trace context on outbound requests', () => {
  it('sends the caller trace id on the first webhook attempt and on the retry the sweep makes a minute later, each with its own parent id', async () => {
    plans.set('/orders', [500]);
    await subscribe('order:created', '/orders');
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'traced', name: 'Traced', type: 'digital', prices: [{ currency: 'USD', price: 5 }] } });
    expect(product.status, product.text).toBe(201);
    await buy('traced', { traceparent: TRACEPARENT });
    await moveClock(1);
    const [first] = await receiver.receivedAt('/orders', 1);
    const eventId = String(first!.headers['webhook-id']);
    await eventually(() => eventAttempts(eventId), (count) => count >= 1);
    // The wait after a first failure is one minute (±10 %): the sweep hands the retry to the queue.
    await moveClock(70);
    const [, retry] = await receiver.receivedAt('/orders', 2);
    expect(retry!.headers['webhook-id']).toBe(eventId);
    await eventually(() => eventAttempts(eventId), (count) => count >= 2);
    const traces = [traceOf(first!), traceOf(retry!)];
    for (const trace of traces) expect(trace).toMatchObject({ traceId: TRACE_ID, flags: '01' });
    const parents = traces.map((trace) => trace.parentId);
    expect(new Set([...parents, CALLER_PARENT]).size).toBe(3);
    expect(parents).not.toContain('0000000000000000');

    // A manual retry, from a request in another trace, stays in the trace of the order's request.
    const other = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-00`;
    const retried = await api(`${base}events/${eventId}/retry`, { method: 'POST', token: secret, headers: { traceparent: other } });
    expect(retried.status, retried.text).toBe(200);
    const [, , manual] = await receiver.receivedAt('/orders', 3);
    expect(traceOf(manual!)).toMatchObject({ traceId: TRACE_ID, flags: '01' });
    expect([...parents, CALLER_PARENT]).not.toContain(traceOf(manual!).parentId);
  });

  it('sends the caller trace id on a remote license request from the queue and on its retry', async () => {
    plans.set('/license', [500]);
    const service = await api(`${base}license_services`, { method: 'POST', token: secret, body: { name: 'Traced keys', type: 'remote_url', configuration: { url: `${receiver.url}/license` } } });
    expect(service.status, service.text).toBe(201);
    const product = await api(`${base}products`, {
      method: 'POST',
      token: secret,
      body: { product_id: 'traced-key', name: 'Traced key', type: 'digital', prices: [{ currency: 'USD', price: 10 }], license_service_id: service.body.license_service_id },
    });
    expect(product.status, product.text).toBe(201);
    const orderId = await buy('traced-key', { traceparent: TRACEPARENT });
    const requestOf = async () => (await api(`${base}license_requests?order_id=${orderId}`, { token: secret })).body.data[0] as Record<string, any> | undefined;
    const failed = await eventually(requestOf, (request) => (request?.attempts_count ?? 0) >= 1);
    expect(failed).toMatchObject({ status: 'retry', attempts: [{ status_code: 500 }] });
    expect(JSON.stringify(failed)).not.toContain(TRACE_ID);
    await moveClock(70);
    const done = await eventually(requestOf, (request) => request?.status === 'completed');
    expect(done?.attempts_count).toBe(2);
    const [first, retry] = await receiver.receivedAt('/license', 2);
    const traces = [traceOf(first!), traceOf(retry!)];
    for (const trace of traces) expect(trace).toMatchObject({ traceId: TRACE_ID, flags: '01' });
    expect(new Set([...traces.map((trace) => trace.parentId), CALLER_PARENT]).size).toBe(3);
  });

  it('sends no traceparent for a request whose header is invalid or missing', async () => {
    await subscribe('product:created', '/untraced');
    const invalid = [
      `ff-${TRACE_ID}-${CALLER_PARENT}-01`, // not version 00
      `00-${'0'.repeat(32)}-${CALLER_PARENT}-01`, // trace id all zeros
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`, // parent id all zeros
      `00-${TRACE_ID.toUpperCase()}-${CALLER_PARENT}-01`, // not lowercase
      `00-${TRACE_ID}-${CALLER_PARENT}-1`, // flags too short
      `00-${TRACE_ID}-${CALLER_PARENT}-01-extra`,
    ];
    for (const [index, header] of [...invalid, undefined].entries()) {
      const created = await api(`${base}products`, {
        method: 'POST',
        token: secret,
        headers: header ? { traceparent: header } : {},
        body: { product_id: `untraced-${index}`, name: 'Untraced', type: 'digital', prices: [{ currency: 'USD', price: 5 }] },
      });
      expect(created.status, created.text).toBe(201);
    }
    await moveClock(1);
    const deliveries = await receiver.receivedAt('/untraced', invalid.length + 1);
    for (const delivery of deliveries) expect(delivery.headers.traceparent, String(delivery.headers['webhook-id'])).toBeUndefined();
  });
});
