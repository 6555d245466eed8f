/**
 * End-to-end over HTTP against a real local runtime: hosted apps as a browser sees them
 * (hosting.md §5 to §9, §11), driven through the management API the way a merchant does:
 * create, upload (multipart zip), deploy, roll back, change settings and alias, delete.
 * The serving rules are also covered one by one with a fake source in
 * test/modules/hosting/serving/*.test.ts and test/local/app-files.test.ts.
 */
import { createHash } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_PAGE, NOT_FOUND_PAGE } from '../../shared/modules/hosting/serving';
import { hostRequest, type HostResponse } from '../support/host-request';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';
import { zipFiles } from '../support/zip-writer';

let runtime: RuntimeProcess;
let base: string;
let token: string;
let accountId: string;
let appId: string;
const versions: Record<string, string> = {};

const asset = `console.log(${JSON.stringify('x'.repeat(2000))});\n`;
const v1 = {
  'index.html': '<!doctype html><title>Shop v1</title><script src="settings/account.js"></script>',
  'assets/index-BxT3kz9Q.js': asset,
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'docs/index.html': '<h1>Docs</h1>',
  'robots.txt': 'User-agent: *',
  // Platform-owned and junk paths: not stored, listed as ignored.
  'settings/app.js': 'window.hacked = true;',
  'analytics/pageview.js': 'window.hacked = true;',
  'oauth/callback.html': '<script>steal()</script>',
  '__MACOSX/._index.html': 'junk',
};
const v2 = { 'index.html': '<!doctype html><title>Shop v2</title>', '404.html': '<h1>Lost in v2</h1>' };

const appHost = () => `${accountId.toLowerCase()}.apps.localhost:${runtime.port}`;
const get = (path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<HostResponse> => hostRequest(runtime.port, appHost(), path, { method, headers });
const getPathForm = (path: string): Promise<HostResponse> => hostRequest(runtime.port, `localhost:${runtime.port}`, `/apps/${accountId}${path}`);

/** Uploads a zip as multipart/form-data and answers the version. */
async function upload(files: Record<string, string | Buffer>, label: string): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(zipFiles(files))], { type: 'application/zip' }), 'app.zip');
  form.append('label', label);
  const response = await fetch(`${base}apps/${appId}/versions`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: await response.json() };
}

const deploy = (versionId: string) => api(`${base}apps/${appId}/deploy`, { method: 'POST', token, body: { version_id: versionId } });

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  token = runtime.bootstrap.tokens.live_secret;
  accountId = runtime.bootstrap.account_id;
});
afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

// Enabled at merge (needs the apps management API of the apps branch).
describe('hosted apps on the local runtime', () => {
  it('creates an app that serves nothing until a version is deployed', async () => {
    const created = await api(`${base}apps`, { method: 'POST', token, body: { name: 'Shop', alias: 'shop', settings: { company_name: 'Acme', show_promo_code: true } } });
    expect(created.status, created.text).toBe(201);
    appId = created.body.app_id;
    expect(created.body).toMatchObject({ object: 'app', alias: 'shop', test: false, live_version_id: null, app_url: `http://${appHost()}/shop/` });
    for (const path of ['/shop/', '/shop/settings/app.js', '/shop/oauth/callback.html']) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.text).toBe(NOT_FOUND_PAGE);
    }
  });

  it('uploads a version without changing what is served, ignoring platform-owned paths', async () => {
    const version = await upload(v1, '1.0.0');
    expect(version.status).toBe(201);
    expect(version.body).toMatchObject({ object: 'app_version', number: 1, label: '1.0.0', status: 'ready', files: 5, live: false });
    expect(version.body.ignored_paths).toEqual(expect.arrayContaining(['settings/app.js', 'analytics/pageview.js', 'oauth/callback.html', '__MACOSX/._index.html']));
    versions.v1 = version.body.version_id;
    expect((await get('/shop/')).status).toBe(404);
  });

  it('deploys: the alias serves the version’s files by the rules of §6', async () => {
    expect((await deploy(versions.v1!)).status).toBe(201);
    const redirect = await get('/shop?utm=1');
    expect(redirect.status).toBe(301);
    expect(new URL(redirect.headers.location as string, `http://${appHost()}/shop?utm=1`).href).toBe(`http://${appHost()}/shop/?utm=1`);
    const home = await get('/shop/');
    expect(home.status).toBe(200);
    expect(home.text).toBe(v1['index.html']);
    expect(home.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
    });
    expect(home.headers['x-frame-options']).toBeUndefined();
    const script = await get('/shop/assets/index-BxT3kz9Q.js');
    expect(script.text).toBe(asset);
    expect(script.headers).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable' });
    expect(script.headers.etag).toMatch(/^"[^"]+"$/);
    expect(Date.parse(script.headers['last-modified'] as string)).toBeGreaterThan(Date.now() - 120_000);
    expect((await get('/shop/assets/index-BxT3kz9Q.js', { 'If-None-Match': script.headers.etag as string })).status).toBe(304);
    expect((await get('/shop/assets/index-BxT3kz9Q.js', { 'If-Modified-Since': script.headers['last-modified'] as string })).status).toBe(304);
    const head = await get('/shop/assets/index-BxT3kz9Q.js', {}, 'HEAD');
    expect(head).toMatchObject({ status: 200, text: '' });
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(asset)));
    expect((await get('/shop/logo.png')).headers).toMatchObject({ 'content-type': 'image/png', 'cache-control': 'public, max-age=300' });
    expect((await get('/shop/robots.txt?v=2')).text).toBe('User-agent: *');
    expect((await get('/shop/docs/')).text).toBe('<h1>Docs</h1>');
    expect((await get('/shop/docs')).headers.location).toBe('docs/');
    expect((await get('/shop/products/42')).text).toBe(v1['index.html']);
    const missing = await get('/shop/missing.js');
    expect(missing).toMatchObject({ status: 404, text: NOT_FOUND_PAGE });
    expect((await get('/shop/%2e%2e/%2e%2e/bootstrap.json')).status).toBe(404);
    expect((await get('/shop/', {}, 'POST')).status).toBe(405);
  });

  it('serves the platform-owned files, never the package’s', async () => {
    expect((await get('/shop/settings/app.js')).text).toBe(
      `window.__settings = window.__settings || {}; window.__settings.app = {"company_name":"Acme","show_promo_code":true,"app_id":"${appId}","account_id":"${accountId}","alias":"shop","test":false};\n`,
    );
    const account = JSON.parse((await get('/shop/settings/account.json', { 'Accept-Language': 'de-DE' })).text);
    expect(Object.keys(account)).toEqual(['account_id', 'test', 'company_name', 'support_email', 'support_website', 'currencies', 'allow_save_cards', 'payment_method_types', 'stripe_publishable_key', 'date_utc', 'browser_info']);
    expect(account).toMatchObject({ account_id: accountId, test: false, payment_method_types: ['credit_card'], browser_info: { locale: 'de-DE', language: 'de' } });
    expect((await get('/shop/analytics/pageview.js')).text).toBe('window.__pageview = window.__pageview || { recordPageLoad: function () {} };\n');
    const callback = await get('/shop/oauth/callback.html');
    expect(callback.text).toBe(CALLBACK_PAGE);
    expect(callback.headers).toMatchObject({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    expect((await get('/shop/settings/other.js')).status).toBe(404);
  });

  it('runs the callback page in a browser-like context and lands on the app', async () => {
    const page = (await get('/shop/oauth/callback.html')).text;
    const script = /<script>([\s\S]*)<\/script>/.exec(page)![1]!;
    const cookies: string[] = [];
    let target = '';
    runInNewContext(script, {
      location: { hash: '#access_token=lt.live.abc&cart_id=C1&redirect_uri=%2F%2Fevil.test', protocol: 'http:', host: appHost(), pathname: '/shop/oauth/callback.html', search: '', replace: (next: string) => (target = next) },
      document: { set cookie(value: string) { cookies.push(value); } },
      history: { replaceState: () => undefined },
    });
    expect(cookies[0]).toBe('token=lt.live.abc; path=/; max-age=1209600; SameSite=Lax');
    expect(target).toBe('/shop/');
    expect(createHash('sha256').update(script).digest('base64')).toBe(/sha256-([^']+)/.exec((await get('/shop/oauth/callback.html')).headers['content-security-policy'] as string)![1]);
  });

  it('serves the same app in the path form', async () => {
    expect((await getPathForm('/shop/')).text).toBe(v1['index.html']);
    expect(new URL((await getPathForm('/shop')).headers.location as string, `http://localhost:${runtime.port}/apps/${accountId}/shop`).pathname).toBe(`/apps/${accountId}/shop/`);
    expect((await getPathForm('/shop/settings/app.json')).text).toContain(`"alias":"shop"`);
  });

  it('switches versions on deploy and rollback, at once', async () => {
    const second = await upload(v2, '2.0.0');
    versions.v2 = second.body.version_id;
    expect((await deploy(versions.v2!)).status).toBe(201);
    expect((await get('/shop/')).text).toBe(v2['index.html']);
    const lost = await get('/shop/missing.js');
    expect(lost).toMatchObject({ status: 404, text: v2['404.html'] });
    expect((await get('/shop/assets/index-BxT3kz9Q.js')).status).toBe(404);
    const rollback = await api(`${base}apps/${appId}/rollback`, { method: 'POST', token });
    expect(rollback.status, rollback.text).toBe(201);
    expect((await get('/shop/')).text).toBe(v1['index.html']);
  });

  it('shows settings changes on the next load and moves the address with the alias', async () => {
    expect((await api(`${base}apps/${appId}`, { method: 'POST', token, body: { settings: { company_name: 'Acme 2' }, custom_css: 'body{color:red}' } })).status).toBe(200);
    expect((await get('/shop/settings/app.json')).text).toContain('"company_name":"Acme 2"');
    expect((await get('/shop/settings/style.css')).text).toBe('body{color:red}');
    expect((await api(`${base}apps/${appId}`, { method: 'POST', token, body: { alias: 'store' } })).status).toBe(200);
    expect((await get('/shop/')).status).toBe(404);
    expect((await get('/store/')).text).toBe(v1['index.html']);
  });

  it('keeps the app on its own account’s host', async () => {
    const otherHost = `qw12er34ty56.apps.localhost:${runtime.port}`;
    expect((await hostRequest(runtime.port, otherHost, '/store/')).status).toBe(404);
    expect((await hostRequest(runtime.port, `localhost:${runtime.port}`, '/apps/QW12ER34TY56/store/')).status).toBe(404);
  });

  it('stops serving every alias when the app is deleted', async () => {
    expect((await api(`${base}apps/${appId}`, { method: 'DELETE', token })).status).toBe(204);
    for (const path of ['/store/', '/store/settings/app.js']) expect((await get(path)).status, path).toBe(404);
  });
});
