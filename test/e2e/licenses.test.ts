/**
 * License services end to end over HTTP (licenses.md): a real local license script, a runtime on
 * the manual clock (each clock move runs the due-work sweep and ends attempts past their time
 * limit, so the schedule and the 30-second timeout are driven, never waited for). Paid orders
 * get their codes from the script or from a list, the codes appear on the order items, the
 * receipt (payment → order → items.license) and in one confirmation email that waits for the
 * last code; the license requests API shows attempts and re-sends.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, freePort, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let secret: string;
let receiver: Receiver;
/** What each path of the script answers next (a status and body); a path not listed answers `CODE-<n>`. */
const plans = new Map<string, Array<{ status: number; body: string }>>();
let served = 0;

const CARD = { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } };
const BUYER = { name: 'Ana Ruiz', email: 'ana@example.org', billing_address: { country: 'US' } };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls (real time, at most 30 s: the machine may be busy) until `read` answers something `done` accepts; answers it. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const by = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > by) return value;
    await pause(50);
  }
}

async function moveClock(seconds: number): Promise<void> {
  const moved = await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: seconds } });
  expect(moved.status, moved.text).toBe(200);
}

// The script's check, as a merchant would write it from events.md §5.1.
function verify(rawBody: Buffer, headers: Record<string, string | string[] | undefined>, key: string): boolean {
  const mac = (data: Buffer | string) => createHmac('sha256', key).update(data).digest('base64');
  const same = (a: string, b: string) => Buffer.from(a).length === Buffer.from(b).length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
  if (!same(mac(rawBody), String(headers['x-service-signature'] ?? ''))) return false;
  const expected = mac(Buffer.concat([Buffer.from(`${headers['webhook-id']}.${headers['webhook-timestamp']}.`), rawBody]));
  return String(headers['webhook-signature'] ?? '').split(' ').some((entry) => entry === `v1,${expected}`);
}

async function service(body: Record<string, unknown>): Promise<string> {
  const created = await api(`${base}license_services`, { method: 'POST', token: secret, body });
  expect(created.status, created.text).toBe(201);
  return created.body.license_service_id;
}

async function product(productId: string, licenseServiceId: string | null): Promise<void> {
  const created = await api(`${base}products`, {
    method: 'POST',
    token: secret,
    body: { product_id: productId, name: `Product ${productId}`, type: 'digital', prices: [{ currency: 'USD', price: 10 }], license_service_id: licenseServiceId },
  });
  expect(created.status, created.text).toBe(201);
}

/** Pays a cart of `items` (1 each unless told); answers the payment, expanded down to the licenses. */
async function buy(items: Array<string | { product_id: string; quantity: number }>, email = BUYER.email): Promise<Record<string, any>> {
  const cart = await api(`${base}carts`, {
    method: 'POST',
    token: secret,
    body: { items: items.map((item) => (typeof item === 'string' ? { product_id: item } : item)), customer: { ...BUYER, email } },
  });
  expect(cart.status, cart.text).toBe(201);
  const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order.items.license`, { method: 'POST', token: secret, body: { payment_method: CARD } });
  expect(paid.status, paid.text).toBe(201);
  return paid.body;
}

async function order(orderId: string): Promise<Record<string, any>> {
  const read = await api(`${base}orders/${orderId}?expand=items.license`, { token: secret });
  expect(read.status, read.text).toBe(200);
  return read.body;
}

/** Confirmation emails of an order in the outbox, with their text. */
async function emailsOf(orderId: string): Promise<Array<{ kind: string; subject: string; text: string }>> {
  const outbox = await api(`${runtime.url}/_local/outbox`);
  const mine = outbox.body.data.filter((message: { order_id?: string }) => message.order_id === orderId);
  return Promise.all(mine.map(async (message: { kind: string; subject: string; text_url: string }) => ({ kind: message.kind, subject: message.subject, text: await (await fetch(message.text_url)).text() })));
}

/** Real time `until` leaves between clock moves. */
const QUIET_AFTER_MOVE_MS = 3_000;

/** Polls (real time) until `check` holds for the order; with `step`, moves the clock by `step` seconds, at most once per `QUIET_AFTER_MOVE_MS`. */
async function until(orderId: string, check: (order: Record<string, any>) => boolean, step = 0): Promise<Record<string, any>> {
  const by = Date.now() + 60_000;
  let movedAt = 0;
  while (Date.now() < by) {
    const current = await order(orderId);
    if (check(current)) return current;
    // One move, then real time for what it made due to run. Moving on every poll jumped the
    // clock past the 30 s timeout of an attempt still in flight on a loaded machine, which then
    // counted as timed out and ran again (a third call to the script).
    if (step && Date.now() - movedAt > QUIET_AFTER_MOVE_MS) {
      await moveClock(step);
      movedAt = Date.now();
    }
    await pause(50);
  }
  throw new Error(`order ${orderId} never reached the expected state`);
}

/**
 * The events among `deliveries`, once each: delivery is at least once (events.md), and a clock
 * move past the timeout of a delivery in flight sends it again under the same `webhook-id`, as a
 * merchant's receiver dedupes (events.md §5.1 step 4). A repeat must carry the same body.
 */
function distinctEvents(deliveries: Array<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>): Array<Record<string, any>> {
  const byId = new Map<string, string>();
  for (const delivery of deliveries) {
    const id = String(delivery.headers['webhook-id']);
    const body = delivery.body.toString('utf8');
    expect(byId.get(id) ?? body, `repeat of ${id}`).toBe(body);
    byId.set(id, body);
  }
  return [...byId.values()].map((body) => JSON.parse(body));
}

async function requestsOf(orderId: string): Promise<Array<Record<string, any>>> {
  const list = await api(`${base}license_requests?order_id=${orderId}&limit=100`, { token: secret });
  expect(list.status, list.text).toBe(200);
  return list.body.data;
}

let signatureKey: string;

beforeAll(async () => {
  receiver = await startReceiver((path) => {
    const next = plans.get(path)?.shift();
    if (next) return next;
    served++;
    return { status: 200, body: `CODE-${path.slice(1)}-${served}` };
  });
  runtime = await startRuntime({ env: { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  secret = runtime.bootstrap.tokens.test_secret;
  // Shoppers here pay the same amount with the same card again and again.
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
  const technical = await api(`${base}settings/technical`, { token: secret });
  expect(technical.status, technical.text).toBe(200);
  signatureKey = technical.body.signature_key;
  expect(typeof signatureKey).toBe('string');
}, 60_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
  await receiver.close();
});

describe('remote license services', () => {
  it('gets one signed request per licensed item, stores both codes and sends one email after the second', async () => {
    const a = await service({ name: 'Editor keys', label: 'Serial number', instructions: '<p>Open <b>Help</b> and paste it.</p>', type: 'remote_url', configuration: { url: `${receiver.url}/editor` } });
    const b = await service({ name: 'Font keys', type: 'remote_url', configuration: { url: `${receiver.url}/fonts`, format: 'xml', http_authorization_username: 'store', http_authorization_password: 'pw', custom_header_name: 'X-Pool', custom_header_value: 'fonts' } });
    await product('editor', a);
    await product('fonts', b);
    await product('manual', null);
    // The fonts script fails once: the email must wait for its retry.
    plans.set('/fonts', [{ status: 503, body: 'maintenance' }]);
    const paid = await buy(['editor', 'fonts', 'manual']);
    const orderId = paid.order.order_id as string;
    expect(paid.order.items.map((item: Record<string, unknown>) => [item.product_id, item.license_pending])).toEqual([['editor', true], ['fonts', true], ['manual', false]]);

    const [editorCall] = await receiver.receivedAt('/editor', 1);
    const [fontsCall] = await receiver.receivedAt('/fonts', 1);
    for (const call of [editorCall!, fontsCall!]) {
      expect(verify(call.body, call.headers, signatureKey)).toBe(true);
      expect(verify(Buffer.concat([call.body, Buffer.from(' ')]), call.headers, signatureKey)).toBe(false);
      expect(call.headers['user-agent']).toBe('Cartwheel-Licenses/1.0');
    }
    const sent = JSON.parse(editorCall!.body.toString('utf8'));
    expect(editorCall!.headers['content-type']).toBe('application/json');
    expect(sent).toMatchObject({
      object: 'license_request',
      status: 'queued',
      product_id: 'editor',
      item_id: 'editor',
      license: null,
      order: { object: 'order', order_id: orderId, customer: { object: 'customer', name: 'Ana Ruiz', email: 'ana@example.org' } },
    });
    expect(sent.order.items).toHaveLength(3);
    for (const name of ['attempts', 'attempts_count', 'date_last_request_attempt', 'date_next_request_attempt', 'last_failure_meta']) expect(sent).not.toHaveProperty(name);
    expect(editorCall!.headers['webhook-id']).toBe(sent.license_request_id);
    expect(fontsCall!.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(fontsCall!.headers.authorization).toBe(`Basic ${Buffer.from('store:pw').toString('base64')}`);
    expect(fontsCall!.headers['x-pool']).toBe('fonts');
    const xml = new XMLParser({ parseTagValue: false }).parse(fontsCall!.body.toString('utf8'));
    expect(xml.license_request).toMatchObject({ product_id: 'fonts', status: 'queued', order: { order_id: orderId } });

    // The editor code is stored; the fonts request is waiting for its retry, so the email is held.
    const half = await until(orderId, (current) => current.items[0].license_pending === false);
    expect(half.items[0].license).toMatchObject({ object: 'license', label: 'Serial number', item_id: 'editor', html: expect.stringMatching(/^CODE-editor-/) });
    expect(half.items[1]).toMatchObject({ license_pending: true, license: null });
    expect(await emailsOf(orderId)).toEqual([]);
    const [fontsRequest] = (await requestsOf(orderId)).filter((request) => request.product_id === 'fonts');
    expect(fontsRequest).toMatchObject({ status: 'retry', attempts_count: 1, last_failure_meta: { code: 'http_status', status_code: 503, response_body: 'maintenance' } });
    expect(fontsRequest!.date_next_request_attempt).not.toBeNull();

    // A minute later the retry succeeds: both codes stored, one email with both.
    const done = await until(orderId, (current) => current.items[1].license_pending === false, 70);
    expect(done.items[1].license).toMatchObject({ object: 'license', label: 'License', html: expect.stringMatching(/^CODE-fonts-/) });
    let emails = await eventually(() => emailsOf(orderId), (found) => found.length > 0);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.kind).toBe('order_confirmation');
    expect(emails[0]!.text).toContain(done.items[0].license.text);
    expect(emails[0]!.text).toContain(done.items[1].license.text);
    expect(emails[0]!.text).toContain('Serial number');
    expect(emails[0]!.text).toContain('Open Help and paste it.');

    // The receipt: payment → order → items.license, as a storefront reads it.
    const receipt = await api(`${base}payments/${paid.payment_id}?expand=order.items.license`, { token: secret });
    expect(receipt.body.order.items[1].license.text).toBe(done.items[1].license.text);
    const events = await api(`${base}license_requests/${fontsRequest!.license_request_id}`, { token: secret });
    expect(events.body).toMatchObject({ status: 'completed', attempts_count: 2, date_next_request_attempt: null, license: done.items[1].license.html });
  });

  it('holds the email through a script that is down, then times out, then answers 500, then succeeds: one email', async () => {
    const port = await freePort();
    const script: { server?: Server; mode: 'hang' | 'fail' | 'ok'; seen: number } = { mode: 'hang', seen: 0 };
    const id = await service({ name: 'Flaky', type: 'remote_url', configuration: { url: `http://127.0.0.1:${port}/issue` } });
    await product('flaky', id);
    // Down: nothing listens on the port.
    const paid = await buy(['flaky']);
    const orderId = paid.order.order_id as string;
    const [request] = await requestsOf(orderId);
    const requestId = request!.license_request_id as string;
    const attempts = async () => (await api(`${base}license_requests/${requestId}`, { token: secret })).body;
    let current = await attempts();
    current = await eventually(attempts, (latest) => latest.attempts_count >= 1);
    expect(current).toMatchObject({ status: 'retry', attempts_count: 1, last_failure_meta: { code: 'connection_error' } });

    // Up, but it never answers: the attempt ends when the clock passes 30 seconds.
    script.server = createServer((req, res) => {
      script.seen++;
      if (script.mode === 'hang') return;
      if (script.mode === 'fail') return void res.writeHead(500).end('broken');
      res.writeHead(200).end('  FLAKY-CODE-1  ');
    });
    await new Promise<void>((resolve) => script.server!.listen(port, '127.0.0.1', resolve));
    try {
      await moveClock(70);
      await eventually(async () => script.seen, (seen) => seen >= 1);
      expect(script.seen).toBe(1);
      await moveClock(31);
      current = await eventually(attempts, (latest) => latest.attempts_count >= 2);
      expect(current.attempts[1]).toMatchObject({ success: false, error: { code: 'timeout' } });
      expect(current.attempts[1].duration_ms).toBeGreaterThanOrEqual(30_000);
      expect(current.status).toBe('retry');

      script.mode = 'fail';
      await moveClock(6 * 60);
      current = await eventually(attempts, (latest) => latest.attempts_count >= 3);
      expect(current.attempts[2]).toMatchObject({ success: false, status_code: 500, error: { code: 'http_status' }, response_body: 'broken' });
      expect(await emailsOf(orderId)).toEqual([]);

      script.mode = 'ok';
      const done = await until(orderId, (latest) => latest.items[0].license_pending === false, 16 * 60);
      expect(done.items[0].license.text).toBe('FLAKY-CODE-1');
      let emails = await eventually(() => emailsOf(orderId), (found) => found.length > 0);
      // More clock moves run more sweeps: still one email.
      await moveClock(3600);
      await pause(300);
      expect(await emailsOf(orderId)).toHaveLength(1);
      expect(emails[0]!.text).toContain('FLAKY-CODE-1');
    } finally {
      await new Promise((resolve) => script.server?.close(resolve));
    }
  });

  it('applies the reply rules: too long and empty fail, tags are sanitised', async () => {
    const id = await service({ name: 'Rules', type: 'remote_url', configuration: { url: `${receiver.url}/rules` } });
    await product('rules', id);
    plans.set('/rules', [{ status: 200, body: 'x'.repeat(5000) }]);
    const paid = await buy(['rules']);
    const orderId = paid.order.order_id as string;
    const [request] = await eventually(() => requestsOf(orderId), (found) => found[0]?.attempts_count >= 1);
    expect(request).toMatchObject({ status: 'retry', last_failure_meta: { code: 'response_too_long', status_code: 200 } });

    // A re-send that gets an empty reply: 502, the request unchanged but for the log.
    plans.set('/rules', [{ status: 200, body: '   \n ' }]);
    const empty = await api(`${base}license_requests/${request!.license_request_id}/retry`, { method: 'POST', token: secret });
    expect(empty.status, empty.text).toBe(502);
    expect(empty.body.error.code).toBe('remote_server_error');
    expect(empty.body.error.meta.license_request).toMatchObject({ status: 'retry', attempts_count: 2, date_next_request_attempt: request!.date_next_request_attempt, last_failure_meta: { code: 'empty_response' } });
    expect(empty.body.error.meta.license_request.attempts[1].trigger).toBe('manual');

    plans.set('/rules', [{ status: 200, body: `<p>Key: <b>K-1</b><script>steal()</script> see <a href="https://x.test">here</a></p>` }]);
    const good = await api(`${base}license_requests/${request!.license_request_id}/retry`, { method: 'POST', token: secret });
    expect(good.status, good.text).toBe(200);
    expect(good.body).toMatchObject({ status: 'completed', license: 'Key: <b>K-1</b> see here', date_next_request_attempt: null });
    const done = await order(orderId);
    expect(done.items[0].license).toMatchObject({ html: 'Key: <b>K-1</b> see here', text: 'Key: K-1 see here' });
  });
});

describe('a request that gives up', () => {
  it('fails after 11 attempts, releases the email with a note, and a later re-send brings a follow-up', async () => {
    const failures = await api(`${base}event_subscriptions`, { method: 'POST', token: secret, body: { event_type: 'license_request:failed', method: 'http', destination: `${receiver.url}/failed-events` } });
    expect(failures.status, failures.text).toBe(201);
    const assigned = await api(`${base}event_subscriptions`, { method: 'POST', token: secret, body: { event_type: 'order:licenses_assigned', method: 'http', destination: `${receiver.url}/assigned-events` } });
    expect(assigned.status, assigned.text).toBe(201);
    const id = await service({ name: 'Broken', label: 'Activation key', instructions: 'Keep it safe.', type: 'remote_url', configuration: { url: `${receiver.url}/broken` } });
    await product('broken', id);
    plans.set('/broken', Array.from({ length: 11 }, () => ({ status: 500, body: 'down' })));
    const paid = await buy(['broken']);
    const orderId = paid.order.order_id as string;
    const [first] = await requestsOf(orderId);
    const requestId = first!.license_request_id as string;
    const read = async () => (await api(`${base}license_requests/${requestId}`, { token: secret })).body;
    let current: Record<string, any> = await eventually(read, (latest) => latest.attempts_count >= 1);
    // Walk the schedule (about 3.9 days), one wait at a time: the clock moves past the longest
    // jittered wait only once the previous attempt is recorded (moving it further while an
    // attempt is in flight lapses its lease, and the attempt is made again: at least once).
    const waits = [1, 5, 15, 60, 180, 360, 720, 1440, 1440, 1440];
    for (const [index, minutes] of waits.entries()) {
      await moveClock(Math.ceil(minutes * 60 * 1.1) + 1);
      current = await eventually(read, (latest) => latest.attempts_count >= index + 2);
    }
    expect(current).toMatchObject({ status: 'failed', attempts_count: 11, date_next_request_attempt: null, license: null });
    expect(current.attempts.every((attempt: { trigger: string; success: boolean }) => attempt.trigger === 'automatic' && !attempt.success)).toBe(true);
    const order1 = await until(orderId, (latest) => latest.items[0].license_pending === false);
    expect(order1.items[0].license).toBeNull();
    // The email went out without the code, saying it follows.
    let emails = await eventually(() => emailsOf(orderId), (found) => found.length > 0);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.text).toContain('Activation key');
    expect(emails[0]!.text).toContain('will follow in a separate email');
    // license_request:failed twice: first failure (retry) and giving up (failed).
    const failedEvents = await eventually(
      async () => distinctEvents(receiver.received.filter((request) => request.path === '/failed-events')).filter((event) => event.data.license_request_id === requestId),
      (found) => found.length >= 2,
    );
    const statuses = failedEvents.map((event) => event.data.status);
    expect(statuses.sort()).toEqual(['failed', 'retry']);

    // The script is fixed; a re-send completes it: a short follow-up with the code, and licenses_assigned.
    plans.set('/broken', [{ status: 200, body: 'LATE-KEY' }]);
    const resent = await api(`${base}license_requests/${requestId}/retry`, { method: 'POST', token: secret });
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body).toMatchObject({ status: 'completed', license: 'LATE-KEY', attempts_count: 12 });
    expect(resent.body.attempts[11].trigger).toBe('manual');
    const done = await order(orderId);
    expect(done.items[0].license).toMatchObject({ text: 'LATE-KEY', label: 'Activation key' });
    emails = await eventually(() => emailsOf(orderId), (found) => found.length >= 2);
    expect(emails.map((email) => email.kind).sort()).toEqual(['license_follow_up', 'order_confirmation']);
    expect(emails.find((email) => email.kind === 'license_follow_up')!.text).toContain('LATE-KEY');
    await moveClock(1);
    const assignedEvents = await receiver.receivedAt('/assigned-events', 1);
    expect(assignedEvents.map((delivery) => JSON.parse(delivery.body.toString('utf8')).data.order_id)).toContain(orderId);

    // Re-sending a completed request replaces the code; no email, no event.
    plans.set('/broken', [{ status: 200, body: 'NEWER-KEY' }]);
    const replaced = await api(`${base}license_requests/${requestId}/retry`, { method: 'POST', token: secret });
    expect(replaced.status, replaced.text).toBe(200);
    expect((await order(orderId)).items[0].license.text).toBe('NEWER-KEY');
    await moveClock(1);
    await pause(300);
    expect(await emailsOf(orderId)).toHaveLength(2);
    expect(distinctEvents(receiver.received.filter((request) => request.path === '/assigned-events')).filter((event) => event.data.order_id === orderId)).toHaveLength(1);
    // The service cannot be deleted while a product links to it; a deleted service's request answers 422.
    expect((await api(`${base}license_services/${id}`, { method: 'DELETE', token: secret })).status).toBe(409);
  }, 120_000);
});

describe('list license services', () => {
  it('hands out 3 codes to 5 concurrent orders, never twice; the 2 others complete once codes are added', async () => {
    const id = await service({ name: 'Pool', type: 'list', configuration: { licenses: ['P-1', 'P-2', 'P-3'] } });
    await product('pooled', id);
    const paid = await Promise.all(Array.from({ length: 5 }, (_, n) => buy(['pooled'], `pool${n}@example.org`)));
    const items = paid.map((payment) => payment.order.items[0]);
    const served = items.filter((item) => item.license_pending === false);
    // List services are served during order creation: the payment's answer has the code.
    expect(served).toHaveLength(3);
    expect(new Set(served.map((item) => item.license.text))).toEqual(new Set(['P-1', 'P-2', 'P-3']));
    const waiting = paid.filter((payment) => payment.order.items[0].license_pending);
    for (const payment of waiting) {
      const [request] = await requestsOf(payment.order.order_id);
      expect(request).toMatchObject({ status: 'retry', last_failure_meta: { code: 'no_licenses_available', status_code: null } });
    }
    const left = await api(`${base}license_services/${id}`, { token: secret });
    expect(left.body.configuration.license_count).toBe(0);

    // An old copy of the list posted back cannot re-issue a code; new ones are used on the next attempt.
    const added = await api(`${base}license_services/${id}`, { method: 'POST', token: secret, body: { configuration: { add_licenses: ['P-1', 'P-4', 'P-5'] } } });
    expect(added.status, added.text).toBe(200);
    expect(added.body.configuration.license_count).toBe(2);
    const finished = await Promise.all(waiting.map((payment) => until(payment.order.order_id, (current) => current.items[0].license_pending === false, 70)));
    const all = [...served.map((item) => item.license.text), ...finished.map((current) => current.items[0].license.text)];
    expect(all.sort()).toEqual(['P-1', 'P-2', 'P-3', 'P-4', 'P-5']);
  });

  it('hands out one code per unit with per_quantity, joined by <br>', async () => {
    const id = await service({ name: 'Seats', type: 'list', configuration: { licenses: ['S-1', 'S-2', 'S-3', 'S-4'], per_quantity: true } });
    await product('seats', id);
    const paid = await buy([{ product_id: 'seats', quantity: 3 }]);
    expect(paid.order.items[0].license).toMatchObject({ html: 'S-1<br>S-2<br>S-3', text: 'S-1\nS-2\nS-3' });
  });
});

describe('license requests API', () => {
  it('lists, filters and refuses bad input', async () => {
    const list = await api(`${base}license_requests?status=completed&limit=2`, { token: secret });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
    for (const request of list.body.data) expect(request).toMatchObject({ object: 'license_request', status: 'completed', order: { object: 'order', customer: { object: 'customer' } } });
    const bad = await api(`${base}license_requests?status=done`, { token: secret });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_input', meta: { parameter: 'status' } });
    expect((await api(`${base}license_requests/NOPE`, { token: secret })).status).toBe(404);
    expect((await api(`${base}license_requests/NOPE/retry`, { method: 'POST', token: secret })).status).toBe(404);
    expect((await api(`${base}licenses/NOPE`, { token: secret })).status).toBe(404);
    const live = runtime.bootstrap.tokens.live_secret;
    const id = list.body.data[0].license_request_id;
    expect((await api(`${base}license_requests/${id}`, { token: live })).body.error.code).toBe('token_type_mismatch');
  });
});
