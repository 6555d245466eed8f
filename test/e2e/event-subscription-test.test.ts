/**
 * The sample delivery over HTTP (events.md §10) against a real local receiver: one signed
 * notification through the subscription (its credentials, custom header and key), active or
 * not, answered as `event_test_result` with the request's secrets redacted; a refusing receiver
 * is a 200 with `success: false`; nothing is stored. Also over HTTP: deleting a subscription
 * fails its open events at once (§2.2), and email delivery to the local outbox (§8).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDelivery } from '../../shared/flows/notifications/body';
import { startReceiver, type Received, type Receiver } from '../support/receiver';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const KEY = 'receiver-signing-key-0123';

let runtime: RuntimeProcess;
let base: string;
let secret: string;
let receiver: Receiver;
let receiverUrl: string;
let received: Received[];
/** Status each path answers; a path not listed answers 200. */
const statuses = new Map<string, number>([['/refuse', 401]]);

async function moveClock(seconds: number): Promise<void> {
  const moved = await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: seconds } });
  expect(moved.status, moved.text).toBe(200);
}

/** Polls (real time) until `check` answers a value. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function subscribe(body: Record<string, unknown>): Promise<string> {
  const created = await api(`${base}event_subscriptions`, { method: 'POST', token: secret, body: { method: 'http', signature_key: KEY, ...body } });
  expect(created.status, created.text).toBe(201);
  return created.body.event_subscription_id;
}

beforeAll(async () => {
  receiver = await startReceiver((path) => {
    const status = statuses.get(path);
    return status === undefined ? undefined : { status, body: 'unauthorized' };
  });
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

describe('POST /event_subscriptions/{id}/test', () => {
  it('sends one signed sample through an inactive subscription with its credentials and header', async () => {
    const id = await subscribe({
      event_type: 'order:created',
      destination: `${receiverUrl}/ok`,
      active: false,
      http_authorization_username: 'erp',
      http_authorization_password: 'hunter2-secret',
      custom_header_name: 'X-Tenant',
      custom_header_value: 'tenant-secret',
    });
    const answer = await api(`${base}event_subscriptions/${id}/test`, { method: 'POST', token: secret });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ object: 'event_test_result', success: true, status_code: 200, error: null, response_body: 'ok' });
    expect(answer.body.event_id).toMatch(/^test_/);
    expect(typeof answer.body.duration_ms).toBe('number');
    expect(Object.keys(answer.body)).toEqual(['object', 'success', 'event_id', 'status_code', 'duration_ms', 'error', 'response_body', 'request']);

    const got = received.filter((entry) => entry.path === '/ok');
    expect(got).toHaveLength(1);
    const delivery = got[0]!;
    expect(verifyDelivery(delivery.body, delivery.headers as Record<string, string>, KEY, Math.floor(Date.now() / 1000))).toBe(true);
    expect(delivery.headers.authorization).toBe(`Basic ${Buffer.from('erp:hunter2-secret').toString('base64')}`);
    expect(delivery.headers['x-tenant']).toBe('tenant-secret');
    expect(delivery.headers['x-event-type']).toBe('order:created');
    const body = JSON.parse(delivery.body.toString('utf8'));
    expect(body).toMatchObject({ object: 'event', type: 'order:created', test: true, event_id: answer.body.event_id, data: { object: 'order' } });
    expect(body.fingerprint).toMatch(/^test_/);
    expect(body.data.order_id).toMatch(/^sample_/);

    const request = answer.body.request;
    expect(request).toMatchObject({ method: 'POST', url: `${receiverUrl}/ok`, body: delivery.body.toString('utf8') });
    expect(request.headers.Authorization).toBe('[redacted]');
    expect(request.headers['X-Tenant']).toBe('[redacted]');
    expect(request.headers['X-Event-Type']).toBe('order:created');
    expect(answer.text).not.toContain('hunter2-secret');
    expect(answer.text).not.toContain('tenant-secret');

    // Nothing stored.
    const events = await api(`${base}events?event_subscription_id=${id}`, { token: secret });
    expect(events.status, events.text).toBe(200);
    expect(events.body.data).toEqual([]);
  });

  it('answers 200 with success false when the receiver refuses, and takes data and the trailing-segment form', async () => {
    const id = await subscribe({ event_type: 'product:created', destination: `${receiverUrl}/refuse` });
    const refused = await api(`${base}event_subscriptions/${id}/test`, { method: 'POST', token: secret });
    expect(refused.status, refused.text).toBe(200);
    expect(refused.body).toMatchObject({
      object: 'event_test_result',
      success: false,
      status_code: 401,
      error: { code: 'http_status', message: 'Destination answered 401' },
      response_body: 'unauthorized',
    });

    const legacy = await api(`${base}event_subscriptions/${id}/test/anything-at-all`, { method: 'POST', token: secret, body: { data: { product_id: 'mine', name: 'Given' } } });
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.body.status_code).toBe(401);
    const got = received.filter((entry) => entry.path === '/refuse');
    expect(got).toHaveLength(2);
    const body = JSON.parse(got[1]!.body.toString('utf8'));
    expect(body.data).toEqual({ product_id: 'mine', name: 'Given' });
    expect(body.event_id).toBe(legacy.body.event_id);

    // Nothing stored, nothing retried.
    const events = await api(`${base}events?event_subscription_id=${id}`, { token: secret });
    expect(events.body.data).toEqual([]);
  });

  it('refuses an unknown subscription, a limited token and a non-object data', async () => {
    expect((await api(`${base}event_subscriptions/nope/test`, { method: 'POST', token: secret })).status).toBe(404);
    const id = await subscribe({ event_type: 'product:created', destination: `${receiverUrl}/ok2` });
    const bad = await api(`${base}event_subscriptions/${id}/test`, { method: 'POST', token: secret, body: { data: [1, 2] } });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'data' } });
    expect(received.filter((entry) => entry.path === '/ok2')).toHaveLength(0);
  });
});

describe('DELETE /event_subscriptions/{id} (§2.2)', () => {
  it('fails the subscription\'s retry events at delete time', async () => {
    statuses.set('/down', 500);
    const id = await subscribe({ event_type: 'product:modified', destination: `${receiverUrl}/down` });
    expect((await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'deleted-sub', name: 'P', type: 'digital', prices: [{ currency: 'USD', price: 5 }] } })).status).toBe(201);
    expect((await api(`${base}products/deleted-sub`, { method: 'POST', token: secret, body: { name: 'Q' } })).status).toBe(200);
    await moveClock(1);
    const retrying = await eventually('an event in retry', async () => {
      const list = await api(`${base}events?event_subscription_id=${id}`, { token: secret });
      return list.body.data.find((event: { status: string }) => event.status === 'retry');
    });
    expect((await api(`${base}event_subscriptions/${id}`, { method: 'DELETE', token: secret })).status).toBe(204);
    const after = await api(`${base}events/${retrying.event_id}`, { token: secret });
    expect(after.body).toMatchObject({ status: 'failed', attempts_count: 2, date_next_delivery_attempt: null });
    expect(after.body.attempts[1]).toMatchObject({ success: false, error: { code: 'subscription_deleted' } });
  });
});

describe('email delivery (§8)', () => {
  it('sends a json notification to the outbox: [TEST] subject, X-Event-Id and X-Event-Type, the body pretty-printed as text/plain', async () => {
    const general = await api(`${base}settings/general`, { token: secret });
    expect(general.status, general.text).toBe(200);
    const company = general.body.company_name ?? 'Cartwheel';
    await subscribe({ event_type: 'product:created', method: 'email', destination: 'hooks@example.test' });
    expect((await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'mailed', name: 'Mailed', type: 'digital', prices: [{ currency: 'USD', price: 7 }] } })).status).toBe(201);
    await moveClock(1);
    const message = await eventually('the notification email', async () => {
      const outbox = await api(`${runtime.url}/_local/outbox`);
      return outbox.body.data.find((entry: { kind: string; to: string }) => entry.kind === 'event_notification' && entry.to === 'hooks@example.test');
    });
    expect(message.subject).toBe(`[TEST] product:created notification from ${company}`);
    const text = await (await fetch(message.text_url)).text();
    const body = JSON.parse(text);
    expect(body).toMatchObject({ object: 'event', type: 'product:created', test: true, data: { object: 'product', product_id: 'mailed', name: 'Mailed' } });
    expect(text).toBe(JSON.stringify(body, null, 2));
    const eml = await (await fetch(`${runtime.url}/_local/outbox/${message.message_id}.eml`)).text();
    expect(eml).toContain(`X-Event-Id: ${body.event_id}`);
    expect(eml).toContain('X-Event-Type: product:created');
    expect(eml).toContain('Content-Type: text/plain; charset=UTF-8');
    expect(eml).not.toContain('text/html');
    const events = await api(`${base}events/${body.event_id}`, { token: secret });
    expect(events.body).toMatchObject({ status: 'delivered', method: 'email' });

    // The sample delivery of an email subscription is an email too, and is not stored.
    const emailSubscription = (await api(`${base}event_subscriptions?method=email`, { token: secret })).body.data[0].event_subscription_id;
    const sample = await api(`${base}event_subscriptions/${emailSubscription}/test`, { method: 'POST', token: secret });
    expect(sample.status, sample.text).toBe(200);
    expect(sample.body).toMatchObject({ object: 'event_test_result', success: true, status_code: null, error: null, request: { method: 'EMAIL', url: 'mailto:hooks@example.test' } });
    const sampleMessage = await eventually('the sample email', async () => {
      const outbox = await api(`${runtime.url}/_local/outbox`);
      return outbox.body.data.find((entry: { message_id: string; to: string }) => entry.message_id !== message.message_id && entry.to === 'hooks@example.test');
    });
    expect(sampleMessage.subject).toBe(`[TEST] product:created notification from ${company}`);
    expect(JSON.parse(await (await fetch(sampleMessage.text_url)).text()).data.product_id).toMatch(/^sample_/);
    expect((await api(`${base}events/${sample.body.event_id}`, { token: secret })).status).toBe(404);
  });
});
