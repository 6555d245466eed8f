/**
 * Event delivery against the local DynamoDB emulator and a real HTTP receiver on 127.0.0.1
 * (outbound HTTP is the real guarded client, loopback allowed): one attempt's request (§5
 * headers, both signatures, credentials, custom header, redaction), its outcomes (2xx, 3xx,
 * 410, 5xx, timeout), and the automatic schedule run through the relay, the queue worker and
 * the sweep under a manual clock (§6.1, §6.2), plus the manual retry (§7.3).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../../shared/modules/accounts/create-account';
import { dueWorkConsumer } from '../../../../shared/work/consumer';
import { findDue, holdDue } from '../../../../shared/work/due-work-store';
import { sweepDue } from '../../../../shared/work/runner';
import { accountSignatureKey, attemptDelivery } from '../../../../shared/flows/notifications/delivery/attempt';
import { networkErrorCode } from '../../../../shared/outbound/errors';
import { eventDeliveryHandler, scheduleEventDelivery } from '../../../../shared/flows/notifications/delivery/deliver-event';
import { endEventsOfDeletedSubscription } from '../../../../shared/flows/notifications/delivery/end-deleted';
import { retryEvent } from '../../../../shared/flows/notifications/delivery/retry-event';
import { RETRY_DELAYS_MS } from '../../../../shared/flows/notifications/delivery/schedule';
import type { EventRecord } from '../../../../shared/modules/events/event-records';
import { findEvent, newEventEntry, type NewEvent } from '../../../../shared/modules/events/event-store';
import { jsonBody, verifyDelivery } from '../../../../shared/flows/notifications/body';
import { parseInput } from '../../../../shared/rest/validate';
import { eventSubscriptionCreate } from '../../../../shared/modules/events/subscriptions/event-subscription-schemas';
import { createEventSubscription, deleteEventSubscription, readEventSubscription } from '../../../../shared/modules/events/subscriptions/event-subscriptions';
import { guardedHttp } from '../../../../shared/platform/adapters/outbound-http';
import type { RecordScope } from '../../../../shared/store/entity';
import { transact } from '../../../../shared/store/transact';
import { Harness, useEmulatedTable } from '../../../local/fixtures/dynamo-harness';
import { testPlatform } from '../../../support/platform';
import { ManualClock } from '../../../../infra/local/manual-clock';
import { config } from '../../../../shared/core/config';

const harness = new Harness();
const T0 = Date.parse('2026-11-21T10:15:00Z');
const clock = new ManualClock(T0);
useEmulatedTable(harness);

/** A receiver that answers what `reply` says and records what it got. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}
let server: Server;
let base: string;
const received: Received[] = [];
let reply: (index: number) => { status: number; body?: string; hang?: boolean } = () => ({ status: 200 });

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const answer = reply(received.length - 1);
      if (answer.hang) return; // never answers: the attempt times out
      res.writeHead(answer.status, { 'Content-Type': 'text/plain' }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const platform = testPlatform({ clock, http: guardedHttp({ allowLoopback: true }, clock) });
let scope: RecordScope;
let accountKey: string;

beforeAll(async () => {
  const account = await createAccount({ company: 'Delivery Shop', email: 'owner@example.test' }, platform, config().publicUrls);
  scope = { accountId: account.account_id, mode: 'test' };
  accountKey = await accountSignatureKey(platform, scope.accountId);
});

async function subscribe(body: Record<string, unknown>) {
  return createEventSubscription(scope, parseInput(eventSubscriptionCreate, { event_type: 'order:created', method: 'http', destination: `${base}/hooks?tenant=eu`, ...body }), platform);
}

let counter = 0;
/** An event as the fan-out makes it, with its first attempt due now (unless `due` is false); answers the record. */
async function newEvent(subscriptionId: string, due = true): Promise<EventRecord> {
  const now = clock.nowMs();
  const eventId = `EV${String(++counter).padStart(6, '0')}`;
  const data = { object: 'order', order_id: `ORD${counter}` };
  const event: NewEvent = {
    event_id: eventId, account_id: scope.accountId, mode: scope.mode, type: 'order:created', fingerprint: `FP${counter}`,
    event_subscription_id: subscriptionId, method: 'http', format: 'json', data,
    body: jsonBody({ object: 'event', event_id: eventId, type: 'order:created', data }), content_type: 'application/json',
    status: 'pending', automatic_attempts: 0, attempts_count: 0, attempts: [], last_attempt_ms: null, next_attempt_ms: null,
    delivered_ms: null, last_request: null, created_ms: now, modified_ms: now,
  };
  const delivery = scheduleEventDelivery(event);
  await transact([newEventEntry(event, () => new Error('taken')), ...(due ? [delivery.entry] : [])]);
  return (await findEvent(scope, eventId))!;
}

const work = eventDeliveryHandler({ random: () => 0.5 }); // jitter factor exactly 1.0
const worker = dueWorkConsumer(platform, [work]);

/** Delayed wake-ups the worker sent for the next attempt (§6.1 waits of up to 15 minutes). */
const wakeUps: Array<{ body: string; delaySeconds: number }> = [];

/**
 * Hands what the relay or the sweep queued to the queue worker, as the event source mapping
 * would; delayed wake-ups are set aside in `wakeUps` (SQS would hold them back).
 */
async function drainQueue(): Promise<number> {
  const all = platform.queued.splice(0);
  for (const message of all) if (message.delaySeconds) wakeUps.push({ body: message.body, delaySeconds: message.delaySeconds });
  const messages = all.filter((message) => !message.delaySeconds);
  if (!messages.length) return 0;
  for (const message of messages) expect(message.queue).toBe('event-notifications');
  const event = { Records: messages.map((message, index) => ({ messageId: `m${index}`, body: message.body })) } as unknown as SQSEvent;
  const answer = await worker(event);
  expect(answer.batchItemFailures).toEqual([]);
  collectWakeUps();
  return messages.length;
}

/** Moves the delayed wake-ups the worker just sent into `wakeUps`. */
function collectWakeUps(): void {
  for (let index = platform.queued.length - 1; index >= 0; index--) {
    const message = platform.queued[index]!;
    if (message.delaySeconds) {
      wakeUps.unshift({ body: message.body, delaySeconds: message.delaySeconds });
      platform.queued.splice(index, 1);
    }
  }
}

describe('one attempt (§5)', () => {
  it('posts the stored body with the §5 headers, both signatures with the account key, Basic auth and the custom header, and redacts secrets in the record', async () => {
    reply = () => ({ status: 200, body: 'ok' });
    const subscription = await subscribe({ http_authorization_username: 'shop', http_authorization_password: 's3cret', custom_header_name: 'X-Erp-Tenant', custom_header_value: 'eu-1' });
    const event = await newEvent(subscription.event_subscription_id, false);
    received.length = 0;
    const { attempt, request } = await attemptDelivery(platform, event, subscription, { number: 1, trigger: 'automatic', timeoutMs: 5000 });
    expect(attempt).toMatchObject({ attempt: 1, trigger: 'automatic', success: true, status_code: 200, error: null, response_body: 'ok', destination: `${base}/hooks?tenant=eu`, date_ms: clock.nowMs() });
    const [got] = received;
    expect(got!.path).toBe('/hooks?tenant=eu');
    expect(got!.body.toString('utf8')).toBe(event.body);
    expect(got!.headers).toMatchObject({
      'content-type': 'application/json', 'user-agent': 'Cartwheel-Notifications/1.0', 'x-event-type': 'order:created', 'webhook-id': event.event_id,
      'webhook-timestamp': String(Math.floor(clock.nowMs() / 1000)), authorization: `Basic ${Buffer.from('shop:s3cret').toString('base64')}`, 'x-erp-tenant': 'eu-1',
    });
    expect(verifyDelivery(got!.body, got!.headers, accountKey, Math.floor(clock.nowMs() / 1000))).toBe(true);
    expect(request).toMatchObject({ method: 'POST', url: `${base}/hooks?tenant=eu`, body: event.body });
    expect(request!.headers).toMatchObject({ Authorization: '[redacted]', 'X-Erp-Tenant': '[redacted]', 'X-Service-Signature': got!.headers['x-service-signature'] });
    expect(JSON.stringify(request)).not.toContain('s3cret');
    expect(JSON.stringify(request)).not.toContain('eu-1');
  });

  it('signs with the subscription key when it has one, and sends a raw Authorization value', async () => {
    reply = () => ({ status: 204 });
    const subscription = await subscribe({ signature_key: 'subscription-key-0123456789', http_authorization: 'Bearer raw-token' });
    const event = await newEvent(subscription.event_subscription_id, false);
    received.length = 0;
    const { attempt } = await attemptDelivery(platform, event, subscription, { number: 1, trigger: 'manual', timeoutMs: 5000 });
    expect(attempt).toMatchObject({ success: true, status_code: 204, trigger: 'manual' });
    expect(received[0]!.headers.authorization).toBe('Bearer raw-token');
    expect(verifyDelivery(received[0]!.body, received[0]!.headers, 'subscription-key-0123456789', Math.floor(clock.nowMs() / 1000))).toBe(true);
    expect(verifyDelivery(received[0]!.body, received[0]!.headers, accountKey, Math.floor(clock.nowMs() / 1000))).toBe(false);
  });

  it('maps 301, 410, 500 and a timeout to the §7.1 errors, keeping 2,048 characters of the reply', async () => {
    const subscription = await subscribe({});
    const event = await newEvent(subscription.event_subscription_id, false);
    const run = () => attemptDelivery(platform, event, subscription, { number: 1, trigger: 'automatic', timeoutMs: 300 });
    reply = () => ({ status: 301 });
    expect((await run()).attempt).toMatchObject({ success: false, status_code: 301, error: { code: 'redirect' } });
    reply = () => ({ status: 410, body: 'gone' });
    expect((await run()).attempt).toMatchObject({ success: false, status_code: 410, error: { code: 'gone' }, response_body: 'gone' });
    reply = () => ({ status: 500, body: 'x'.repeat(5000) });
    const failed = (await run()).attempt;
    expect(failed).toMatchObject({ success: false, status_code: 500, error: { code: 'http_status', message: 'Destination answered 500' } });
    expect(failed.response_body).toHaveLength(2048);
    reply = () => ({ status: 200, hang: true });
    const timedOut = (await run()).attempt;
    expect(timedOut).toMatchObject({ success: false, status_code: null, error: { code: 'timeout' }, response_body: null });
    expect(timedOut.duration_ms).toBeGreaterThanOrEqual(300);
  });

  it('tells DNS, TLS and connection errors apart', () => {
    expect(networkErrorCode('getaddrinfo ENOTFOUND hooks.invalid')).toBe('dns_error');
    expect(networkErrorCode('self-signed certificate')).toBe('tls_error');
    expect(networkErrorCode('connect ECONNREFUSED 127.0.0.1:9')).toBe('connection_error');
  });
});

describe('automatic delivery (§6)', () => {
  it('fails three times then delivers: four attempts of one event_id, retry then delivered, each next time per the schedule', async () => {
    clock.set(T0 + 3_600_000);
    reply = (index) => (index < 3 ? { status: 500, body: 'db offline' } : { status: 200 });
    const subscription = await subscribe({});
    const event = await newEvent(subscription.event_subscription_id);
    received.length = 0;
    expect(await scheduleEventDelivery(event).relay(platform)).toBe(true);
    expect(await drainQueue()).toBe(1);
    let current = (await findEvent(scope, event.event_id))!;
    expect(current).toMatchObject({ status: 'retry', attempts_count: 1, automatic_attempts: 1, next_attempt_ms: clock.nowMs() + RETRY_DELAYS_MS[0]! });
    for (let failed = 1; failed <= 3; failed++) {
      const due = current.next_attempt_ms!;
      expect((await findDue('event-delivery', scope, event.event_id))?.next_ms).toBe(due);
      // The 1, 5 and 15-minute waits come back as a wake-up delayed by the wait (SQS message delay).
      const wakeUp = wakeUps.splice(0);
      expect(wakeUp.map((message) => message.delaySeconds)).toEqual([RETRY_DELAYS_MS[failed - 1]! / 1000]);
      // Not before its time: the sweep leaves it alone, and so would an early wake-up.
      await sweepDue(platform, [work], due - 1);
      expect(platform.queued).toHaveLength(0);
      expect((await worker({ Records: [{ messageId: 'early', body: wakeUp[0]!.body }] } as unknown as SQSEvent)).batchItemFailures).toEqual([]);
      expect(received).toHaveLength(failed);
      clock.set(due);
      expect((await worker({ Records: [{ messageId: 'w', body: wakeUp[0]!.body }] } as unknown as SQSEvent)).batchItemFailures).toEqual([]);
      collectWakeUps();
      expect(received).toHaveLength(failed + 1);
      // The sweep finds nothing left to hand over.
      await sweepDue(platform, [work], due);
      expect(await drainQueue()).toBe(0);
      current = (await findEvent(scope, event.event_id))!;
      if (failed < 3) expect(current).toMatchObject({ status: 'retry', attempts_count: failed + 1, next_attempt_ms: due + RETRY_DELAYS_MS[failed]! });
    }
    expect(current).toMatchObject({ status: 'delivered', attempts_count: 4, automatic_attempts: 4, next_attempt_ms: null, delivered_ms: clock.nowMs() });
    expect(current.attempts.map((attempt) => [attempt.attempt, attempt.success, attempt.status_code])).toEqual([[1, false, 500], [2, false, 500], [3, false, 500], [4, true, 200]]);
    expect(current.attempts[0]!.response_body).toBe('db offline');
    expect(new Set(received.map((request) => request.headers['webhook-id']))).toEqual(new Set([event.event_id]));
    expect(await findDue('event-delivery', scope, event.event_id)).toBeUndefined();
  });

  it('gives up after eleven automatic attempts: failed, nothing left due', async () => {
    clock.set(T0 + 10 * 3_600_000);
    reply = () => ({ status: 503 });
    const subscription = await subscribe({});
    const event = await newEvent(subscription.event_subscription_id);
    await scheduleEventDelivery(event).relay(platform);
    await drainQueue();
    for (let attempt = 2; attempt <= 11; attempt++) {
      const { next_attempt_ms: due } = (await findEvent(scope, event.event_id))!;
      // Waits of up to 15 minutes sent a wake-up; longer ones are the sweep's (it runs either way here).
      expect(wakeUps.splice(0).length).toBe(attempt <= 4 ? 1 : 0);
      clock.set(due!);
      await sweepDue(platform, [work], due!);
      expect(await drainQueue()).toBe(1);
    }
    const current = (await findEvent(scope, event.event_id))!;
    expect(current).toMatchObject({ status: 'failed', attempts_count: 11, automatic_attempts: 11, next_attempt_ms: null });
    expect(await findDue('event-delivery', scope, event.event_id)).toBeUndefined();
  });

  it('stops at once on 410 Gone', async () => {
    reply = () => ({ status: 410 });
    const subscription = await subscribe({});
    const event = await newEvent(subscription.event_subscription_id);
    await scheduleEventDelivery(event).relay(platform);
    await drainQueue();
    expect(await findEvent(scope, event.event_id)).toMatchObject({ status: 'failed', attempts_count: 1, next_attempt_ms: null });
    expect(await findDue('event-delivery', scope, event.event_id)).toBeUndefined();
    // The subscription stays active.
    expect((await readEventSubscription(scope, subscription.event_subscription_id)).active).toBe(true);
  });

  it('fails an event whose subscription was deleted, with no request', async () => {
    reply = () => ({ status: 500 });
    const subscription = await subscribe({});
    const event = await newEvent(subscription.event_subscription_id);
    await scheduleEventDelivery(event).relay(platform);
    await drainQueue();
    await deleteEventSubscription(scope, subscription.event_subscription_id);
    const { next_attempt_ms: due } = (await findEvent(scope, event.event_id))!;
    clock.set(due!);
    received.length = 0;
    await sweepDue(platform, [work], due!);
    await drainQueue();
    expect(received).toHaveLength(0);
    const current = (await findEvent(scope, event.event_id))!;
    expect(current).toMatchObject({ status: 'failed', attempts_count: 2, next_attempt_ms: null });
    expect(current.attempts[1]).toMatchObject({ attempt: 2, success: false, status_code: null, error: { code: 'subscription_deleted' } });
    expect(await findDue('event-delivery', scope, event.event_id)).toBeUndefined();
  });
});

describe('deleting a subscription (§2.2)', () => {
  it('fails its pending and retry events at delete time, leaves delivered ones, other subscriptions and an attempt in flight alone', async () => {
    clock.set(T0 + 40 * 24 * 3_600_000);
    const subscription = await subscribe({});
    const other = await subscribe({});
    const id = subscription.event_subscription_id;
    reply = () => ({ status: 500 });
    const retrying = await newEvent(id);
    const otherRetrying = await newEvent(other.event_subscription_id);
    for (const event of [retrying, otherRetrying]) await scheduleEventDelivery(event).relay(platform);
    await drainQueue();
    reply = () => ({ status: 200 });
    const delivered = await newEvent(id);
    await scheduleEventDelivery(delivered).relay(platform);
    await drainQueue();
    const pending = await newEvent(id);
    const inFlight = await newEvent(id);
    expect(await holdDue('event-delivery', scope, inFlight.event_id, clock.nowMs(), 60_000)).toBeDefined();
    expect((await findEvent(scope, retrying.event_id))!.status).toBe('retry');

    await deleteEventSubscription(scope, id);
    received.length = 0;
    expect(await endEventsOfDeletedSubscription(platform, scope, id)).toBe(2);
    expect(received).toHaveLength(0);
    for (const [event, attempts] of [[retrying, 2], [pending, 1]] as const) {
      const current = (await findEvent(scope, event.event_id))!;
      expect(current).toMatchObject({ status: 'failed', attempts_count: attempts, next_attempt_ms: null });
      expect(current.attempts.at(-1)).toMatchObject({ attempt: attempts, success: false, status_code: null, error: { code: 'subscription_deleted' } });
      expect(await findDue('event-delivery', scope, event.event_id)).toBeUndefined();
    }
    expect(await findEvent(scope, delivered.event_id)).toMatchObject({ status: 'delivered', attempts_count: 1 });
    expect(await findEvent(scope, otherRetrying.event_id)).toMatchObject({ status: 'retry', attempts_count: 1 });
    // The held one is left to its holder; once the hold lapses the worker fails it the same way.
    expect(await findEvent(scope, inFlight.event_id)).toMatchObject({ status: 'pending', attempts_count: 0 });
    clock.set(clock.nowMs() + 61_000);
    await sweepDue(platform, [work], clock.nowMs());
    await drainQueue();
    expect(await findEvent(scope, inFlight.event_id)).toMatchObject({ status: 'failed', attempts: [{ error: { code: 'subscription_deleted' } }] });
    // A second pass finds nothing open.
    expect(await endEventsOfDeletedSubscription(platform, scope, id)).toBe(0);
  });
});

describe('manual retry (§7.3)', () => {
  it('leaves status and schedule on failure, delivers and cancels the schedule on success, both logged as manual', async () => {
    reply = () => ({ status: 500 });
    const subscription = await subscribe({});
    const event = await newEvent(subscription.event_subscription_id);
    await scheduleEventDelivery(event).relay(platform);
    await drainQueue();
    const scheduled = (await findEvent(scope, event.event_id))!;
    expect(scheduled.status).toBe('retry');

    const failed = await retryEvent(platform, scope, event.event_id);
    expect(failed.outcome.attempt).toMatchObject({ attempt: 2, trigger: 'manual', success: false });
    expect(failed.event).toMatchObject({ status: 'retry', next_attempt_ms: scheduled.next_attempt_ms, attempts_count: 2, automatic_attempts: 1 });
    expect(await findDue('event-delivery', scope, event.event_id)).toMatchObject({ claim_id: null, next_ms: scheduled.next_attempt_ms });

    reply = () => ({ status: 200 });
    const delivered = await retryEvent(platform, scope, event.event_id);
    expect(delivered.event).toMatchObject({ status: 'delivered', next_attempt_ms: null, attempts_count: 3 });
    expect(delivered.event.attempts.map((attempt) => attempt.trigger)).toEqual(['automatic', 'manual', 'manual']);
    expect(await findDue('event-delivery', scope, event.event_id)).toBeUndefined();
    expect(await findEvent(scope, event.event_id)).toMatchObject({ status: 'delivered', attempts_count: 3 });
  });

  it('answers in_use while an attempt holds the event, and invalid_state once its subscription is deleted', async () => {
    const subscription = await subscribe({});
    const event = await newEvent(subscription.event_subscription_id);
    // The relay claimed and queued it: an automatic attempt is under way.
    await scheduleEventDelivery(event).relay(platform);
    await expect(retryEvent(platform, scope, event.event_id)).rejects.toMatchObject({ status: 409, code: 'in_use' });
    platform.queued.splice(0);
    // A delivered event has no record: a retry makes one for itself, so a second concurrent retry waits its turn.
    const other = await newEvent(subscription.event_subscription_id);
    expect(await holdDue('event-delivery', scope, other.event_id, clock.nowMs(), 60_000)).toBeDefined();
    await expect(retryEvent(platform, scope, other.event_id)).rejects.toMatchObject({ status: 409, code: 'in_use' });
    await deleteEventSubscription(scope, subscription.event_subscription_id);
    await expect(retryEvent(platform, scope, event.event_id)).rejects.toMatchObject({ status: 422, code: 'invalid_state' });
  });

  it('retries a failed event too: success delivers it', async () => {
    reply = () => ({ status: 410 });
    const subscription = await subscribe({});
    const event = await newEvent(subscription.event_subscription_id);
    await scheduleEventDelivery(event).relay(platform);
    await drainQueue();
    expect((await findEvent(scope, event.event_id))!.status).toBe('failed');
    reply = () => ({ status: 200 });
    const { event: after } = await retryEvent(platform, scope, event.event_id);
    expect(after).toMatchObject({ status: 'delivered', attempts_count: 2 });
    expect(await findDue('event-delivery', scope, event.event_id)).toBeUndefined();
  });
});
