/**
 * Event subscriptions over HTTP against the local runtime (events.md §2, §3): create, read,
 * list with filters, partial update and delete; the README example round-trips; secret
 * properties are shown to the owner and to `event_subscriptions:update` holders only, and are
 * sealed in the stored item; loopback destinations are allowed locally, private ones refused;
 * test and live are apart; limited tokens get 403.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalStore } from '../../infra/local/offline-store';
import { eventSubscriptionKey } from '../../shared/modules/events/subscriptions/event-subscription-store';
import { db, table } from '../../shared/store/client';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let owner: string;
let liveOwner: string;
let stopped = false;

const README = {
  event_type: 'order:created', method: 'http', format: 'json',
  destination: 'https://erp.example.test/hooks/orders',
  http_authorization_username: 'shop', http_authorization_password: 's3cret',
  custom_header_name: 'X-Erp-Tenant', custom_header_value: 'eu-1',
  environment_variables: { ERP_CHANNEL: 'web' },
  expand: 'customer,items.product', hide: 'items.product.images', timezone: 'Europe/Berlin',
};
const SECRET_NAMES = ['http_authorization_password', 'http_authorization', 'custom_header_value', 'signature_key'];
let readmeId: string;

async function secretToken(permissions: unknown[]): Promise<string> {
  const minted = await api(`${base}auths/secret?test=true`, { method: 'POST', token: owner, body: { comments: 'e2e', permissions } });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.token;
}

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  owner = runtime.bootstrap.tokens.test_secret;
  liveOwner = runtime.bootstrap.tokens.live_secret;
});
afterAll(async () => {
  if (!stopped) expect(await runtime.stop()).toBe(0);
});

describe('managing event subscriptions', () => {
  it('creates the README example (201, Location) and returns every property, secrets included for the owner', async () => {
    const created = await api(`${base}event_subscriptions`, { method: 'POST', token: owner, body: README });
    expect(created.status, created.text).toBe(201);
    readmeId = created.body.event_subscription_id;
    expect(readmeId).toMatch(/^[0-9A-Z]{12}$/);
    expect(created.headers.get('location')).toBe(`${base}event_subscriptions/${readmeId}`);
    expect(created.body).toEqual({
      object: 'event_subscription', url: `${base}event_subscriptions/${readmeId}`, event_subscription_id: readmeId, test: true,
      ...README, active: true, comments: null, http_authorization: null, signature_key: null, show: null, hosted_function: null,
      date_created: expect.any(String), date_modified: expect.any(String),
    });
    const read = await api(`${base}event_subscriptions/${readmeId}`, { token: owner });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('updates partially (null clears, read-only properties ignored) and validates the result', async () => {
    const updated = await api(`${base}event_subscriptions/${readmeId}`, {
      method: 'POST', token: owner,
      body: { comments: 'ERP', active: false, timezone: null, object: 'nope', url: 'x', test: false, date_created: '2000-01-01', event_subscription_id: 'X', hosted_function: 'https://x.test' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ event_subscription_id: readmeId, comments: 'ERP', active: false, timezone: null, test: true, hosted_function: null, custom_header_value: 'eu-1' });
    const switched = await api(`${base}event_subscriptions/${readmeId}`, { method: 'POST', token: owner, body: { method: 'email' } });
    expect(switched.status).toBe(400);
    expect(switched.body.error.meta).toMatchObject({ property: 'destination' });
    const posted = await api(`${base}event_subscriptions/${readmeId}`, { method: 'POST', token: owner, body: updated.body });
    expect(posted.status, posted.text).toBe(200);
    expect({ ...posted.body, date_modified: null }).toEqual({ ...updated.body, date_modified: null });
  });

  it('lists as an offset list, oldest first, with filters event_type, method and active', async () => {
    for (const body of [
      { event_type: 'payment:completed', method: 'email', destination: 'ops@example.com' },
      { event_type: 'order:created', method: 'http', destination: 'http://localhost:9/hook', format: 'xml' },
    ]) {
      const created = await api(`${base}event_subscriptions`, { method: 'POST', token: owner, body });
      expect(created.status, created.text).toBe(201);
    }
    const all = await api(`${base}event_subscriptions`, { token: owner });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(['current_page', 'current_page_url', 'data', 'next_page_offset', 'next_page_url', 'object', 'previous_page_offset', 'previous_page_url', 'total_items', 'total_pages']);
    expect(all.body).toMatchObject({ object: 'list', total_items: 3, total_pages: 1, current_page: 1 });
    expect(all.body.data[0].event_subscription_id).toBe(readmeId);
    const newest = await api(`${base}event_subscriptions?desc=true&limit=1`, { token: owner });
    expect(newest.body).toMatchObject({ total_items: 3, total_pages: 3, next_page_offset: 1 });
    expect(newest.body.data[0].format).toBe('xml');
    const emails = await api(`${base}event_subscriptions?method=email`, { token: owner });
    expect(emails.body.data.map((entry: any) => entry.event_type)).toEqual(['payment:completed']);
    const orders = await api(`${base}event_subscriptions?event_type=order:created&active=true`, { token: owner });
    expect(orders.body.data.map((entry: any) => entry.destination)).toEqual(['http://localhost:9/hook']);
    expect((await api(`${base}event_subscriptions?sort_by=name`, { token: owner })).status).toBe(400);
  });

  it('allows loopback destinations locally and refuses private, link-local and metadata ones', async () => {
    for (const destination of ['http://127.0.0.1:8080/hook', 'http://[::1]:9/x', 'http://localhost/x']) {
      const created = await api(`${base}event_subscriptions`, { method: 'POST', token: owner, body: { event_type: 'order:created', method: 'http', destination } });
      expect(created.status, `${destination}: ${created.text}`).toBe(201);
      expect((await api(`${base}event_subscriptions/${created.body.event_subscription_id}`, { method: 'DELETE', token: owner })).status).toBe(204);
    }
    for (const destination of ['http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/x', 'http://[::ffff:192.168.1.1]/x', 'http://100.64.0.1/x']) {
      const refused = await api(`${base}event_subscriptions`, { method: 'POST', token: owner, body: { event_type: 'order:created', method: 'http', destination } });
      expect(refused.status, destination).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'destination', reason: 'destination_not_allowed' } });
    }
    const moved = await api(`${base}event_subscriptions/${readmeId}`, { method: 'POST', token: owner, body: { destination: 'http://192.168.0.10/hook' } });
    expect(moved.body.error?.meta).toMatchObject({ property: 'destination', reason: 'destination_not_allowed' });
  });

  it('deletes (204), after which the subscription is gone', async () => {
    const created = await api(`${base}event_subscriptions`, { method: 'POST', token: owner, body: { event_type: 'refund:created_success', method: 'email', destination: 'a@example.com' } });
    const id = created.body.event_subscription_id;
    const deleted = await api(`${base}event_subscriptions/${id}`, { method: 'DELETE', token: owner });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api(`${base}event_subscriptions/${id}`, { token: owner })).status).toBe(404);
    expect((await api(`${base}event_subscriptions/${id}`, { method: 'DELETE', token: owner })).status).toBe(404);
  });
});

describe('who sees what', () => {
  it('leaves the secret properties out for a token with only event_subscriptions:read, and shows them with :update', async () => {
    const reader = await secretToken([{ resource: 'event_subscriptions', methods: ['read'] }]);
    const read = await api(`${base}event_subscriptions/${readmeId}`, { token: reader });
    expect(read.status, read.text).toBe(200);
    for (const name of SECRET_NAMES) expect(read.body, name).not.toHaveProperty(name);
    expect(read.body).toMatchObject({ http_authorization_username: 'shop', custom_header_name: 'X-Erp-Tenant' });
    const listed = await api(`${base}event_subscriptions`, { token: reader });
    for (const entry of listed.body.data) for (const name of SECRET_NAMES) expect(entry).not.toHaveProperty(name);
    expect((await api(`${base}event_subscriptions/${readmeId}`, { method: 'POST', token: reader, body: { comments: 'x' } })).status).toBe(403);
    expect((await api(`${base}event_subscriptions`, { method: 'POST', token: reader, body: README })).status).toBe(403);

    const updater = await secretToken([{ resource: 'event_subscriptions', methods: ['read', 'update'] }]);
    const full = await api(`${base}event_subscriptions/${readmeId}`, { token: updater });
    expect(full.body).toMatchObject({ http_authorization_password: 's3cret', custom_header_value: 'eu-1', http_authorization: null, signature_key: null });
    const creator = await secretToken([{ resource: 'event_subscriptions', methods: ['create'] }]);
    const created = await api(`${base}event_subscriptions`, { method: 'POST', token: creator, body: { ...README, signature_key: 'k'.repeat(16) } });
    expect(created.status, created.text).toBe(201);
    for (const name of SECRET_NAMES) expect(created.body, name).not.toHaveProperty(name);
    expect((await api(`${base}event_subscriptions/${created.body.event_subscription_id}`, { token: owner })).body.signature_key).toBe('k'.repeat(16));
  });

  it('refuses limited tokens (403) and tokens without the right (403)', async () => {
    const shopper = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: owner })).body.token;
    for (const [method, path] of [['GET', 'event_subscriptions'], ['POST', 'event_subscriptions'], ['GET', `event_subscriptions/${readmeId}`], ['DELETE', `event_subscriptions/${readmeId}`]] as const) {
      const answer = await api(`${base}${path}`, { method, token: shopper, ...(method === 'POST' ? { body: README } : {}) });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.error.code).toBe('insufficient_permissions');
    }
    const orders = await secretToken([{ resource: 'orders', methods: ['read'] }]);
    expect((await api(`${base}event_subscriptions`, { token: orders })).status).toBe(403);
  });

  it('keeps test and live apart: the other mode answers token_type_mismatch, lists show only their mode', async () => {
    const live = await api(`${base}event_subscriptions`, { method: 'POST', token: liveOwner, body: { event_type: 'invoice:paid', method: 'email', destination: 'live@example.com' } });
    expect(live.status, live.text).toBe(201);
    expect(live.body.test).toBe(false);
    const liveId = live.body.event_subscription_id;
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const answer = await api(`${base}event_subscriptions/${liveId}`, { method, token: owner, ...(method === 'POST' ? { body: { comments: 'x' } } : {}) });
      expect(answer.status, method).toBe(400);
      expect(answer.body.error.code).toBe('token_type_mismatch');
    }
    expect((await api(`${base}event_subscriptions/${readmeId}`, { token: liveOwner })).body.error.code).toBe('token_type_mismatch');
    const liveList = await api(`${base}event_subscriptions`, { token: liveOwner });
    expect(liveList.body.data.map((entry: any) => entry.event_subscription_id)).toEqual([liveId]);
  });
});

describe('storage', () => {
  it('holds the secret properties sealed, never in clear (read from the stopped runtime data)', async () => {
    expect(await runtime.stop()).toBe(0);
    stopped = true;
    const store = await openLocalStore(runtime.dataDir, runtime.port);
    try {
      const answer = await db().send(new GetCommand({ TableName: table(), Key: eventSubscriptionKey({ accountId: account, mode: 'test' }, readmeId) }));
      const item = answer.Item!;
      expect(item.http_authorization_username).toBe('shop');
      expect(item.secrets_sealed).toMatch(/^local:/);
      const text = JSON.stringify(item);
      for (const secret of ['s3cret', 'eu-1']) expect(text).not.toContain(secret);
      for (const name of SECRET_NAMES) expect(item).not.toHaveProperty(name);
    } finally {
      await store.close();
    }
  });
});
