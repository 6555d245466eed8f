/**
 * License services over HTTP against the local runtime (licenses.md §2, §3, §12): create, read,
 * list with filter and sort orders, partial update, post-back and delete; secrets and the codes
 * are shown to the owner and `license_services:update` holders only, and are kept out of the
 * service item; loopback URLs are allowed locally, private ones refused; test and live are
 * apart; limited tokens get 403; `licenses` replaces and `add_licenses` appends without
 * duplicates, never bringing back an issued code, and more than 10,000 codes are refused with
 * nothing changed; products link to services of their mode, and a linked service cannot be
 * deleted.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalStore } from '../../infra/local/offline-store';
import { takeCodes } from '../../shared/modules/licenses/services';
import { licenseServiceKey } from '../../shared/modules/licenses/services/license-service-store';
import { db, table } from '../../shared/store/client';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let owner: string;
let liveOwner: string;
let stopped = false;

const REMOTE = {
  name: 'Photo Editor keys',
  label: 'Serial number',
  instructions: '<p>Open <b>Help &gt; Register</b> and paste the serial number.</p>',
  type: 'remote_url',
  configuration: {
    url: 'https://keys.example.test/issue', format: 'json',
    http_authorization_username: 'store', http_authorization_password: 'n0t-a-real-secret',
    custom_header_name: 'X-Key-Pool', custom_header_value: 'photo-pro',
  },
};
const LIST = { name: 'Font pack codes', label: 'Activation code', type: 'list', configuration: { licenses: ['FP-7Q2K-9XZ4', 'FP-3M8T-1RWD'], per_quantity: true, notify_at_count: 5 } };
const PRIVILEGED = ['licenses', 'http_authorization_password', 'custom_header_value'];
let remoteId: string;
let listId: string;

async function secretToken(permissions: unknown[]): Promise<string> {
  const minted = await api(`${base}auths/secret?test=true`, { method: 'POST', token: owner, body: { comments: 'e2e', permissions } });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.token;
}

const post = (path: string, body: unknown, token = owner) => api(`${base}${path}`, { method: 'POST', token, body });
const get = (path: string, token = owner) => api(`${base}${path}`, { token });

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

describe('managing license services', () => {
  it('creates the remote example (201, Location) and returns every property, secrets included for the owner, list properties null', async () => {
    const created = await post('license_services', REMOTE);
    expect(created.status, created.text).toBe(201);
    remoteId = created.body.license_service_id;
    expect(remoteId).toMatch(/^[0-9A-Z]{12}$/);
    expect(created.headers.get('location')).toBe(`${base}license_services/${remoteId}`);
    expect(created.body).toEqual({
      object: 'license_service', url: `${base}license_services/${remoteId}`, license_service_id: remoteId, test: true, account_id: account,
      name: REMOTE.name, label: REMOTE.label, instructions: REMOTE.instructions, description: null, type: 'remote_url', expand: null,
      configuration: { ...REMOTE.configuration, licenses: null, license_count: null, per_quantity: null, remove_after_use: null, notify_at_count: null },
      date_created: expect.any(String), date_modified: expect.any(String),
    });
    const read = await get(`license_services/${remoteId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('creates the list example with its codes; remote properties are null', async () => {
    const created = await post('license_services', LIST);
    expect(created.status, created.text).toBe(201);
    listId = created.body.license_service_id;
    expect(created.body.configuration).toEqual({
      licenses: ['FP-7Q2K-9XZ4', 'FP-3M8T-1RWD'], license_count: 2, per_quantity: true, remove_after_use: true, notify_at_count: 5,
      url: null, format: null, http_authorization_username: null, http_authorization_password: null, custom_header_name: null, custom_header_value: null,
    });
    expect(created.body.label).toBe('Activation code');
    expect((await get(`license_services/${listId}`)).body).toEqual(created.body);
  });

  it('sanitises instructions on save and defaults the label', async () => {
    const created = await post('license_services', { name: 'Plain', type: 'list', instructions: '<div onclick="x()">Paste <em>it</em> <img src=x><script>steal()</script></div>' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ label: 'License', instructions: 'Paste <em>it</em>' });
    expect((await api(`${base}license_services/${created.body.license_service_id}`, { method: 'DELETE', token: owner })).status).toBe(204);
  });

  it('updates partially (null clears, read-only properties ignored), validates the result and refuses a change of type', async () => {
    const updated = await post(`license_services/${remoteId}`, {
      description: 'ERP keys', expand: 'order.items.product', configuration: { format: 'xml', license_count: 99 },
      object: 'nope', url: 'x', test: false, date_created: '2000-01-01', license_service_id: 'X', account_id: 'OTHER',
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ license_service_id: remoteId, description: 'ERP keys', expand: 'order.items.product', test: true, account_id: account, configuration: { format: 'xml', custom_header_value: 'photo-pro', license_count: null } });
    const cleared = await post(`license_services/${remoteId}`, { description: null, configuration: { custom_header_name: null, custom_header_value: null } });
    expect(cleared.body).toMatchObject({ description: null, configuration: { custom_header_name: null, custom_header_value: null } });
    const retyped = await post(`license_services/${remoteId}`, { type: 'list' });
    expect(retyped.status).toBe(400);
    expect(retyped.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'type', reason: 'not_allowed' } });
    const unheaded = await post(`license_services/${remoteId}`, { configuration: { custom_header_value: 'v' } });
    expect(unheaded.body.error.meta).toMatchObject({ property: 'configuration.custom_header_name', reason: 'required' });
  });

  it('takes a posted-back object and leaves the service as it was (codes and secrets included)', async () => {
    for (const id of [remoteId, listId]) {
      const read = await get(`license_services/${id}?formatted=true`);
      const posted = await post(`license_services/${id}`, read.body);
      expect(posted.status, posted.text).toBe(200);
      const { date_modified: _a, formatted: _f, ...after } = posted.body;
      const { date_modified: _b, formatted: _g, ...before } = read.body;
      expect(after).toEqual(before);
    }
  });

  it('lists as an offset list, oldest first, with filter type and sort orders date_created and name', async () => {
    const zeta = await post('license_services', { name: 'zeta codes', type: 'list' });
    const alpha = await post('license_services', { name: 'Alpha keys', type: 'remote_url', configuration: { url: 'http://localhost:9/keys' } });
    expect(alpha.status, alpha.text).toBe(201);
    const all = await get('license_services');
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(['current_page', 'current_page_url', 'data', 'next_page_offset', 'next_page_url', 'object', 'previous_page_offset', 'previous_page_url', 'total_items', 'total_pages']);
    expect(all.body).toMatchObject({ object: 'list', total_items: 4, total_pages: 1 });
    expect(all.body.data.map((entry: any) => entry.license_service_id)).toEqual([remoteId, listId, zeta.body.license_service_id, alpha.body.license_service_id]);
    expect(all.body.data[1].configuration.licenses).toEqual(['FP-7Q2K-9XZ4', 'FP-3M8T-1RWD']);
    const newest = await get('license_services?desc=true&limit=1');
    expect(newest.body).toMatchObject({ total_items: 4, total_pages: 4, next_page_offset: 1 });
    expect(newest.body.data[0].name).toBe('Alpha keys');
    const lists = await get('license_services?type=list');
    expect(lists.body).toMatchObject({ total_items: 2 });
    expect(lists.body.data.map((entry: any) => entry.name)).toEqual(['Font pack codes', 'zeta codes']);
    const byName = await get('license_services?sort_by=name');
    expect(byName.body.data.map((entry: any) => entry.name)).toEqual(['Alpha keys', 'Font pack codes', 'Photo Editor keys', 'zeta codes']);
    const byNameDesc = await get('license_services?sort_by=name&desc=true&type=remote_url');
    expect(byNameDesc.body.data.map((entry: any) => entry.name)).toEqual(['Photo Editor keys', 'Alpha keys']);
    for (const query of ['sort_by=date_modified', 'type=file', 'limit=0']) {
      const refused = await get(`license_services?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.code).toBe('invalid_input');
    }
    for (const id of [zeta.body.license_service_id, alpha.body.license_service_id]) expect((await api(`${base}license_services/${id}`, { method: 'DELETE', token: owner })).status).toBe(204);
  });

  it('allows loopback URLs locally and refuses private, link-local and metadata ones', async () => {
    for (const url of ['http://127.0.0.1:8080/keys', 'http://[::1]:9/x', 'http://localhost/x']) {
      const created = await post('license_services', { name: 'Local', type: 'remote_url', configuration: { url } });
      expect(created.status, `${url}: ${created.text}`).toBe(201);
      expect((await api(`${base}license_services/${created.body.license_service_id}`, { method: 'DELETE', token: owner })).status).toBe(204);
    }
    for (const url of ['http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/x', 'http://[::ffff:192.168.1.1]/x', 'http://100.64.0.1/x']) {
      const refused = await post('license_services', { name: 'Private', type: 'remote_url', configuration: { url } });
      expect(refused.status, url).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'configuration.url', reason: 'destination_not_allowed' } });
    }
    const moved = await post(`license_services/${remoteId}`, { configuration: { url: 'http://192.168.0.10/keys' } });
    expect(moved.body.error?.meta).toMatchObject({ property: 'configuration.url', reason: 'destination_not_allowed' });
    expect((await get(`license_services/${remoteId}`)).body.configuration.url).toBe(REMOTE.configuration.url);
  });

  it('deletes (204), after which the service is gone', async () => {
    const created = await post('license_services', { name: 'Short-lived', type: 'list', configuration: { licenses: ['X'] } });
    const id = created.body.license_service_id;
    const deleted = await api(`${base}license_services/${id}`, { method: 'DELETE', token: owner });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await get(`license_services/${id}`)).status).toBe(404);
    expect((await api(`${base}license_services/${id}`, { method: 'DELETE', token: owner })).status).toBe(404);
    expect((await post(`license_services/${id}`, { name: 'x' })).status).toBe(404);
  });
});

describe('codes of a list service', () => {
  it('appends add_licenses without duplicates, replaces with licenses, and shows the count', async () => {
    const added = await post(`license_services/${listId}`, { configuration: { add_licenses: ['FP-3M8T-1RWD', ' FP-NEW-1 ', 'FP-NEW-1', 'FP-NEW-2'] } });
    expect(added.status, added.text).toBe(200);
    expect(added.body.configuration).toMatchObject({ licenses: ['FP-7Q2K-9XZ4', 'FP-3M8T-1RWD', 'FP-NEW-1', 'FP-NEW-2'], license_count: 4 });
    const replaced = await post(`license_services/${listId}`, { configuration: { licenses: ['R-1', 'R-2', 'R-1', 'R-3'] } });
    expect(replaced.body.configuration).toMatchObject({ licenses: ['R-1', 'R-2', 'R-3'], license_count: 3 });
    // add_licenses is write-only: it never appears in an answer.
    expect(replaced.body.configuration).not.toHaveProperty('add_licenses');
  });

  it('refuses a bad entry with its index, and more than 10,000 codes with 422, changing nothing', async () => {
    const before = (await get(`license_services/${listId}`)).text;
    const bad = await post(`license_services/${listId}`, { configuration: { add_licenses: ['ok', '<br>', 'fine'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.meta).toMatchObject({ property: 'configuration.add_licenses[1]' });
    const many = Array.from({ length: 10_001 }, (_, index) => `BULK-${index}`);
    const tooMany = await post(`license_services/${listId}`, { name: 'renamed', configuration: { licenses: many } });
    expect(tooMany.status, tooMany.text.slice(0, 300)).toBe(422);
    expect(tooMany.body.error).toMatchObject({ code: 'account_limit_exceeded', meta: { property: 'configuration.licenses', limit: 10_000 } });
    const tooManyMore = await post(`license_services/${listId}`, { configuration: { add_licenses: many.slice(0, 9_998) } });
    expect(tooManyMore.status).toBe(422);
    expect((await get(`license_services/${listId}`)).text).toBe(before);
    const created = await post('license_services', { name: 'Bulk', type: 'list', configuration: { licenses: many } });
    expect(created.status).toBe(422);
    expect((await get('license_services?type=list')).body.total_items).toBe(1);
    // 10,000 exactly is fine.
    const full = await post(`license_services/${listId}`, { configuration: { licenses: many.slice(0, 10_000) } });
    expect(full.status).toBe(200);
    expect(full.body.configuration.license_count).toBe(10_000);
    expect((await post(`license_services/${listId}`, { configuration: { licenses: ['R-1', 'R-2', 'R-3'] } })).status).toBe(200);
  }, 120_000);
});

describe('who sees what', () => {
  it('leaves secrets and codes out for license_services:read, keeps license_count, and shows them with :update', async () => {
    const reader = await secretToken([{ resource: 'license_services', methods: ['read'] }]);
    for (const id of [remoteId, listId]) {
      const read = await get(`license_services/${id}`, reader);
      expect(read.status, read.text).toBe(200);
      for (const name of PRIVILEGED) expect(read.body.configuration, name).not.toHaveProperty(name);
    }
    expect((await get(`license_services/${listId}`, reader)).body.configuration.license_count).toBe(3);
    expect((await get(`license_services/${remoteId}`, reader)).body.configuration).toMatchObject({ http_authorization_username: 'store' });
    const listed = await get('license_services', reader);
    for (const entry of listed.body.data) for (const name of PRIVILEGED) expect(entry.configuration).not.toHaveProperty(name);
    expect((await post(`license_services/${listId}`, { name: 'x' }, reader)).status).toBe(403);
    expect((await post('license_services', LIST, reader)).status).toBe(403);
    expect((await api(`${base}license_services/${listId}`, { method: 'DELETE', token: reader })).status).toBe(403);

    const updater = await secretToken([{ resource: 'license_services', methods: ['read', 'update'] }]);
    expect((await get(`license_services/${remoteId}`, updater)).body.configuration).toMatchObject({ http_authorization_password: 'n0t-a-real-secret' });
    expect((await get(`license_services/${listId}`, updater)).body.configuration.licenses).toEqual(['R-1', 'R-2', 'R-3']);

    const creator = await secretToken([{ resource: 'license_services', methods: ['create'] }]);
    const created = await post('license_services', { ...LIST, name: 'By creator' }, creator);
    expect(created.status, created.text).toBe(201);
    for (const name of PRIVILEGED) expect(created.body.configuration, name).not.toHaveProperty(name);
    expect(created.body.configuration.license_count).toBe(2);
    expect((await get(`license_services/${created.body.license_service_id}`)).body.configuration.licenses).toEqual(LIST.configuration.licenses);
    expect((await api(`${base}license_services/${created.body.license_service_id}`, { method: 'DELETE', token: owner })).status).toBe(204);
  });

  it('refuses limited tokens (403) and tokens without the right (403)', async () => {
    const shopper = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: owner })).body.token;
    for (const [method, path] of [['GET', 'license_services'], ['POST', 'license_services'], ['GET', `license_services/${listId}`], ['POST', `license_services/${listId}`], ['DELETE', `license_services/${listId}`]] as const) {
      const answer = await api(`${base}${path}`, { method, token: shopper, ...(method === 'POST' ? { body: LIST } : {}) });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.error.code).toBe('insufficient_permissions');
    }
    const orders = await secretToken([{ resource: 'orders', methods: ['read'] }]);
    expect((await get('license_services', orders)).status).toBe(403);
  });

  it('keeps test and live apart: the other mode answers token_type_mismatch, lists show only their mode', async () => {
    const live = await post('license_services', { name: 'Live codes', type: 'list' }, liveOwner);
    expect(live.status, live.text).toBe(201);
    expect(live.body.test).toBe(false);
    const liveId = live.body.license_service_id;
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const answer = await api(`${base}license_services/${liveId}`, { method, token: owner, ...(method === 'POST' ? { body: { name: 'x' } } : {}) });
      expect(answer.status, method).toBe(400);
      expect(answer.body.error.code).toBe('token_type_mismatch');
    }
    expect((await get(`license_services/${listId}`, liveOwner)).body.error.code).toBe('token_type_mismatch');
    expect((await get('license_services', liveOwner)).body.data.map((entry: any) => entry.license_service_id)).toEqual([liveId]);
  });
});

describe('products and their license service (licenses.md §3)', () => {
  const product = { name: 'Font pack', type: 'digital', prices: [{ currency: 'USD', price: 9 }] };

  it('links a product to a service of its mode, refuses unknown and other-mode ids, and expands the link without secrets', async () => {
    const linked = await post('products', { ...product, product_id: 'font-pack', license_service_id: listId });
    expect(linked.status, linked.text).toBe(201);
    expect(linked.body).toMatchObject({ license_service: `${base}license_services/${listId}`, has_license_service: true });
    const unknown = await post('products', { ...product, product_id: 'nope', license_service_id: 'NOSUCHSERVICE' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'license_service_id', reason: 'not_found' } });
    const liveService = (await get('license_services', liveOwner)).body.data[0].license_service_id;
    const otherMode = await post('products', { ...product, product_id: 'other-mode', license_service_id: liveService });
    expect(otherMode.status).toBe(400);
    expect(otherMode.body.error).toMatchObject({ code: 'token_type_mismatch', meta: { property: 'license_service_id' } });
    expect((await get('products/nope')).status).toBe(404);
    const expanded = await get('products/font-pack?expand=license_service');
    expect(expanded.body.license_service).toMatchObject({ object: 'license_service', license_service_id: listId, configuration: { license_count: 3 } });
    expect(expanded.body.license_service.configuration).not.toHaveProperty('licenses');
  });

  it('refuses to delete a linked service (409 in_use with meta.product_ids), soft-deleted products included, until they are unlinked', async () => {
    expect((await post('products', { ...product, product_id: 'font-pack-2', license_service_id: listId })).status).toBe(201);
    expect((await api(`${base}products/font-pack-2`, { method: 'DELETE', token: owner })).status).toBe(204);
    const refused = await api(`${base}license_services/${listId}`, { method: 'DELETE', token: owner });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'in_use', meta: { reason: 'linked_products' } });
    expect(refused.body.error.meta.product_ids.sort()).toEqual(['font-pack', 'font-pack-2']);
    // Moving a product to another service and clearing the other link frees it.
    const moved = await post('products/font-pack', { license_service_id: remoteId });
    expect(moved.body).toMatchObject({ license_service: `${base}license_services/${remoteId}`, has_license_service: true });
    const unlinked = await post('products/font-pack-2', { license_service_id: null });
    expect(unlinked.body).toMatchObject({ license_service: null, has_license_service: false, deleted: true });
    const remoteRefused = await api(`${base}license_services/${remoteId}`, { method: 'DELETE', token: owner });
    expect(remoteRefused.body.error?.meta?.product_ids).toEqual(['font-pack']);
    // Posting back the product keeps its link.
    const read = await get('products/font-pack');
    expect((await post('products/font-pack', read.body)).body.license_service).toBe(`${base}license_services/${remoteId}`);
    expect((await post('products/font-pack', { license_service_id: '' })).body.has_license_service).toBe(false);
    expect((await api(`${base}license_services/${remoteId}`, { method: 'DELETE', token: owner })).status).toBe(204);
    expect((await post('products/font-pack', { license_service_id: remoteId })).body.error).toMatchObject({ meta: { property: 'license_service_id', reason: 'not_found' } });
  });
});

describe('issued codes (licenses.md §2.1)', () => {
  it('are never stored again: a posted-back old copy of the list brings none of them back', async () => {
    const before = await get(`license_services/${listId}`);
    expect(before.body.configuration.licenses).toEqual(['R-1', 'R-2', 'R-3']);
    // A license request takes two codes (the request side runs in-process on the stopped runtime's data).
    expect(await runtime.stop()).toBe(0);
    const store = await openLocalStore(runtime.dataDir, runtime.port);
    try {
      const taken = await takeCodes({ accountId: account, mode: 'test' }, listId, 2, { now: Date.now(), reserve: () => [] });
      expect(taken).toEqual({ outcome: 'taken', codes: ['R-1', 'R-2'] });
      // The codes are not in the service item, nor are the secrets of the remote one.
      const item = (await db().send(new GetCommand({ TableName: table(), Key: licenseServiceKey({ accountId: account, mode: 'test' }, listId) }))).Item!;
      expect(JSON.stringify(item)).not.toContain('R-3');
    } finally {
      await store.close();
    }
    runtime = await runtime.restart();
    const posted = await post(`license_services/${listId}`, before.body);
    expect(posted.status, posted.text).toBe(200);
    expect(posted.body.configuration).toMatchObject({ licenses: ['R-3'], license_count: 1 });
    const added = await post(`license_services/${listId}`, { configuration: { add_licenses: ['R-1', 'R-4'] } });
    expect(added.body.configuration).toMatchObject({ licenses: ['R-3', 'R-4'], license_count: 2 });
    expect(await runtime.stop()).toBe(0);
    stopped = true;
  });
});
