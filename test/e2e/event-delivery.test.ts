/**
 * Event notifications end to end over HTTP (events.md): a real local receiver, a runtime on the
 * manual clock (each clock move runs the due-work sweep, so the schedule is driven, never waited
 * for). A change makes its occurrence, the fan-out makes one event per subscription, delivery
 * signs it (both schemes verify), a receiver failing three times gets the same event four
 * times on the schedule, and the events API shows it all, including a manual retry.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { startReceiver, type Received, type Receiver } from '../support/receiver';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const KEY = 'receiver-signing-key-0123';

// The receiver's check, copied from events.md §5.1 as a merchant would paste it.
function same(a: string, b: string): boolean {
  const x = Buffer.from(a), y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
function verify(rawBody: Buffer, headers: Record<string, string | undefined>, key: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const mac = (data: Buffer | string) => createHmac('sha256', key).update(data).digest('base64');
  if (!same(mac(rawBody), headers['x-service-signature'] ?? '')) return false;
  const id = headers['webhook-id'], ts = headers['webhook-timestamp'];
  if (Math.abs(nowSeconds - Number(ts)) > 300) return false;
  const expected = mac(Buffer.concat([Buffer.from(`${id}.${ts}.`), rawBody]));
  return (headers['webhook-signature'] ?? '').split(' ').some((entry) => entry.startsWith('v1,') && same(entry.slice(3), expected));
}

let runtime: RuntimeProcess;
let base: string;
let secret: string;
let receiver: Receiver;
let receiverUrl: string;
let received: Received[];
/** Status each path answers next; a path not listed answers 200. */
const plans = new Map<string, number[]>();
async function moveClock(seconds: number): Promise<void> {
  const moved = await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: seconds } });
  expect(moved.status, moved.text).toBe(200);
}

/** Waits (real time, polling) until `path` has received `count` requests. */
const receivedAt = (path: string, count: number) => receiver.receivedAt(path, count);

/**
 * Waits until `path` has received `count` deliveries of one event and the event shows them as
 * attempts: the clock may then move past the next wait. Moving it while the last attempt is in
 * flight can lapse that attempt's lease, and the sweep delivers it again (at least once).
 */
async function attemptsRecorded(path: string, count: number): Promise<void> {
  const [first] = await receivedAt(path, count);
  const eventId = first!.headers['webhook-id'] as string;
  const by = Date.now() + 15_000;
  for (;;) {
    const event = await api(`${base}events/${eventId}`, { token: secret });
    expect(event.status, event.text).toBe(200);
    if (event.body.attempts_count >= count) return;
    if (Date.now() > by) throw new Error(`${eventId} shows ${event.body.attempts_count} of ${count} attempts`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function subscribe(body: Record<string, unknown>): Promise<string> {
  const created = await api(`${base}event_subscriptions`, { method: 'POST', token: secret, body: { method: 'http', signature_key: KEY, ...body } });
  expect(created.status, created.text).toBe(201);
  return created.body.event_subscription_id;
}

beforeAll(async () => {
  receiver = await startReceiver((path) => plans.get(path)?.shift());
  receiverUrl = receiver.url;
  received = receiver.received;
  runtime = await startRuntime({ env: { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  secret = runtime.bootstrap.tokens.test_secret;
}, 60_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
  await receiver.close();
});

describe('event notifications', () => {
  it('delivers a signed notification of each subscription: two events of one occurrence, one fingerprint', async () => {
    await subscribe({ event_type: 'product:created', destination: `${receiverUrl}/json` });
    await subscribe({ event_type: 'product:created', destination: `${receiverUrl}/xml`, format: 'xml' });
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'notified', name: 'Notified', type: 'digital', prices: [{ currency: 'USD', price: 5 }] } });
    expect(product.status, product.text).toBe(201);
    await moveClock(1);
    const [json] = await receivedAt('/json', 1);
    const [xml] = await receivedAt('/xml', 1);
    for (const delivery of [json!, xml!]) {
      expect(verify(delivery.body, delivery.headers as Record<string, string>, KEY)).toBe(true);
      // A changed body fails both schemes.
      expect(verify(Buffer.concat([delivery.body, Buffer.from(' ')]), delivery.headers as Record<string, string>, KEY)).toBe(false);
      expect(delivery.headers['x-event-type']).toBe('product:created');
      expect(delivery.headers['user-agent']).toBe('Cartwheel-Notifications/1.0');
    }
    const body = JSON.parse(json!.body.toString('utf8'));
    expect(body).toMatchObject({ object: 'event', type: 'product:created', test: true, data: { object: 'product', product_id: 'notified', name: 'Notified' } });
    expect(json!.headers['webhook-id']).toBe(body.event_id);
    expect(xml!.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(xml!.body.toString('utf8')).toContain(`<fingerprint>${body.fingerprint}</fingerprint>`);
    expect(xml!.headers['webhook-id']).not.toBe(body.event_id);

    const events = await api(`${base}events?fingerprint=${body.fingerprint}`, { token: secret });
    expect(events.status, events.text).toBe(200);
    expect(events.body.data.map((event: { status: string }) => event.status)).toEqual(['delivered', 'delivered']);
  });

  it('delivers the same order:created as JSON, XML and HTML, each parsed', async () => {
    for (const format of ['json', 'xml', 'html']) await subscribe({ event_type: 'order:created', destination: `${receiverUrl}/order-${format}`, format, expand: 'customer' });
    expect((await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'sold', name: 'Sold <&> "goods"', type: 'digital', prices: [{ currency: 'USD', price: 7 }] } })).status).toBe(201);
    const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: 'sold', quantity: '2' }], customer: { name: 'Ana Ruiz', email: 'ana@example.org', billing_address: { country: 'US' } } } });
    expect(cart.status, cart.text).toBe(201);
    const paid = await api(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token: secret, body: { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } } });
    expect(paid.status, paid.text).toBe(201);
    const orderId = String(paid.body.order).split('/').pop();
    await moveClock(1);
    const [json] = await receivedAt('/order-json', 1);
    const [xml] = await receivedAt('/order-xml', 1);
    const [html] = await receivedAt('/order-html', 1);
    const fromJson = JSON.parse(json!.body.toString('utf8'));
    expect(fromJson.data).toMatchObject({ object: 'order', order_id: orderId, total: 14, customer: { object: 'customer', name: 'Ana Ruiz' }, items: [{ product_id: 'sold', name: 'Sold <&> "goods"', quantity: 2 }] });
    const fromXml = new XMLParser({ parseTagValue: false }).parse(xml!.body.toString('utf8'));
    expect(fromXml.event).toMatchObject({ type: 'order:created', fingerprint: fromJson.fingerprint, data: { order_id: orderId, customer: { name: 'Ana Ruiz' }, items: { item: { name: 'Sold <&> "goods"' } } } });
    const page = html!.body.toString('utf8');
    expect(html!.headers['content-type']).toMatch(/^text\/html/);
    expect(page).toContain(orderId);
    expect(page).toContain('Sold &lt;&amp;&gt; &quot;goods&quot;');
    expect(page).not.toContain('Sold <&>');
  });

  it('retries a failing receiver on the schedule: four deliveries of the same event, then delivered', async () => {
    plans.set('/flaky', [500, 503, 302]);
    await subscribe({ event_type: 'product:modified', destination: `${receiverUrl}/flaky` });
    expect((await api(`${base}products/notified`, { method: 'POST', token: secret, body: { name: 'Renamed' } })).status).toBe(200);
    await moveClock(1);
    await attemptsRecorded('/flaky', 1);
    // The waits after attempts 1, 2 and 3: 1, 5 and 15 minutes, each within ±10 %.
    for (const [index, minutes] of [1, 5, 15].entries()) {
      await moveClock(minutes * 60 * 0.89);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(received.filter((entry) => entry.path === '/flaky')).toHaveLength(index + 1);
      await moveClock(minutes * 60 * 0.22);
      await attemptsRecorded('/flaky', index + 2);
    }
    const deliveries = received.filter((entry) => entry.path === '/flaky');
    expect(new Set(deliveries.map((entry) => entry.headers['webhook-id'])).size).toBe(1);
    const eventId = deliveries[0]!.headers['webhook-id'] as string;
    const event = await api(`${base}events/${eventId}?debug=true`, { token: secret });
    expect(event.status, event.text).toBe(200);
    expect(event.body).toMatchObject({ status: 'delivered', attempts_count: 4 });
    expect(event.body.attempts.map((attempt: { status_code: number; error: { code: string } | null }) => [attempt.status_code, attempt.error?.code ?? null])).toEqual([
      [500, 'http_status'],
      [503, 'http_status'],
      [302, 'redirect'],
      [200, null],
    ]);
    expect(event.body.debug.request).toMatchObject({ method: 'POST', url: `${receiverUrl}/flaky` });
  });

  it('ends a never-succeeding event failed after the full schedule; a manual retry then delivers it', async () => {
    plans.set('/down', Array.from({ length: 11 }, () => 500));
    await subscribe({ event_type: 'product:deleted', destination: `${receiverUrl}/down` });
    expect((await api(`${base}products/notified`, { method: 'DELETE', token: secret })).status).toBe(204);
    await moveClock(1);
    await attemptsRecorded('/down', 1);
    for (const [index, minutes] of [1, 5, 15, 60, 180, 360, 720, 1440, 1440, 1440].entries()) {
      await moveClock(minutes * 60 * 1.11);
      await attemptsRecorded('/down', index + 2);
    }
    const eventId = received.find((entry) => entry.path === '/down')!.headers['webhook-id'] as string;
    await moveClock(3 * 24 * 3600);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received.filter((entry) => entry.path === '/down')).toHaveLength(11);
    const failed = await api(`${base}events?status=failed`, { token: secret });
    expect(failed.body.data.map((event: { event_id: string }) => event.event_id)).toContain(eventId);

    const retried = await api(`${base}events/${eventId}/retry`, { method: 'POST', token: secret });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({ status: 'delivered', attempts_count: 12 });
    expect(retried.body.attempts.at(-1)).toMatchObject({ trigger: 'manual', success: true, status_code: 200 });
    expect(received.filter((entry) => entry.path === '/down')).toHaveLength(12);
  });
});
