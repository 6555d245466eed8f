/**
 * From occurrences to events (events.md, shared/flows/notifications/fan-out.ts) against the emulator: one
 * event per matching active subscription, a shared fingerprint and distinct ids, the data as it
 * stood when the change happened, each body rendered once in its format, and a second run after
 * a crash making only what is missing.
 */
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { createProduct, productFields, saveProduct } from '../../../shared/modules/catalog/products';
import { productCreate } from '../../../shared/modules/catalog/product-schemas';
import { claimDue, dueEntry, findDue, listDue } from '../../../shared/work/due-work-store';
import { dueWorkConsumer } from '../../../shared/work/consumer';
import { eventFanOutWork, eventIdFor, fanOut, type DeliveryHooks } from '../../../shared/flows/notifications/fan-out';
import { withRelay } from '../../../shared/work/relay';
import { measureCost } from '../../../shared/store/request-cost';
import type { SQSEvent } from 'aws-lambda';
import { findEvent } from '../../../shared/modules/events/event-store';
import { eventSubscriptionCreate } from '../../../shared/modules/events/subscriptions/event-subscription-schemas';
import { createEventSubscription } from '../../../shared/modules/events/subscriptions/event-subscriptions';
import { parseInput } from '../../../shared/rest/validate';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { paymentSettings } from '../../modules/pricing/fixtures';
import { testPlatform } from '../../support/platform';
import { systemClock } from '../../../shared/platform/adapters/system-clock';

const harness = new Harness();
useEmulatedTable(harness);

const platform = testPlatform();
const scope = { accountId: 'FANOUT', mode: 'test' as const };

const relayed: string[] = [];
const hooks: DeliveryHooks = {
  deliveryEntry: (at, eventId, now) => dueEntry('event-delivery', at, eventId, now, now),
  relay: async (_platform, events) => void relayed.push(...events.map((event) => event.event_id)),
};

function subscribe(body: Record<string, unknown>) {
  return createEventSubscription(scope, parseInput(eventSubscriptionCreate, { event_type: 'product:created', method: 'http', destination: 'https://hooks.example.com/x', ...body }), platform);
}

/** Runs every fan-out work still due in the scope (what earlier tests' writes left). */
async function drain(): Promise<void> {
  for (const record of (await listDue('event-fanout', Date.now() + 120_000, 500)).filter((entry) => entry.account_id === scope.accountId)) {
    await fanOut(platform, (await claimDue('event-fanout', scope, record.ref, Date.now() + 120_000, 60_000))!, hooks);
  }
}

/** The fan-out work the last product write left, claimed. */
async function claimFanOut() {
  const due = (await listDue('event-fanout', Date.now() + 120_000, 500)).filter((record) => record.account_id === scope.accountId);
  expect(due).toHaveLength(1);
  return (await claimDue('event-fanout', scope, due[0]!.ref, Date.now() + 120_000, 60_000))!;
}

describe('fan-out', () => {
  it('makes one event per matching active subscription, each body rendered once in its format, the data as it stood', async () => {
    const json = await subscribe({ environment_variables: { ERP: 'web' }, show: 'product_id,name' });
    const xml = await subscribe({ format: 'xml' });
    await subscribe({ active: false });
    await subscribe({ event_type: 'product:modified' });
    const product = await createProduct(scope, productCreate.parse({ product_id: 'fan', name: 'Original', type: 'digital', prices: [{ currency: 'USD', price: 3 }] }), paymentSettings(), systemClock);
    const claim = await claimFanOut();
    // A change after the occurrence does not reach its notifications.
    await saveProduct(product, productFields(parseInput(productCreate.partial(), { name: 'Renamed' }), product, paymentSettings(), 'test'), false, systemClock);

    const made = await fanOut(platform, claim, hooks);
    expect(made.map((event) => event.event_subscription_id).sort()).toEqual([json.event_subscription_id, xml.event_subscription_id].sort());
    const [first, second] = made;
    expect(first!.fingerprint).toBe(second!.fingerprint);
    expect(first!.event_id).not.toBe(second!.event_id);
    expect(relayed).toEqual(expect.arrayContaining(made.map((event) => event.event_id)));

    const jsonEvent = (await findEvent(scope, eventIdFor(first!.fingerprint, json.event_subscription_id)))!;
    expect(jsonEvent).toMatchObject({ status: 'pending', method: 'http', format: 'json', type: 'product:created', content_type: 'application/json' });
    const body = JSON.parse(jsonEvent.body);
    expect(body).toMatchObject({ object: 'event', event_id: jsonEvent.event_id, fingerprint: jsonEvent.fingerprint, type: 'product:created', test: true, environment_variables: { ERP: 'web' } });
    expect(body.data).toEqual({ url: expect.stringContaining('/products/fan'), product_id: 'fan', name: 'Original' });
    expect(jsonEvent.data).toEqual(body.data);

    const xmlEvent = (await findEvent(scope, eventIdFor(first!.fingerprint, xml.event_subscription_id)))!;
    const parsed = new XMLParser().parse(xmlEvent.body);
    expect(parsed.event).toMatchObject({ event_id: xmlEvent.event_id, type: 'product:created', data: { product_id: 'fan', name: 'Original' } });
    // Each new event's first delivery is due, and the fan-out work is gone.
    expect(await findDue('event-delivery', scope, jsonEvent.event_id)).toBeDefined();
    expect(await findDue('event-fanout', scope, claim.record.ref)).toBeUndefined();
  });

  it('makes only what is missing when it runs again after a crash', async () => {
    await drain();
    await subscribe({ event_type: 'product:deleted' });
    await subscribe({ event_type: 'product:deleted', format: 'html' });
    const product = await createProduct(scope, productCreate.parse({ product_id: 'again', name: 'Again', type: 'digital', prices: [{ currency: 'USD', price: 3 }] }), paymentSettings(), systemClock);
    await fanOut(platform, await claimFanOut(), hooks);
    await saveProduct(product, product, true, systemClock);
    const claim = await claimFanOut();
    const first = await fanOut(platform, claim, hooks);
    expect(first).toHaveLength(2);
    // The same work run again (its removal lost in a crash) finds both events made.
    await dueEntryAgain(claim.record.ref);
    const second = await fanOut(platform, (await claimDue('event-fanout', scope, claim.record.ref, Date.now() + 120_000, 60_000))!, hooks);
    expect(second).toEqual([]);
  });

  it('makes no event when no active subscription matches', async () => {
    // An account without subscriptions.
    const other = { accountId: 'NOSUBS', mode: 'test' as const };
    await createProduct(other, productCreate.parse({ product_id: 'alone', name: 'Alone', type: 'physical', prices: [{ currency: 'USD', price: 1 }] }), paymentSettings(), systemClock);
    const due = (await listDue('event-fanout', Date.now() + 120_000, 500)).find((record) => record.account_id === 'NOSUBS')!;
    const made = await fanOut(platform, (await claimDue('event-fanout', other, due.ref, Date.now() + 120_000, 60_000))!, hooks);
    expect(made).toEqual([]);
    expect(await findDue('event-fanout', other, due.ref)).toBeUndefined();
  });
});

describe('fan-out from the queue', () => {
  const sqsEvent = (bodies: string[]): SQSEvent => ({ Records: bodies.map((body, index) => ({ messageId: `m${index}`, body }) as SQSEvent['Records'][number]) });
  const worker = dueWorkConsumer(platform, [eventFanOutWork(hooks)]);

  /** Creates a product in `at` inside a request's relay; answers the fan-out message it queued. */
  async function productMessage(at: typeof scope, productId: string): Promise<string> {
    const before = platform.queued.length;
    await withRelay(platform, () => createProduct(at, productCreate.parse({ product_id: productId, name: productId, type: 'digital', prices: [{ currency: 'USD', price: 2 }] }), paymentSettings(), systemClock));
    const sent = platform.queued.slice(before).filter((entry) => JSON.parse(entry.body).kind === 'event-fanout');
    expect(sent).toHaveLength(1);
    return sent[0]!.body;
  }

  it('names the occurrence types in the message; with no subscription for them the worker only removes the work (one read, one write)', async () => {
    const quiet = { accountId: 'QUIET', mode: 'test' as const };
    await createEventSubscription(quiet, parseInput(eventSubscriptionCreate, { event_type: 'product:deleted', method: 'http', destination: 'https://hooks.example.com/q' }), platform);
    const message = await productMessage(quiet, 'q1');
    expect(JSON.parse(message)).toMatchObject({ kind: 'event-fanout', event_types: ['product:created'] });
    const ref = JSON.parse(message).ref as string;
    expect(await findDue('event-fanout', quiet, ref)).toBeDefined();
    const { value, cost } = await measureCost(() => worker(sqsEvent([message])));
    expect(value.batchItemFailures).toEqual([]);
    expect(cost.byOperation).toEqual({ Query: 1, DeleteItem: 1 });
    expect(await findDue('event-fanout', quiet, ref)).toBeUndefined();
    // Delivered again: nothing left to remove, nothing made.
    expect((await worker(sqsEvent([message]))).batchItemFailures).toEqual([]);
  });

  it('runs the fan-out under the claim when a subscription matches, and leaves work a newer claim holds', async () => {
    const busy = { accountId: 'BUSY', mode: 'test' as const };
    const subscription = await createEventSubscription(busy, parseInput(eventSubscriptionCreate, { event_type: 'product:created', method: 'http', destination: 'https://hooks.example.com/b' }), platform);
    const message = await productMessage(busy, 'b1');
    expect((await worker(sqsEvent([message]))).batchItemFailures).toEqual([]);
    const { ref } = JSON.parse(message) as { ref: string };
    expect(await findEvent(busy, eventIdFor(ref, subscription.event_subscription_id))).toMatchObject({ type: 'product:created', status: 'pending' });
    expect(await findDue('event-fanout', busy, ref)).toBeUndefined();

    // No subscription matches, but the queued claim lapsed and another worker holds the work now: left to it.
    const quiet = { accountId: 'QUIET2', mode: 'test' as const };
    const stale = await productMessage(quiet, 'q2');
    const { ref: staleRef } = JSON.parse(stale) as { ref: string };
    const newer = await claimDue('event-fanout', quiet, staleRef, Date.now() + 120_000, 60_000);
    expect(newer).toBeDefined();
    expect((await worker(sqsEvent([stale]))).batchItemFailures).toEqual([]);
    expect(await findDue('event-fanout', quiet, staleRef)).toMatchObject({ claim_id: newer!.claimId });
  });

  it('treats malformed event types as a poison message', async () => {
    const body = JSON.stringify({ kind: 'event-fanout', account_id: 'A', mode: 'test', ref: 'R', claim_id: 'C', event_types: [5] });
    expect((await worker(sqsEvent([body]))).batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(['m0']);
  });
});

/** Writes the fan-out work of `ref` again, as if its removal had been lost. */
async function dueEntryAgain(ref: string): Promise<void> {
  const { transact } = await import('../../../shared/store/transact');
  await transact([dueEntry('event-fanout', scope, ref, Date.now(), Date.now())]);
}
