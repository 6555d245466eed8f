/**
 * End-to-end over HTTP against a real local runtime: hosted apps (hosting.md §2–§5, §12).
 * Apps are created, listed and changed (alias renamed, settings and style replaced whole, size
 * limits); real zips are uploaded as multipart forms and become ready versions whose files and
 * manifest are in the local object store; hostile zips (`../`, a symbolic link, a 2 GB bomb
 * that lies and one that declares it, no index.html, encryption, over 50 MB) are refused and
 * change nothing; deploy and rollback move the alias pointers; aliases keep their limits and
 * rules; apps are account-wide (both modes see them) but another account gets 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeWithSecondAccount, type RuntimeProcess } from '../support/runtime-process';
import { storedObjectKeys } from '../support/stored-objects';
import { appZip, honestBomb, lyingBomb, zipOf } from '../support/zip-writer';

const RATES = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };

let runtime: RuntimeProcess;
let base: string;
let account: string;
let token: string;
let live: string;
let otherAccount: { account_id: string; tokens: { live_secret: string; test_secret: string } };

beforeAll(async () => {
  ({ runtime, other: otherAccount } = await startRuntimeWithSecondAccount({ env: RATES }));
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  token = runtime.bootstrap.tokens.test_secret;
  live = runtime.bootstrap.tokens.live_secret;
}, 180_000);

afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

type Response = Awaited<ReturnType<typeof api>>;

/** Posts a zip as multipart/form-data to the app's versions. */
async function uploadZip(appId: string, zip: Buffer, fields: Record<string, string> = {}, auth = token): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'site.zip');
  const response = await fetch(`${base}apps/${appId}/versions`, { method: 'POST', headers: { Authorization: `Bearer ${auth}` }, body: form });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

const expectError = (response: Response, status: number, code: string, meta?: Record<string, unknown>) => {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.body.error).toMatchObject({ status, code });
  expect(response.body.error.reference).toBe(response.headers.get('x-request-id'));
  if (meta) expect(response.body.error.meta).toMatchObject(meta);
};

const post = (path: string, body?: unknown, auth = token) => api(`${base}${path}`, { method: 'POST', token: auth, ...(body === undefined ? {} : { body }) });
const get = (path: string, auth = token) => api(`${base}${path}`, { token: auth });
const del = (path: string, auth = token) => api(`${base}${path}`, { method: 'DELETE', token: auth });

/** Every object the local store holds for hosted apps. */
const storedAppObjects = () => [...storedObjectKeys(runtime.dataDir, 'apps', 'apps'), ...storedObjectKeys(runtime.dataDir, 'apps', 'app-manifests')];

/**
 * The version an alias serves, as the API shows it (its pin, else the app's live version). The
 * pointer items themselves live in the runtime's own store; test/modules/hosting/apps.test.ts reads them.
 */
async function servedVersion(appId: string, alias: string): Promise<string | null> {
  const aliases = (await get(`apps/${appId}/aliases`)).body.data as Array<{ alias: string; version_id: string | null }>;
  const app = (await get(`apps/${appId}`)).body;
  const entry = aliases.find((candidate) => candidate.alias === alias)!;
  return entry.version_id ?? app.live_version_id;
}

async function newApp(body: Record<string, unknown>): Promise<any> {
  const created = await post('apps', { name: 'App', ...body });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

describe('apps', () => {
  let shop: any;

  it('creates an app (201, Location), test from the token, serving nothing yet', async () => {
    const created = await post('apps', { name: 'Shop checkout', alias: 'shop', settings: { company_name: 'Acme', show_promo_code: true }, style: { 'brand-primary': '#0b6e4f' } });
    expect(created.status, created.text).toBe(201);
    shop = created.body;
    expect(created.headers.get('location')).toBe(shop.url);
    expect(shop).toMatchObject({
      object: 'app',
      url: `${base}apps/${shop.app_id}`,
      account_id: account,
      name: 'Shop checkout',
      alias: 'shop',
      test: true,
      live_version: null,
      live_version_id: null,
      live_version_number: null,
      app_url: `http://${account.toLowerCase()}.apps.localhost:${runtime.port}/shop/`,
      versions: `${base}apps/${shop.app_id}/versions`,
      deployments: `${base}apps/${shop.app_id}/deployments`,
      aliases: `${base}apps/${shop.app_id}/aliases`,
      settings: { company_name: 'Acme', show_promo_code: true },
      style: { 'brand-primary': '#0b6e4f' },
      custom_css: null,
      custom_javascript: null,
      date_deployed: null,
    });
    expect(shop.app_id).toMatch(/^[0-9A-Z]{12}$/);
    expect(shop.date_created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await get(`apps/${shop.app_id}`)).body).toEqual(shop);
    expect((await post('apps', { name: 'Live one', alias: 'live-one' }, live)).body.test).toBe(false);
  });

  it('is account-wide: a live token sees and changes the same app', async () => {
    expect((await get(`apps/${shop.app_id}`, live)).body).toMatchObject({ app_id: shop.app_id, test: true });
    const list = await get('apps?limit=100', live);
    expect(list.body.data.map((app: any) => app.app_id)).toContain(shop.app_id);
  });

  it("answers another account's token 404 for every app path, and lists none of this account's apps", async () => {
    const other = otherAccount.tokens.live_secret;
    for (const path of [`apps/${shop.app_id}`, `apps/${shop.app_id}/versions`, `apps/${shop.app_id}/aliases`, `apps/${shop.app_id}/deployments`]) expectError(await get(path, other), 404, 'resource_not_found');
    expectError(await post(`apps/${shop.app_id}`, { name: 'Mine now' }, other), 404, 'resource_not_found');
    expectError(await del(`apps/${shop.app_id}`, other), 404, 'resource_not_found');
    expectError(await uploadZip(shop.app_id, appZip(), {}, other), 404, 'resource_not_found');
    expect((await get('apps', other)).body.total_items).toBe(0);
    // The alias is per account: the other account may use the same one.
    const theirs = await post('apps', { name: 'Theirs', alias: 'shop' }, other);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.body.app_url).toBe(`http://${otherAccount.account_id.toLowerCase()}.apps.localhost:${runtime.port}/shop/`);
    expect((await get(`apps/${shop.app_id}`)).body.name).toBe('Shop checkout');
  });

  it('refuses the alias of another app of the account (409) and invalid or reserved aliases (400)', async () => {
    expectError(await post('apps', { name: 'Dup', alias: 'shop' }), 409, 'in_use', { property: 'alias' });
    for (const alias of ['Shop', '-shop', 'shop-', 'sh_op', 'a'.repeat(64), '', 'api', 'apps', 'func', 'signin', 'oauth', 'settings', 'analytics', 7]) {
      expectError(await post('apps', { name: 'Bad', alias }), 400, 'invalid_input', { property: 'alias' });
    }
    expectError(await post('apps', { alias: 'noname' }), 400, 'invalid_input', { property: 'name', reason: 'required' });
    expectError(await post('apps', { name: 'x'.repeat(101), alias: 'long' }), 400, 'invalid_input', { property: 'name' });
  });

  it('lists apps with q and sort_by', async () => {
    await newApp({ name: 'Admin tools', alias: 'admin' });
    const names = async (query: string) => (await get(`apps?${query}`)).body.data.map((app: any) => app.name);
    expect(await names('sort_by=name')).toEqual(['Admin tools', 'Live one', 'Shop checkout']);
    expect(await names('sort_by=name&desc=true')).toEqual(['Shop checkout', 'Live one', 'Admin tools']);
    expect(await names('q=SHOP')).toEqual(['Shop checkout']);
    expect(await names('q=adm')).toEqual(['Admin tools']);
    const paged = await get('apps?limit=1&offset=1');
    expect(paged.body).toMatchObject({ object: 'list', total_items: 3, total_pages: 3, current_page: 2, next_page_offset: 2, previous_page_offset: 0 });
    expectError(await get('apps?sort_by=alias'), 400, 'invalid_input', { parameter: 'sort_by' });
  });

  it('updates partially: settings and style replaced whole, alias renamed at once', async () => {
    const updated = await post(`apps/${shop.app_id}`, { settings: { currency: 'EUR' }, custom_css: 'body { color: red }', alias: 'store', url: 'ignored', app_id: 'ignored' });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Shop checkout', alias: 'store', settings: { currency: 'EUR' }, style: { 'brand-primary': '#0b6e4f' }, custom_css: 'body { color: red }', app_id: shop.app_id });
    expect(updated.body.app_url).toMatch(/\/store\/$/);
    expect(await findAliasPointerOverHttp(shop.app_id)).toEqual(['store']);
    // The old alias is free again; the new one is taken.
    const reuse = await newApp({ name: 'Reuse', alias: 'shop' });
    expectError(await post(`apps/${reuse.app_id}`, { alias: 'store' }), 409, 'in_use', { property: 'alias' });
    expect(await del(`apps/${reuse.app_id}`)).toMatchObject({ status: 204 });
    const back = await post(`apps/${shop.app_id}`, { alias: 'shop', style: {}, custom_css: '' });
    expect(back.body).toMatchObject({ alias: 'shop', style: {}, custom_css: null, settings: { currency: 'EUR' } });
  });

  it('refuses settings, style and custom code over their limits (422) and changes nothing', async () => {
    const before = (await get(`apps/${shop.app_id}`)).text;
    expectError(await post(`apps/${shop.app_id}`, { settings: { blob: 'x'.repeat(64 * 1024) } }), 422, 'account_limit_exceeded', { property: 'settings' });
    expectError(await post(`apps/${shop.app_id}`, { style: { blob: 'x'.repeat(64 * 1024) } }), 422, 'account_limit_exceeded', { property: 'style' });
    expectError(await post(`apps/${shop.app_id}`, { custom_javascript: 'x'.repeat(256 * 1024 + 1) }), 422, 'account_limit_exceeded', { property: 'custom_javascript' });
    expectError(await post(`apps/${shop.app_id}`, { custom_css: 'x'.repeat(256 * 1024 + 1), name: 'Changed' }), 422, 'account_limit_exceeded', { property: 'custom_css' });
    expect((await get(`apps/${shop.app_id}`)).text).toBe(before);
    // Right at the limits, together, is accepted.
    const full = await post(`apps/${shop.app_id}`, { custom_css: 'c'.repeat(256 * 1024), custom_javascript: 'j'.repeat(256 * 1024) });
    expect(full.status, full.text).toBe(200);
    expect((await get(`apps/${shop.app_id}`)).body.custom_javascript).toHaveLength(256 * 1024);
    await post(`apps/${shop.app_id}`, { custom_css: null, custom_javascript: null });
  });

  /** The aliases of an app, as its alias list shows them. */
  async function findAliasPointerOverHttp(appId: string): Promise<string[]> {
    return (await get(`apps/${appId}/aliases`)).body.data.map((alias: any) => alias.alias);
  }
});

describe('versions, deploy and rollback', () => {
  let app: any;
  let v1: any;
  let v2: any;

  beforeAll(async () => {
    app = await newApp({ name: 'Storefront', alias: 'front' });
  });

  it('uploads a zip: 201 with a ready version, its files and manifest stored, ignored paths listed', async () => {
    const zip = zipOf([
      { name: 'build/' },
      { name: 'build/index.html', data: '<!doctype html><h1>v1</h1>' },
      { name: 'build/assets/main.3f9a2c1b.js', data: 'console.log("v1")' },
      { name: 'build/settings/app.js', data: 'window.fake = 1' },
      { name: 'build/oauth/callback.html', data: 'phish' },
      { name: '__MACOSX/build/._index.html', data: 'x' },
      { name: 'build/.DS_Store', data: 'x' },
    ]);
    const response = await uploadZip(app.app_id, zip, { label: '1.0.0', comments: 'First cut' });
    expect(response.status, response.text).toBe(201);
    v1 = response.body;
    expect(response.headers.get('location')).toBe(v1.url);
    expect(v1).toMatchObject({
      object: 'app_version',
      url: `${base}apps/${app.app_id}/versions/${v1.version_id}`,
      app: app.url,
      app_id: app.app_id,
      number: 1,
      label: '1.0.0',
      comments: 'First cut',
      status: 'ready',
      status_message: null,
      files: 2,
      bytes: 26 + 17,
      package_bytes: zip.length,
      ignored_paths: ['build/settings/app.js', 'build/oauth/callback.html', '__MACOSX/build/._index.html', 'build/.DS_Store'],
      live: false,
    });
    const prefix = `apps/${account}/${app.app_id}/${v1.version_id}/`;
    expect(storedObjectKeys(runtime.dataDir, 'apps', prefix)).toEqual([`${prefix}assets/main.3f9a2c1b.js`, `${prefix}index.html`]);
    expect(storedObjectKeys(runtime.dataDir, 'apps', `app-manifests/${account}/${app.app_id}`)).toEqual([`app-manifests/${account}/${app.app_id}/${v1.version_id}.json`]);
    expect((await get(`apps/${app.app_id}/versions/${v1.version_id}`)).body).toEqual(v1);
    // Uploading changes nothing served.
    expect((await get(`apps/${app.app_id}`)).body.live_version_id).toBeNull();
  });

  it('numbers the next upload 2 and lists versions by number', async () => {
    const response = await uploadZip(app.app_id, appZip({ 'app.js': 'console.log("v2")' }));
    expect(response.status, response.text).toBe(201);
    v2 = response.body;
    expect(v2).toMatchObject({ number: 2, label: null, comments: null, ignored_paths: [] });
    const list = await get(`apps/${app.app_id}/versions`);
    expect(list.body).toMatchObject({ object: 'list', total_items: 2 });
    expect(list.body.data.map((version: any) => version.number)).toEqual([1, 2]);
    expect((await get(`apps/${app.app_id}/versions?desc=true&limit=1`)).body.data[0].number).toBe(2);
  });

  describe('refused packages change nothing', () => {
    it.each([
      ['a ../ entry', () => zipOf([{ name: 'index.html', data: 'x' }, { name: '../evil.html', data: 'x' }]), 400, 'invalid_input', 'unsafe_path'],
      ['a symbolic link', () => zipOf([{ name: 'index.html', data: 'x' }, { name: 'passwd', data: '/etc/passwd', unixMode: 0o120777 }]), 400, 'invalid_input', 'special_entry'],
      ['a bomb declaring a 2 GB expansion', () => honestBomb(), 400, 'invalid_input', 'compression_ratio'],
      ['a bomb that lies about its size and inflates to 2 GB', lyingBomb, 400, 'invalid_input', 'size_mismatch'],
      ['no index.html', () => zipOf([{ name: 'a/index.html', data: 'x' }, { name: 'b/app.js', data: 'x' }]), 400, 'invalid_input', 'missing_index'],
      ['an encrypted entry', () => zipOf([{ name: 'index.html', data: 'x', flags: 1 }]), 400, 'invalid_input', 'encrypted'],
      ['not a zip', () => Buffer.from('<html>not a zip</html>'), 400, 'invalid_input', 'unreadable'],
      ['a zip over 50 MB', () => Buffer.alloc(50 * 1024 * 1024 + 1, 1), 422, 'account_limit_exceeded', 'too_large'],
    ] as const)('%s', async (_name, make, status, code, reason) => {
      const [objects, appBefore, versionsBefore] = [storedAppObjects(), (await get(`apps/${app.app_id}`)).text, (await get(`apps/${app.app_id}/versions`)).text];
      expectError(await uploadZip(app.app_id, await make()), status, code, { property: 'file', reason });
      expect(storedAppObjects()).toEqual(objects);
      expect((await get(`apps/${app.app_id}`)).text).toBe(appBefore);
      expect((await get(`apps/${app.app_id}/versions`)).text).toBe(versionsBefore);
    }, 60_000);

    it('refuses a bad label, a missing file and a JSON body', async () => {
      expectError(await uploadZip(app.app_id, appZip(), { label: 'x'.repeat(51) }), 400, 'invalid_input', { property: 'label' });
      expectError(await uploadZip(app.app_id, appZip(), { comments: 'x'.repeat(1001) }), 400, 'invalid_input', { property: 'comments' });
      const form = new FormData();
      form.append('label', '1.0');
      const noFile = await fetch(`${base}apps/${app.app_id}/versions`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
      expect(noFile.status).toBe(400);
      expect(((await noFile.json()) as { error: { meta: unknown } }).error.meta).toMatchObject({ property: 'file', reason: 'required' });
      expectError(await post(`apps/${app.app_id}/versions`, { file: 'x' }), 400, 'invalid_syntax', { header: 'Content-Type' });
      expect((await get(`apps/${app.app_id}/versions`)).body.total_items).toBe(2);
    });
  });

  it('deploys v1 then v2 (201, deployment records), moving the primary pointer each time', async () => {
    const first = await post(`apps/${app.app_id}/deploy`, { version_id: v1.version_id });
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('location')).toBe(first.body.url);
    const authId = (await get('auths/me')).body.auth_id;
    expect(first.body).toMatchObject({
      object: 'app_deployment',
      url: `${base}apps/${app.app_id}/deployments/${first.body.deployment_id}`,
      app_id: app.app_id,
      action: 'deploy',
      version_id: v1.version_id,
      version_number: 1,
      previous_version_id: null,
      previous_version_number: null,
      auth: `${base}auths/${authId}`,
      user: null,
    });
    expect(await servedVersion(app.app_id, 'front')).toBe(v1.version_id);
    const second = await post(`apps/${app.app_id}/deploy`, { version_id: v2.version_id });
    expect(second.body).toMatchObject({ version_id: v2.version_id, previous_version_id: v1.version_id, previous_version_number: 1 });
    const current = (await get(`apps/${app.app_id}`)).body;
    expect(current).toMatchObject({ live_version_id: v2.version_id, live_version_number: 2, live_version: `${base}apps/${app.app_id}/versions/${v2.version_id}` });
    expect(current.date_deployed).not.toBeNull();
    expect((await get(`apps/${app.app_id}/versions/${v2.version_id}`)).body.live).toBe(true);
    expect((await get(`apps/${app.app_id}?expand=live_version`)).body.live_version).toMatchObject({ object: 'app_version', version_id: v2.version_id, live: true });
  });

  it('rolls back to v1, then back to v2 (two rollbacks swap)', async () => {
    const back = await post(`apps/${app.app_id}/rollback`);
    expect(back.status, back.text).toBe(201);
    expect(back.body).toMatchObject({ action: 'rollback', version_id: v1.version_id, previous_version_id: v2.version_id });
    expect((await get(`apps/${app.app_id}`)).body.live_version_id).toBe(v1.version_id);
    const forth = await post(`apps/${app.app_id}/rollback`, {});
    expect(forth.body).toMatchObject({ action: 'rollback', version_id: v2.version_id, previous_version_id: v1.version_id });
    expect((await get(`apps/${app.app_id}`)).body.live_version_id).toBe(v2.version_id);
  });

  it('lists the deployments in order, and reads one', async () => {
    const list = await get(`apps/${app.app_id}/deployments`);
    expect(list.body.total_items).toBe(4);
    expect(list.body.data.map((deployment: any) => [deployment.action, deployment.version_number])).toEqual([['deploy', 1], ['deploy', 2], ['rollback', 1], ['rollback', 2]]);
    const last = list.body.data[3];
    expect((await get(`apps/${app.app_id}/deployments/${last.deployment_id}`)).body).toEqual(last);
    expectError(await get(`apps/${app.app_id}/deployments/NOPE`), 404, 'resource_not_found');
    expect((await get(`apps/${app.app_id}?expand=deployments`)).body.deployments).toMatchObject({ object: 'list', total_items: 4 });
  });

  it('refuses deploys of unknown, foreign and unready versions, and a rollback without a target', async () => {
    expectError(await post(`apps/${app.app_id}/deploy`, { version_id: 'NOSUCHVERSION' }), 404, 'resource_not_found');
    const other = await newApp({ name: 'Other', alias: 'other' });
    const foreign = (await uploadZip(other.app_id, appZip())).body;
    expectError(await post(`apps/${app.app_id}/deploy`, { version_id: foreign.version_id }), 404, 'resource_not_found');
    expectError(await post(`apps/${app.app_id}/deploy`, {}), 400, 'invalid_input', { property: 'version_id', reason: 'required' });
    expectError(await post(`apps/${other.app_id}/rollback`), 422, 'invalid_state');
    expectError(await post(`apps/${app.app_id}/rollback`, { version_id: foreign.version_id }), 404, 'resource_not_found');
    expectError(await post('apps/NOSUCHAPP/deploy', { version_id: v1.version_id }), 404, 'resource_not_found');
    expect((await get(`apps/${app.app_id}`)).body.live_version_id).toBe(v2.version_id);
  });

  it('refuses to delete the live version (409), deletes another one (204) and its files', async () => {
    expectError(await del(`apps/${app.app_id}/versions/${v2.version_id}`), 409, 'in_use');
    const v3 = (await uploadZip(app.app_id, appZip({ 'v3.js': '3' }))).body;
    const prefix = `apps/${account}/${app.app_id}/${v3.version_id}/`;
    expect(storedObjectKeys(runtime.dataDir, 'apps', prefix)).toHaveLength(2);
    expect((await del(`apps/${app.app_id}/versions/${v3.version_id}`)).status).toBe(204);
    expectError(await get(`apps/${app.app_id}/versions/${v3.version_id}`), 404, 'resource_not_found');
    expect(storedObjectKeys(runtime.dataDir, 'apps', prefix)).toEqual([]);
    expect(storedObjectKeys(runtime.dataDir, 'apps', `app-manifests/${account}/${app.app_id}/${v3.version_id}`)).toEqual([]);
    expectError(await del(`apps/${app.app_id}/versions/${v3.version_id}`), 404, 'resource_not_found');
  });

  describe('aliases', () => {
    it('lists the primary first, creates following and pinned aliases, and keeps them on deploy', async () => {
      const pinned = await post(`apps/${app.app_id}/aliases`, { alias: 'preview', version_id: v1.version_id, test: false });
      expect(pinned.status, pinned.text).toBe(201);
      expect(pinned.headers.get('location')).toBe(pinned.body.url);
      expect(pinned.body).toMatchObject({
        object: 'app_alias',
        url: `${base}apps/${app.app_id}/aliases/preview`,
        alias: 'preview',
        app_id: app.app_id,
        primary: false,
        version_id: v1.version_id,
        test: false,
        app_url: `http://${account.toLowerCase()}.apps.localhost:${runtime.port}/preview/`,
      });
      const follower = await post(`apps/${app.app_id}/aliases`, { alias: 'beta' });
      expect(follower.body).toMatchObject({ version_id: null, test: true, primary: false });
      const list = await get(`apps/${app.app_id}/aliases`);
      expect(list.body).toMatchObject({ object: 'list', total_items: 3 });
      expect(list.body.data.map((alias: any) => [alias.alias, alias.primary])).toEqual([['front', true], ['preview', false], ['beta', false]]);
      expect((await get(`apps/${app.app_id}/aliases/preview`)).body).toEqual(pinned.body);
      // A pinned alias keeps its version through a deploy; the primary and followers move.
      await post(`apps/${app.app_id}/deploy`, { version_id: v1.version_id });
      await post(`apps/${app.app_id}/deploy`, { version_id: v2.version_id });
      expect(await servedVersion(app.app_id, 'preview')).toBe(v1.version_id);
      expect(await servedVersion(app.app_id, 'beta')).toBe(v2.version_id);
      expectError(await del(`apps/${app.app_id}/versions/${v1.version_id}`), 409, 'in_use', { reason: 'pinned' });
    });

    it('changes a pin and a mode, and refuses changes to the primary (422)', async () => {
      const changed = await post(`apps/${app.app_id}/aliases/preview`, { version_id: v2.version_id, test: true });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body).toMatchObject({ version_id: v2.version_id, test: true });
      expectError(await post(`apps/${app.app_id}/aliases/front`, { test: false }), 422, 'invalid_state');
      expectError(await post(`apps/${app.app_id}/aliases/preview`, { version_id: 'NOPE' }), 400, 'invalid_input', { property: 'version_id', reason: 'not_found' });
      expectError(await post(`apps/${app.app_id}/aliases/nope`, { test: false }), 404, 'resource_not_found');
    });

    it('refuses a taken alias (409, also across apps), reserved words (400) and an 11th alias (422)', async () => {
      expectError(await post(`apps/${app.app_id}/aliases`, { alias: 'shop' }), 409, 'in_use', { property: 'alias' });
      expectError(await post(`apps/${app.app_id}/aliases`, { alias: 'front' }), 409, 'in_use');
      for (const alias of ['settings', 'api', 'UPPER', 'a_b']) expectError(await post(`apps/${app.app_id}/aliases`, { alias }), 400, 'invalid_input', { property: 'alias' });
      for (let index = 4; index <= 10; index++) expect((await post(`apps/${app.app_id}/aliases`, { alias: `extra-${index}` })).status).toBe(201);
      expectError(await post(`apps/${app.app_id}/aliases`, { alias: 'extra-11' }), 422, 'account_limit_exceeded');
      expect((await get(`apps/${app.app_id}/aliases`)).body.total_items).toBe(10);
      // Another app cannot take an extra alias either.
      expectError(await post('apps', { name: 'Thief', alias: 'extra-4' }), 409, 'in_use');
    });

    it('deletes an extra alias (204) but never the primary (422)', async () => {
      expect((await del(`apps/${app.app_id}/aliases/extra-10`)).status).toBe(204);
      expectError(await get(`apps/${app.app_id}/aliases/extra-10`), 404, 'resource_not_found');
      expectError(await del(`apps/${app.app_id}/aliases/front`), 422, 'invalid_state');
      expectError(await del(`apps/${app.app_id}/aliases/extra-10`), 404, 'resource_not_found');
      expect((await get(`apps/${app.app_id}/aliases`)).body.total_items).toBe(9);
    });
  });

  it('deletes the app: 204, every alias stops at once, its files go', async () => {
    expect(storedObjectKeys(runtime.dataDir, 'apps', `apps/${account}/${app.app_id}`).length).toBeGreaterThan(0);
    expect((await del(`apps/${app.app_id}`)).status).toBe(204);
    expectError(await get(`apps/${app.app_id}`), 404, 'resource_not_found');
    expectError(await get(`apps/${app.app_id}/versions`), 404, 'resource_not_found');
    expect(storedObjectKeys(runtime.dataDir, 'apps', `apps/${account}/${app.app_id}`)).toEqual([]);
    expect(storedObjectKeys(runtime.dataDir, 'apps', `app-manifests/${account}/${app.app_id}`)).toEqual([]);
    // Its aliases are free again.
    const reused = await newApp({ name: 'Reused', alias: 'front' });
    expect((await post(`apps/${reused.app_id}/aliases`, { alias: 'preview' })).status).toBe(201);
    expectError(await del(`apps/${app.app_id}`), 404, 'resource_not_found');
  });
});

describe('permissions', () => {
  it('needs apps:* (403 insufficient_permissions), and limited tokens have none', async () => {
    const readOnly = await post('auths/secret', { permissions: [{ resource: 'apps', methods: ['read'] }] });
    expect(readOnly.status, readOnly.text).toBe(201);
    const reader = readOnly.body.token;
    const app = (await get('apps?limit=1', reader)).body.data[0];
    expect(app).toBeDefined();
    expectError(await post('apps', { name: 'No', alias: 'nope' }, reader), 403, 'insufficient_permissions');
    expectError(await post(`apps/${app.app_id}`, { name: 'No' }, reader), 403, 'insufficient_permissions');
    expectError(await uploadZip(app.app_id, appZip(), {}, reader), 403, 'insufficient_permissions');
    expectError(await post(`apps/${app.app_id}/rollback`, undefined, reader), 403, 'insufficient_permissions');
    expectError(await del(`apps/${app.app_id}`, reader), 403, 'insufficient_permissions');
    const shopper = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token })).body.token;
    expectError(await get('apps', shopper), 403, 'insufficient_permissions');
  });
});
