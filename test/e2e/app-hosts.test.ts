/**
 * End-to-end over HTTP against a real local runtime holding two accounts: app hosts and the
 * API on them (hosting.md §1, §9, §11) and the public account settings (§7.1). What needs no
 * uploaded app: links on the app host, another account's token refused there, forwarded
 * headers from clients ignored, CORS from the account's app host, HTML 404s for unknown
 * aliases in both address forms, and `account.js|json` without a token.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_FOUND_PAGE } from '../../shared/hosting/serving';
import { api, startRuntime, tempDataDir, type RuntimeProcess } from '../support/runtime-process';
import { hostRequest } from '../support/host-request';

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
