/**
 * End-to-end over HTTP against a real local runtime holding two accounts: app hosts and the
 * API on them (hosting.md §1, §9, §11) and the public account settings (§7.1): links on the
 * app host, another account's token refused there, forwarded headers from clients ignored,
 * CORS from the account's app host, HTML 404s for unknown aliases in both address forms,
 * `account.js|json` without a token, and both accounts serving an app under the same alias,
 * each host reaching only its own files, settings and API.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_FOUND_PAGE } from '../../shared/modules/hosting/serving';
import { api, startRuntime, tempDataDir, type RuntimeProcess } from '../support/runtime-process';
import { hostRequest } from '../support/host-request';
import { zipFiles } from '../support/zip-writer';

const ROOT = resolve(import.meta.dirname, '../..');
let runtime: RuntimeProcess;
let accountId: string;
let token: string;
let other: { account_id: string; tokens: { live_secret: string } };

beforeAll(async () => {
  const dataDir = tempDataDir();
  // A second account, written while the runtime is stopped (the operator command).
  const created = spawnSync(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', '--import', 'tsx', join(ROOT, 'infra/accounts/create-account.ts'), '--company', 'Other Shop', '--email', 'other@example.test', '--user-id', 'other-owner'],
    { cwd: ROOT, env: { ...process.env, CARTWHEEL_DATA_DIR: dataDir }, encoding: 'utf8' },
  );
  expect(created.status, created.stderr).toBe(0);
  other = JSON.parse(created.stdout);
  runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  accountId = runtime.bootstrap.account_id;
  token = runtime.bootstrap.tokens.live_secret;
});
afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

const appHost = (account: string) => `${account.toLowerCase()}.apps.localhost:${runtime.port}`;

describe('the API on an app host', () => {
  it('answers in-process with links on the app host', async () => {
    const response = await hostRequest(runtime.port, appHost(accountId), '/api/v1/auths/me', { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status, response.text).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(JSON.parse(response.text).url).toMatch(new RegExp(`^http://${appHost(accountId)}/api/v1/auths/`));
    const list = await hostRequest(runtime.port, appHost(accountId), '/api/v1/auths?limit=1', { headers: { Authorization: `Bearer ${token}` } });
    expect(JSON.parse(list.text).current_page_url).toMatch(new RegExp(`^http://${appHost(accountId)}/api/v1/auths\\?`));
  });

  it('sends Location on the app host for created resources', async () => {
    const response = await hostRequest(runtime.port, appHost(accountId).toUpperCase(), '/api/v1/auths/secret', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ permissions: [{ resource: 'orders', methods: ['read'] }] }),
    });
    expect(response.status, response.text).toBe(201);
    expect(response.headers.location).toMatch(new RegExp(`^http://${appHost(accountId).toUpperCase()}/api/v1/auths/`, 'i'));
  });

  it('refuses another account’s token with 401 invalid_token in the envelope', async () => {
    const response = await hostRequest(runtime.port, appHost(accountId), '/api/v1/auths/me', { headers: { Authorization: `Bearer ${other.tokens.live_secret}` } });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.text).error).toMatchObject({ code: 'invalid_token', status: 401 });
    // The same token is fine on its own app host and on the API host.
    expect((await hostRequest(runtime.port, appHost(other.account_id), '/api/v1/auths/me', { headers: { Authorization: `Bearer ${other.tokens.live_secret}` } })).status).toBe(200);
    expect((await api(`${runtime.bootstrap.api_url}auths/me`, { token: other.tokens.live_secret })).status).toBe(200);
  });

  it('ignores X-Forwarded-Host from clients on the API host', async () => {
    const response = await api(`${runtime.bootstrap.api_url}auths/me`, { token, headers: { 'X-Forwarded-Host': appHost(other.account_id), 'X-Cartwheel-Edge': 'guess' } });
    expect(response.status).toBe(200);
    expect(response.body.url).toMatch(new RegExp(`^http://localhost:${runtime.port}/api/v1/`));
  });

  it('lets the account’s own app host call the API host cross-origin, and no other account’s', async () => {
    const own = await api(`${runtime.bootstrap.api_url}auths/me`, { token, headers: { Origin: `http://${appHost(accountId)}` } });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBe(`http://${appHost(accountId)}`);
    const foreign = await api(`${runtime.bootstrap.api_url}auths/me`, { token, headers: { Origin: `http://${appHost(other.account_id)}` } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('invalid_origin');
  });
});

describe('app addresses without a deployed app', () => {
  it('answer the HTML 404 page in both forms, and 405 to other methods', async () => {
    for (const [host, path] of [
      [appHost(accountId), '/shop/'],
      [appHost(accountId), '/'],
      [`localhost:${runtime.port}`, `/apps/${accountId}/shop/`],
    ] as const) {
      const response = await hostRequest(runtime.port, host, path);
      expect(response.status, `${host}${path}`).toBe(404);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.text).toBe(NOT_FOUND_PAGE);
    }
    const post = await hostRequest(runtime.port, appHost(accountId), '/shop/', { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});

describe('GET /app_installations/public_settings/{account_id}/{live|test}/account.js|json', () => {
  const url = (account: string, mode: string, file: string) => `${runtime.bootstrap.api_url}app_installations/public_settings/${account}/${mode}/${file}`;

  it('serves the account object without a token, every key, test following the path', async () => {
    const response = await api(url(accountId, 'test', 'account.json'), { headers: { 'Accept-Language': 'fr-ca,fr;q=0.8', 'User-Agent': 'E2E/1' } });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const today = new Date().toISOString().slice(0, 10);
    expect(response.body).toEqual({
      account_id: accountId,
      test: true,
      company_name: 'Local Merchant',
      support_email: 'owner@example.test',
      support_website: null,
      currencies: [{ code: 'USD', name: 'US Dollar' }],
      allow_save_cards: true,
      payment_method_types: ['credit_card'],
      // hosting.md §7.1: null while this mode has no Stripe connection.
      stripe_publishable_key: null,
      date_utc: `${today}T00:00:00Z`,
      browser_info: { accept_language: 'fr-ca,fr;q=0.8', locale: 'fr-CA', language: 'fr', accept: '*/*', user_agent: 'E2E/1' },
    });
    const script = await api(url(accountId, 'live', 'account.js'));
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.text).toMatch(new RegExp(`^window\\.__settings = window\\.__settings \\|\\| \\{\\}; window\\.__settings\\.account = \\{"account_id":"${accountId}","test":false,.*\\};\\n$`));
  });

  it('follows the payment settings', async () => {
    const saved = await api(`${runtime.bootstrap.api_url}settings/payment`, { method: 'POST', token, body: { currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.9 }, allow_save_cards: false } });
    expect(saved.status, saved.text).toBe(200);
    const response = await api(url(accountId, 'live', 'account.json'));
    expect(response.body).toMatchObject({ currencies: [{ code: 'USD', name: 'US Dollar' }, { code: 'EUR', name: 'Euro' }], allow_save_cards: false });
  });

  it('answers 404 in the envelope for an unknown account or mode', async () => {
    for (const target of [url('NOSUCHACCOUNT', 'live', 'account.js'), url(accountId, 'prod', 'account.json')]) {
      const response = await api(target);
      expect(response.status, target).toBe(404);
      expect(response.body.error.code).toBe('resource_not_found');
    }
  });
});

describe('two accounts’ apps on one runtime', () => {
  /** Creates app `shop` of an account with `files`, uploads and deploys it; answers the app id. */
  async function deployShop(apiToken: string, files: Record<string, string>, settings: Record<string, unknown>): Promise<string> {
    const base = runtime.bootstrap.api_url;
    const app = await api(`${base}apps`, { method: 'POST', token: apiToken, body: { name: 'Shop', alias: 'shop', settings } });
    expect(app.status, app.text).toBe(201);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(zipFiles(files))]), 'shop.zip');
    const uploaded = await fetch(`${base}apps/${app.body.app_id}/versions`, { method: 'POST', headers: { Authorization: `Bearer ${apiToken}` }, body: form });
    expect(uploaded.status).toBe(201);
    const version = (await uploaded.json()) as { version_id: string };
    expect((await api(`${base}apps/${app.body.app_id}/deploy`, { method: 'POST', token: apiToken, body: { version_id: version.version_id } })).status).toBe(201);
    return app.body.app_id;
  }

  it('each host serves only its own account’s files, settings and API, under the same alias', async () => {
    const mine = await deployShop(token, { 'index.html': '<h1>Mine</h1>', 'secret.txt': 'mine only' }, { owner: 'mine' });
    const theirs = await deployShop(other.tokens.live_secret, { 'index.html': '<h1>Theirs</h1>', 'private.txt': 'theirs only' }, { owner: 'theirs' });
    expect((await hostRequest(runtime.port, appHost(accountId), '/shop/')).text).toContain('Mine');
    expect((await hostRequest(runtime.port, appHost(other.account_id), '/shop/')).text).toContain('Theirs');
    // Files of the other account are not reachable by name, by path form tricks or by traversal.
    expect((await hostRequest(runtime.port, appHost(accountId), '/shop/private.txt')).status).toBe(404);
    expect((await hostRequest(runtime.port, appHost(other.account_id), '/shop/secret.txt')).status).toBe(404);
    expect((await hostRequest(runtime.port, appHost(accountId), `/shop/..%2f..%2fapps%2f${other.account_id}%2fshop%2fprivate.txt`)).status).toBe(404);
    expect((await hostRequest(runtime.port, appHost(accountId), `/apps/${other.account_id}/shop/private.txt`)).text).not.toContain('theirs only');
    // Settings: each host injects its own app and account.
    const mineSettings = JSON.parse((await hostRequest(runtime.port, appHost(accountId), '/shop/settings/app.json')).text);
    const theirSettings = JSON.parse((await hostRequest(runtime.port, appHost(other.account_id), '/shop/settings/app.json')).text);
    expect(mineSettings).toMatchObject({ owner: 'mine', app_id: mine, account_id: accountId });
    expect(theirSettings).toMatchObject({ owner: 'theirs', app_id: theirs, account_id: other.account_id });
    expect(JSON.parse((await hostRequest(runtime.port, appHost(other.account_id), '/shop/settings/account.json')).text).account_id).toBe(other.account_id);
    // API: a token works only on its own account's host.
    const theirOrders = await hostRequest(runtime.port, appHost(other.account_id), '/api/v1/apps', { headers: { Authorization: `Bearer ${token}` } });
    expect(theirOrders.status).toBe(401);
    const ownApps = await hostRequest(runtime.port, appHost(other.account_id), '/api/v1/apps', { headers: { Authorization: `Bearer ${other.tokens.live_secret}` } });
    expect(JSON.parse(ownApps.text).data.map((app: { app_id: string }) => app.app_id)).toEqual([theirs]);
  });
});
