/** Limited tokens (auth.md section 3) over HTTP: minting, base rights, expiry header, isolation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let live: string;
let test: string;

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  live = runtime.bootstrap.tokens.live_secret;
  test = runtime.bootstrap.tokens.test_secret;
  for (const [token, product] of [
    [live, { product_id: 'shown', name: 'Shown', type: 'digital', prices: [{ currency: 'USD', price: 5 }] }],
    [live, { product_id: 'hidden-one', name: 'Hidden', type: 'digital', hidden: true, prices: [{ currency: 'USD', price: 5 }] }],
    [live, { product_id: 'inactive', name: 'Inactive', type: 'digital', active: false, prices: [{ currency: 'USD', price: 5 }] }],
    [test, { product_id: 'test-shown', name: 'Test shown', type: 'digital', prices: [{ currency: 'USD', price: 5 }] }],
  ] as const) {
    expect((await api(`${base}products`, { method: 'POST', token, body: product })).status).toBe(201);
  }
});
afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

const mint = (query: string, token?: string) => api(`${base}auths/limited?${query}`, { method: 'POST', ...(token ? { token } : {}) });

describe('POST /auths/limited', () => {
  it('mints a live token for anyone, with the issued token in the answer and its idle expiry in the header', async () => {
    const minted = await mint(`account_id=${account}&timezone=UTC&user_locale=en-US`);
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ object: 'auth', type: 'limited', test: false, account_id: account, bindings: [], bindings_count: 0, expires_in_seconds: 1209600 });
    expect(minted.body.token).toMatch(/^lt\.live\.[0-9A-Za-z]{40}$/);
    expect(minted.headers.get('x-token-expires-in-seconds')).toBe('1209600');
    expect(minted.headers.get('location')).toBe(minted.body.url);
    expect(minted.body.effective_permissions.products).toEqual({ read: true, create: false, update: false, delete: false });
    expect(minted.body.effective_permissions.carts.create).toBe(true);
    expect(minted.body.permissions).toBeNull();
    const me = await api(`${base}auths/me`, { token: minted.body.token });
    expect(me.status).toBe(200);
    expect(me.headers.get('x-token-expires-in-seconds')).toBe('1209600');
    expect(me.body.token).toBe(`lt.live...${minted.body.token.slice(-4)}`);
  });

  it('shapes the answer with show, as storefronts ask for it', async () => {
    const minted = await mint(`account_id=${account}&show=token,expires_in_seconds`);
    expect(Object.keys(minted.body).sort()).toEqual(['expires_in_seconds', 'token', 'url']);
  });

  it('needs an account: 400 without one, 404 for an unknown one, 403 when it differs from the token', async () => {
    const missing = await mint('');
    expect(missing.status).toBe(400);
    expect(missing.body.error.meta).toMatchObject({ parameter: 'account_id' });
    expect((await mint('account_id=NOSUCHACCOUNT')).status).toBe(404);
    expect((await mint('account_id=OTHER1234567', live)).status).toBe(403);
    const fromToken = await mint('', live);
    expect(fromToken.status).toBe(201);
    expect(fromToken.body.account_id).toBe(account);
    expect((await mint(`account_id=${account}`, 'sk.live.invalidinvalidinvalidinvalidinvalid00')).status).toBe(401);
  });

  it('gives test tokens only to secret or trusted callers, or when the account allows it', async () => {
    expect((await mint(`account_id=${account}&test=true`)).status).toBe(403);
    const viaSecret = await mint(`account_id=${account}&test=true`, live);
    expect(viaSecret.status).toBe(201);
    expect(viaSecret.body.token).toMatch(/^lt\.test\./);
    const weak = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { permissions: [{ resource: 'products', methods: ['read'] }] } });
    expect((await mint('test=true', weak.body.token)).status).toBe(403);
    const limited = (await mint(`account_id=${account}`)).body.token;
    expect((await mint('test=true', limited)).status).toBe(403);
    await api(`${base}settings/technical`, { method: 'POST', token: live, body: { allow_public_limited_test_tokens: true } });
    expect((await mint(`account_id=${account}&test=true`)).status).toBe(201);
  });
});

describe('base rights of a limited token', () => {
  it('lists active, visible products of its mode only, and reads hidden ones by id', async () => {
    const token = (await mint(`account_id=${account}`)).body.token;
    const list = await api(`${base}products?hidden=true&active=false`, { token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { product_id: string }) => p.product_id)).toEqual(['shown']);
    expect(list.body.total_items).toBe(1);
    expect((await api(`${base}products/hidden-one`, { token })).status).toBe(200);
    expect((await api(`${base}products/inactive`, { token })).status).toBe(404);
    expect((await api(`${base}products/test-shown`, { token })).body.error.code).toBe('token_type_mismatch');
  });

  it('cannot write products nor list anything else (403)', async () => {
    const token = (await mint(`account_id=${account}`)).body.token;
    for (const [method, path] of [['POST', 'products'], ['GET', 'customers'], ['GET', 'auths'], ['GET', 'settings/technical'], ['DELETE', 'products/shown']] as const) {
      const response = await api(`${base}${path}`, { method, token, ...(method === 'POST' ? { body: { name: 'x' } } : {}) });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error.code).toBe('insufficient_permissions');
    }
  });

  it('can revoke itself', async () => {
    const token = (await mint(`account_id=${account}`)).body.token;
    expect((await api(`${base}auths/me`, { method: 'DELETE', token })).status).toBe(204);
    expect((await api(`${base}auths/me`, { token })).status).toBe(401);
  });

  it('checks browser origins of the public endpoint against the named account', async () => {
    const allowed = await api(`${base}auths/limited?account_id=${account}`, { method: 'POST', headers: { Origin: 'http://localhost:3000' } });
    expect(allowed.status).toBe(201);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const refused = await api(`${base}auths/limited?account_id=${account}`, { method: 'POST', headers: { Origin: 'https://shop.evil.example' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('invalid_origin');
  });
});

describe('per-IP limit of public endpoints', () => {
  it('answers 429 with Retry-After once an anonymous client exhausts its bucket', async () => {
    const limitedRuntime = await startRuntime({ env: { CARTWHEEL_RATE_PER_IP: '1/2' } });
    try {
      const url = `${limitedRuntime.bootstrap.api_url}auths/limited?account_id=${limitedRuntime.bootstrap.account_id}`;
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await api(url, { method: 'POST' })).status);
      expect(statuses).toEqual([201, 201, 429]);
      // With a valid bearer token the caller's own bucket applies instead.
      expect((await api(url, { method: 'POST', token: limitedRuntime.bootstrap.tokens.live_secret })).status).toBe(201);
    } finally {
      await limitedRuntime.stop();
    }
  });
});
