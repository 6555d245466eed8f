/**
 * Event subscriptions against the real local DynamoDB emulator: the secret properties are
 * sealed in the stored item (never in clear), opened for delivery by `activeSubscriptionsFor`,
 * re-sealed only when they change; modes are apart; a refused destination writes nothing; the
 * offset list counts creations and deletions.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../../shared/rest/validate';
import { eventSubscriptionCreate, eventSubscriptionUpdate } from '../../../shared/modules/events/subscriptions/event-subscription-schemas';
import { allEventSubscriptions, eventSubscriptionKey, eventSubscriptionPartition } from '../../../shared/modules/events/subscriptions/event-subscription-store';
import {
  activeSubscriptionsFor,
  createEventSubscription,
  deleteEventSubscription,
  openSubscription,
  readEventSubscription,
  updateEventSubscription,
} from '../../../shared/modules/events/subscriptions/event-subscriptions';
import { db, table } from '../../../shared/store/client';
import type { RecordScope } from '../../../shared/store/entity';
import { readOffsetPage } from '../../../shared/store/offset-index';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { testPlatform } from '../../support/platform';

const harness = new Harness();
useEmulatedTable(harness);

const platform = testPlatform();
const test = { accountId: 'ACCT', mode: 'test' as const };
const live = { accountId: 'ACCT', mode: 'live' as const };
const SECRET_VALUES = ['s3cret-password', 'Bearer very-secret-token', 'tenant-secret-value', 'signing-key-0123456789'];

function create(body: Record<string, unknown>, scope: RecordScope = test) {
  return createEventSubscription(scope, parseInput(eventSubscriptionCreate, { event_type: 'order:created', method: 'http', destination: 'https://hooks.example.com/x', ...body }), platform);
}

async function rawItem(scope: RecordScope, id: string): Promise<Record<string, unknown>> {
  const answer = await db().send(new GetCommand({ TableName: table(), Key: eventSubscriptionKey(scope, id) }));
  return answer.Item!;
}

describe('event subscription storage', () => {
  it('stores the secret properties sealed, never in clear, and opens them for delivery', async () => {
    const created = await create({
      http_authorization_username: 'shop', http_authorization_password: SECRET_VALUES[0], custom_header_name: 'X-Tenant', custom_header_value: SECRET_VALUES[2],
      signature_key: SECRET_VALUES[3], environment_variables: { ERP_CHANNEL: 'web' },
    });
    const item = await rawItem(test, created.event_subscription_id);
    const text = JSON.stringify(item);
    for (const secret of SECRET_VALUES) expect(text).not.toContain(secret);
    for (const name of ['http_authorization_password', 'http_authorization', 'custom_header_value', 'signature_key', 'secrets']) expect(item).not.toHaveProperty(name);
    expect(item.secrets_sealed).toMatch(/^local:/);
    expect(item).toMatchObject({ http_authorization_username: 'shop', custom_header_name: 'X-Tenant', environment_variables: { ERP_CHANNEL: 'web' } });

    const [opened] = (await activeSubscriptionsFor(test, 'order:created', platform.secrets)).filter((entry) => entry.event_subscription_id === created.event_subscription_id);
    expect(opened!.secrets).toEqual({ http_authorization_password: SECRET_VALUES[0], http_authorization: null, custom_header_value: SECRET_VALUES[2], signature_key: SECRET_VALUES[3] });
  });

  it('stores no sealed value when no secret is set, and seals again only when a secret changes', async () => {
    const plain = await create({ comments: 'no secrets' });
    expect((await rawItem(test, plain.event_subscription_id)).secrets_sealed).toBeNull();

    const withKey = await create({ signature_key: SECRET_VALUES[3] });
    const sealed = (await rawItem(test, withKey.event_subscription_id)).secrets_sealed;
    const current = await readEventSubscription(test, withKey.event_subscription_id);
    await updateEventSubscription(test, current.event_subscription_id, parseInput(eventSubscriptionUpdate, { comments: 'renamed' }), platform);
    expect((await rawItem(test, withKey.event_subscription_id)).secrets_sealed).toBe(sealed);
    const again = await readEventSubscription(test, withKey.event_subscription_id);
    const updated = await updateEventSubscription(test, again.event_subscription_id, parseInput(eventSubscriptionUpdate, { http_authorization: SECRET_VALUES[1] }), platform);
    expect(updated.secrets).toEqual({ http_authorization_password: null, http_authorization: SECRET_VALUES[1], custom_header_value: null, signature_key: SECRET_VALUES[3] });
    const item = await rawItem(test, withKey.event_subscription_id);
    expect(item.secrets_sealed).not.toBe(sealed);
    expect(JSON.stringify(item)).not.toContain(SECRET_VALUES[1]);
  });

  it('binds the sealed value to its subscription: it does not open as another one', async () => {
    const first = await create({ signature_key: SECRET_VALUES[3] });
    const second = await create({});
    const swapped = { ...(await readEventSubscription(test, second.event_subscription_id)), secrets_sealed: first.secrets_sealed };
    await expect(openSubscription(swapped, platform.secrets)).rejects.toThrow();
    await expect(openSubscription(await readEventSubscription(test, first.event_subscription_id), platform.secrets)).resolves.toMatchObject({ secrets: { signature_key: SECRET_VALUES[3] } });
  });

  it('gives fan-out only active subscriptions of the type and the mode asked', async () => {
    const paused = await create({ event_type: 'invoice:paid', active: false });
    const running = await create({ event_type: 'invoice:paid' });
    const inLive = await create({ event_type: 'invoice:paid' }, live);
    const ids = (await activeSubscriptionsFor(test, 'invoice:paid', platform.secrets)).map((entry) => entry.event_subscription_id);
    expect(ids).toEqual([running.event_subscription_id]);
    expect(ids).not.toContain(paused.event_subscription_id);
    expect((await activeSubscriptionsFor(live, 'invoice:paid', platform.secrets)).map((entry) => entry.event_subscription_id)).toEqual([inLive.event_subscription_id]);
    await expect(readEventSubscription(test, inLive.event_subscription_id)).rejects.toMatchObject({ status: 400, code: 'token_type_mismatch' });
    await expect(readEventSubscription(test, 'NOPE')).rejects.toMatchObject({ status: 404 });
  });

  it('writes nothing for a refused destination', async () => {
    const before = (await allEventSubscriptions(test)).length;
    const refusing = testPlatform({ http: { ...platform.http, allowsDestination: () => Promise.resolve(false) } });
    const body = parseInput(eventSubscriptionCreate, { event_type: 'order:created', method: 'http', destination: 'http://10.0.0.1/x' });
    await expect(createEventSubscription(test, body, refusing)).rejects.toMatchObject({ status: 400, meta: { property: 'destination', reason: 'destination_not_allowed' } });
    // Email destinations are not addresses to connect to: the guard is not asked.
    const email = parseInput(eventSubscriptionCreate, { event_type: 'order:created', method: 'email', destination: 'ops@example.com' });
    await expect(createEventSubscription(test, email, refusing)).resolves.toMatchObject({ method: 'email' });
    expect((await allEventSubscriptions(test)).length).toBe(before + 1);
  });

  it('counts creations and deletions in the offset listing', async () => {
    const scope = { accountId: 'COUNTED', mode: 'test' as const };
    const made = [await create({}, scope), await create({}, scope), await create({}, scope)];
    expect((await readOffsetPage(eventSubscriptionPartition(scope), 0, 10, false)).total).toBe(3);
    await deleteEventSubscription(scope, made[1]!.event_subscription_id);
    const page = await readOffsetPage(eventSubscriptionPartition(scope), 0, 10, true);
    expect(page.total).toBe(2);
    expect(page.items.map((item) => item.event_subscription_id)).toEqual([made[2]!.event_subscription_id, made[0]!.event_subscription_id]);
  });
});
