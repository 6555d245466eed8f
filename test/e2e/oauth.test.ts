/**
 * OAuth apps over HTTP against a real local runtime with the manual clock (auth.md 6): apps
 * managed at /oauth_apps with their client secret shown once; the authorization-code grant with
 * PKCE through the authorize page's sign-in and consent screen and POST /oauth/token (a wrong
 * verifier refused and the code still good, a code used twice refused and what its first use
 * issued revoked, refresh tokens rotated and a reused one revoking the grant, codes lapsing
 * after 5 minutes on the driven clock); the implicit grant; the page's faults, headers and
 * languages; rights narrowed by the app; the per-IP limit on the token endpoint; and another
 * account's users, apps and tokens out of reach.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeWithSecondAccount, type RuntimeProcess } from '../support/runtime-process';
import { fragmentOf } from '../support/sign-in';
import { answerConsent, authorizeThrough, hiddenFields, openAuthorize, pkcePair, postAuthorize, queryOf, signInToAuthorize, tokenRequest } from '../support/oauth';

/** Per token unlimited; per address a burst of 60 (the throttle test drains it on the manual clock). */
const RATES = { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '1/60' };
const CALLBACK = 'https://app.example.test/cb';
const ADMIN = 'https://admin.example.test/oauth/index.html';
const NATIVE = 'http://127.0.0.1:8765/callback?from=app';

let runtime: RuntimeProcess;
let base: string;
let signin: string;
let secret: string;
let owner: { user_id: string; password: string };
let other: { account_id: string; owner: { user_id: string; password: string }; tokens: { live_secret: string; test_secret: string } };
/** A confidential app (client id and secret) and a public one. */
let app: { id: string; clientId: string; secret: string };
let publicApp: { id: string; clientId: string };

function expectError(response: { status: number; body: any; text: string }, status: number, code: string, oauthError?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body.error).toMatchObject({ code, status });
  if (oauthError) expect(response.body.error.meta?.oauth_error, response.text).toBe(oauthError);
}

async function advanceClock(seconds: number): Promise<void> {
  expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: seconds } })).status).toBe(200);
}

/** Refills the per-address bucket (60 at 1 per second) on the manual clock. */
const refillAddressBucket = () => advanceClock(60);

/** A code for the confidential app through the page (owner signs in and allows), with a PKCE pair. */
async function codeFor(extra: Record<string, string> = {}, client = app.clientId): Promise<{ code: string; verifier: string; state: string }> {
  const { verifier, challenge } = pkcePair();
  const state = `s-${Math.random().toString(36).slice(2)}`;
  const answer = await authorizeThrough(signin, { response_type: 'code', client_id: client, redirect_uri: CALLBACK, state, code_challenge: challenge, code_challenge_method: 'S256', ...extra }, owner.user_id, owner.password);
  expect(answer.status, answer.html).toBe(303);
  const query = queryOf(answer.location);
  expect(query.state).toBe(state);
  expect(query.code, answer.location ?? '').toMatch(/^[0-9A-Za-z]{40}$/);
  return { code: query.code!, verifier, state };
}

const basic = () => ({ clientId: app.clientId, secret: app.secret });

/** Exchanges a code for tokens with the confidential app's credentials. */
function exchange(code: string, verifier: string | undefined, options: { json?: boolean; redirectUri?: string } = {}) {
  return tokenRequest(base, { grant_type: 'authorization_code', code, redirect_uri: options.redirectUri ?? CALLBACK, ...(verifier ? { code_verifier: verifier } : {}) }, { basic: basic(), ...(options.json ? { json: true } : {}) });
}

beforeAll(async () => {
  ({ runtime, other } = await startRuntimeWithSecondAccount({ env: RATES }));
  base = runtime.bootstrap.api_url;
  signin = runtime.bootstrap.signin_url;
  secret = runtime.bootstrap.tokens.live_secret;
  owner = { user_id: 'owner', password: runtime.bootstrap.owner.password };
  expect((await api(`${base}settings/technical`, { method: 'POST', token: secret, body: { oauth_redirect_uris: [ADMIN] } })).status).toBe(200);
  const made = await api(`${base}oauth_apps`, { method: 'POST', token: secret, body: { name: 'Shop Sync', description: 'Keeps the shop in step', redirect_uris: [CALLBACK, NATIVE] } });
  expect(made.status, made.text).toBe(201);
  app = { id: made.body.oauth_app_id, clientId: made.body.client_id, secret: made.body.client_secret };
  const madePublic = await api(`${base}oauth_apps`, { method: 'POST', token: secret, body: { name: 'Phone App', client_type: 'public', redirect_uris: [CALLBACK] } });
  expect(madePublic.status, madePublic.text).toBe(201);
  publicApp = { id: madePublic.body.oauth_app_id, clientId: madePublic.body.client_id };
}, 180_000);

afterAll(async () => {
  if (runtime) expect(await runtime.stop('SIGTERM')).toBe(0);
});

describe('/oauth_apps', () => {
  it('shows a confidential app its client secret once, stores it redacted, and finds it by id and in the list', async () => {
    expect(app.secret).toMatch(/^cs_[0-9A-Za-z]{40}$/);
    expect(app.clientId).toMatch(/^ci_/);
    const read = await api(`${base}oauth_apps/${app.id}`, { token: secret });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({
      object: 'oauth_app', oauth_app_id: app.id, url: `${base}oauth_apps/${app.id}`, name: 'Shop Sync', description: 'Keeps the shop in step',
      client_id: app.clientId, client_secret: `cs_...${app.secret.slice(-4)}`, client_type: 'confidential', redirect_uris: [CALLBACK, NATIVE], permissions: null, active: true,
    });
    expect(read.text).not.toContain(app.secret);
    const publicRead = await api(`${base}oauth_apps/${publicApp.id}`, { token: secret });
    expect(publicRead.body).toMatchObject({ client_type: 'public', client_secret: null });
    const list = await api(`${base}oauth_apps?sort_by=name`, { token: secret });
    expect(list.status, list.text).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', total_items: 2, current_page: 1 });
    expect(list.body.data.map((entry: { name: string }) => entry.name)).toEqual(['Phone App', 'Shop Sync']);
    expect(list.text).not.toContain(app.secret);
    // Account-wide: a test token of the account sees the same apps.
    expect((await api(`${base}oauth_apps/${app.id}`, { token: runtime.bootstrap.tokens.test_secret })).body.name).toBe('Shop Sync');
  });

  it('changes an app partially, ignores client_id and client_type, deletes it, and gives a new secret that replaces the old one', async () => {
    const made = await api(`${base}oauth_apps`, { method: 'POST', token: secret, body: { name: 'Temp', redirect_uris: ['https://temp.example.test/cb'] } });
    expect(made.status, made.text).toBe(201);
    expect(made.headers.get('location')).toBe(`${base}oauth_apps/${made.body.oauth_app_id}`);
    const id = made.body.oauth_app_id;
    const changed = await api(`${base}oauth_apps/${id}`, { method: 'POST', token: secret, body: { ...made.body, name: 'Temp 2', client_id: 'ci_mine', client_type: 'public', active: false } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Temp 2', client_id: made.body.client_id, client_type: 'confidential', active: false });
    const reset = await api(`${base}oauth_apps/${id}/reset_secret`, { method: 'POST', token: secret });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.client_secret).toMatch(/^cs_[0-9A-Za-z]{40}$/);
    expect(reset.body.client_secret).not.toBe(made.body.client_secret);
    // The old secret no longer authenticates the client, the new one does (the grant itself is then judged).
    const old = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: 'rt.live.0000000000000000000000000000000000000000' }, { basic: { clientId: made.body.client_id, secret: made.body.client_secret } });
    expectError(old, 401, 'invalid_login', 'invalid_client');
    expect(old.headers.get('www-authenticate')).toContain('Basic');
    const fresh = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: 'rt.live.0000000000000000000000000000000000000000' }, { basic: { clientId: made.body.client_id, secret: reset.body.client_secret } });
    expectError(fresh, 400, 'invalid_input', 'invalid_grant');
    expectError(await api(`${base}oauth_apps/${publicApp.id}/reset_secret`, { method: 'POST', token: secret }), 422, 'invalid_state');
    expect((await api(`${base}oauth_apps/${id}`, { method: 'DELETE', token: secret })).status).toBe(204);
    expectError(await api(`${base}oauth_apps/${id}`, { token: secret }), 404, 'resource_not_found');
    expectError(await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: 'rt.live.0000000000000000000000000000000000000000' }, { basic: { clientId: made.body.client_id, secret: reset.body.client_secret } }), 401, 'invalid_login', 'invalid_client');
    await refillAddressBucket();
  });

  it('is governed by the auths permissions, and nobody caps an app above what they hold', async () => {
    const shopper = (await api(`${base}auths/limited?account_id=${runtime.bootstrap.account_id}`, { method: 'POST' })).body.token;
    expectError(await api(`${base}oauth_apps`, { token: shopper }), 403, 'insufficient_permissions');
    const readOnly = await api(`${base}auths/secret`, { method: 'POST', token: secret, body: { permissions: [{ resource: 'auths', methods: ['read'] }] } });
    expect((await api(`${base}oauth_apps`, { token: readOnly.body.token })).status).toBe(200);
    expectError(await api(`${base}oauth_apps`, { method: 'POST', token: readOnly.body.token, body: { name: 'X' } }), 403, 'insufficient_permissions');
    const creator = await api(`${base}auths/secret`, { method: 'POST', token: secret, body: { permissions: [{ resource: 'auths', methods: ['*'] }, { resource: 'orders', methods: ['read'] }] } });
    const escalation = await api(`${base}oauth_apps`, { method: 'POST', token: creator.body.token, body: { name: 'X', permissions: [{ resource: 'products', methods: ['*'] }] } });
    expectError(escalation, 403, 'insufficient_permissions');
    expect(escalation.body.error.meta.denied).toContain('products:create');
    const within = await api(`${base}oauth_apps`, { method: 'POST', token: creator.body.token, body: { name: 'Within', permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expect(within.status, within.text).toBe(201);
    expect((await api(`${base}oauth_apps/${within.body.oauth_app_id}`, { method: 'DELETE', token: secret })).status).toBe(204);
  });
});

describe('the authorization-code grant with PKCE', () => {
  it('refuses a wrong verifier and a wrong redirect_uri without spending the code, then gives tokens for the right ones', async () => {
    await refillAddressBucket();
    const { code, verifier } = await codeFor();
    const wrong = await exchange(code, pkcePair().verifier);
    expectError(wrong, 400, 'invalid_input', 'invalid_grant');
    expect(wrong.body.error.meta.property).toBe('code_verifier');
    expectError(await exchange(code, undefined), 400, 'invalid_input', 'invalid_grant');
    expectError(await exchange(code, verifier, { redirectUri: `${CALLBACK}/` }), 400, 'invalid_input', 'invalid_grant');
    expectError(await tokenRequest(base, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier }, { basic: { clientId: app.clientId, secret: `${app.secret.slice(0, -1)}x` } }), 401, 'invalid_login', 'invalid_client');

    const right = await exchange(code, verifier);
    expect(right.status, right.text).toBe(200);
    expect(right.headers.get('cache-control')).toBe('no-store');
    expect(right.headers.get('content-type')).toBe('application/json');
    expect(right.headers.get('x-token-expires-in-seconds')).toBe('3600');
    expect(right.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, account_id: runtime.bootstrap.account_id, user_id: 'owner' });
    expect(right.body.access_token).toMatch(/^tt\.live\.[0-9A-Za-z]{40}$/);
    expect(right.body.refresh_token).toMatch(/^rt\.live\.[0-9A-Za-z]{40}$/);
    const me = await api(`${base}users/me`, { token: right.body.access_token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.user_id).toBe('owner');
    const auth = await api(right.body.auth, { token: right.body.access_token });
    expect(auth.body).toMatchObject({ type: 'trusted', oauth_app: `${base}oauth_apps/${app.id}`, user: `${base}users/owner`, token: `tt.live...${right.body.access_token.slice(-4)}` });
    // A refresh token is never a bearer token.
    expectError(await api(`${base}users/me`, { token: right.body.refresh_token }), 401, 'invalid_token');
  });

  it('refuses a code used twice and revokes the tokens its first use issued', async () => {
    await refillAddressBucket();
    const { code, verifier } = await codeFor();
    const first = await exchange(code, verifier, { json: true });
    expect(first.status, first.text).toBe(200);
    expect((await api(`${base}users/me`, { token: first.body.access_token })).status).toBe(200);
    const second = await exchange(code, verifier);
    expectError(second, 400, 'invalid_input', 'invalid_grant');
    expect(second.body.error.meta.property).toBe('code');
    expectError(await api(`${base}users/me`, { token: first.body.access_token }), 401, 'invalid_token');
    expectError(await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, { basic: basic() }), 400, 'invalid_input', 'invalid_grant');
    // The revoked token is gone from the account's tokens too.
    expectError(await api(first.body.auth, { token: secret }), 404, 'resource_not_found');
  });

  it('rotates the refresh token on every use; presenting a spent one revokes every token of the grant', async () => {
    await refillAddressBucket();
    const { code, verifier } = await codeFor();
    const first = await exchange(code, verifier);
    expect(first.status, first.text).toBe(200);
    // Client credentials in the body this time, and a JSON body.
    const second = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: app.clientId, client_secret: app.secret }, { json: true });
    expect(second.status, second.text).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    expect((await api(`${base}users/me`, { token: second.body.access_token })).status).toBe(200);
    const third = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: second.body.refresh_token }, { basic: basic() });
    expect(third.status, third.text).toBe(200);
    // A test twin keeps the app's limits and belongs to the grant, though the grant never listed it:
    // revoking the grant ends it through the grant check alone (what a crash between marking and deleting relies on).
    const twin = await api(`${base}auths/trusted?test=true`, { method: 'POST', token: third.body.access_token });
    expect(twin.status, twin.text).toBe(201);
    expect(twin.body.oauth_app).toBe(`${base}oauth_apps/${app.id}`);
    expect((await api(`${base}users/me`, { token: twin.body.token })).status).toBe(200);
    // The first refresh token again: refused, and the whole grant ends.
    const reused = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, { basic: basic() });
    expectError(reused, 400, 'invalid_input', 'invalid_grant');
    expect(reused.body.error.meta.property).toBe('refresh_token');
    for (const token of [first.body.access_token, second.body.access_token, third.body.access_token, twin.body.token]) expectError(await api(`${base}users/me`, { token }), 401, 'invalid_token');
    // The twin's record is still there (only the grant check refuses it), the listed ones are gone.
    expect((await api(`${base}auths/${twin.body.auth_id}`, { token: secret })).status).toBe(200);
    expectError(await api(third.body.auth, { token: secret }), 404, 'resource_not_found');
    expectError(await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: third.body.refresh_token }, { basic: basic() }), 400, 'invalid_input', 'invalid_grant');
  });

  it('lets a code lapse 5 minutes after it was issued (on the driven clock)', async () => {
    await refillAddressBucket();
    const early = await codeFor();
    const late = await codeFor();
    await advanceClock(4 * 60 + 50);
    expect((await exchange(early.code, early.verifier)).status).toBe(200);
    await advanceClock(11);
    const lapsed = await exchange(late.code, late.verifier);
    expectError(lapsed, 400, 'invalid_input', 'invalid_grant');
  });

  it('takes a public app with client_id alone but only with the code_verifier, and redirects with & after a query', async () => {
    await refillAddressBucket();
    const { verifier, challenge } = pkcePair();
    const answer = await authorizeThrough(signin, { response_type: 'code', client_id: publicApp.clientId, redirect_uri: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256' }, owner.user_id, owner.password);
    expect(answer.status).toBe(303);
    const code = queryOf(answer.location).code!;
    expectError(await tokenRequest(base, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: publicApp.clientId }), 400, 'invalid_input', 'invalid_request');
    expectError(await tokenRequest(base, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: publicApp.clientId, client_secret: 'cs_guess', code_verifier: verifier }), 401, 'invalid_login', 'invalid_client');
    const tokens = await tokenRequest(base, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: publicApp.clientId, code_verifier: verifier });
    expect(tokens.status, tokens.text).toBe(200);
    const native = await authorizeThrough(signin, { response_type: 'code', client_id: app.clientId, redirect_uri: NATIVE, state: 'n' }, owner.user_id, owner.password);
    expect(native.location!.startsWith(`${NATIVE}&code=`)).toBe(true);
    // A confidential app may leave PKCE out; its code then needs no verifier.
    const plainCode = queryOf(native.location).code!;
    expect((await exchange(plainCode, undefined, { redirectUri: NATIVE })).status).toBe(200);
  });

  it('issues test-mode tokens with test=true', async () => {
    await refillAddressBucket();
    const { code, verifier } = await codeFor({ test: 'true' });
    const tokens = await exchange(code, verifier);
    expect(tokens.status, tokens.text).toBe(200);
    expect(tokens.body.access_token).toMatch(/^tt\.test\./);
    expect(tokens.body.refresh_token).toMatch(/^rt\.test\./);
    const refreshed = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, { basic: basic() });
    expect(refreshed.body.access_token).toMatch(/^tt\.test\./);
  });

  it("gives the user's rights narrowed by the app's cap, as they are at each issue", async () => {
    await refillAddressBucket();
    const capped = await api(`${base}oauth_apps`, { method: 'POST', token: secret, body: { name: 'Order Reader', redirect_uris: [CALLBACK], permissions: [{ resource: 'orders', methods: ['read', 'update'] }, { resource: 'products', methods: ['read'] }] } });
    const made = await api(`${base}users`, { method: 'POST', token: secret, body: { user_id: 'clerk', name: 'Clara Clerk', email: 'clara@example.test', password: 'correct horse battery staple', permissions: [{ resource: 'orders', methods: ['read'] }, { resource: 'customers', methods: ['*'] }] } });
    expect(made.status, made.text).toBe(201);
    const { verifier, challenge } = pkcePair();
    const answer = await authorizeThrough(signin, { response_type: 'code', client_id: capped.body.client_id, redirect_uri: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256' }, 'clerk', 'correct horse battery staple');
    const tokens = await tokenRequest(base, { grant_type: 'authorization_code', code: queryOf(answer.location).code!, redirect_uri: CALLBACK, code_verifier: verifier }, { basic: { clientId: capped.body.client_id, secret: capped.body.client_secret } });
    expect(tokens.status, tokens.text).toBe(200);
    const auth = await api(`${base}auths/me`, { token: tokens.body.access_token });
    expect(auth.body.effective_permissions.orders).toEqual({ read: true, create: false, update: false, delete: false });
    expect(auth.body.effective_permissions.products.read).toBe(false);
    expect(auth.body.effective_permissions.customers.read).toBe(false);
    expect((await api(`${base}orders`, { token: tokens.body.access_token })).status).toBe(200);
    expectError(await api(`${base}customers`, { token: tokens.body.access_token }), 403, 'insufficient_permissions');
    // The owner through the same app: the cap, not everything.
    const ownerCode = await codeFor({}, capped.body.client_id).catch(() => undefined);
    expect(ownerCode).toBeDefined();
    const ownerTokens = await tokenRequest(base, { grant_type: 'authorization_code', code: ownerCode!.code, redirect_uri: CALLBACK, code_verifier: ownerCode!.verifier }, { basic: { clientId: capped.body.client_id, secret: capped.body.client_secret } });
    const ownerAuth = await api(`${base}auths/me`, { token: ownerTokens.body.access_token });
    expect(ownerAuth.body.effective_permissions.orders).toEqual({ read: true, create: false, update: true, delete: false });
    expect(ownerAuth.body.effective_permissions.users.read).toBe(false);
    expectError(await api(`${base}users`, { token: ownerTokens.body.access_token }), 403, 'insufficient_permissions');
    // A change of the user applies from the next refresh.
    expect((await api(`${base}users/clerk`, { method: 'POST', token: secret, body: { permissions: [{ resource: 'customers', methods: ['read'] }] } })).status).toBe(200);
    const refreshed = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, { basic: { clientId: capped.body.client_id, secret: capped.body.client_secret } });
    expect(refreshed.status, refreshed.text).toBe(200);
    expectError(await api(`${base}orders`, { token: refreshed.body.access_token }), 403, 'insufficient_permissions');
  });

  it("stops a deactivated app's refresh tokens, and a deleted app's grants end with it", async () => {
    await refillAddressBucket();
    const made = await api(`${base}oauth_apps`, { method: 'POST', token: secret, body: { name: 'Short-lived', redirect_uris: [CALLBACK] } });
    const creds = { clientId: made.body.client_id, secret: made.body.client_secret };
    const answer = await authorizeThrough(signin, { response_type: 'code', client_id: creds.clientId, redirect_uri: CALLBACK }, owner.user_id, owner.password);
    const tokens = await tokenRequest(base, { grant_type: 'authorization_code', code: queryOf(answer.location).code!, redirect_uri: CALLBACK }, { basic: creds });
    expect(tokens.status, tokens.text).toBe(200);
    expect((await api(`${base}oauth_apps/${made.body.oauth_app_id}`, { method: 'POST', token: secret, body: { active: false } })).status).toBe(200);
    expectError(await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, { basic: creds }), 400, 'invalid_input', 'invalid_grant');
    expect((await openAuthorize(signin, { response_type: 'code', client_id: creds.clientId, redirect_uri: CALLBACK })).errorCode).toBe('invalid_client');
    expect((await api(`${base}users/me`, { token: tokens.body.access_token })).status).toBe(200);
    // An implicit grant's token (no grant record) is the app's too.
    expect((await api(`${base}oauth_apps/${made.body.oauth_app_id}`, { method: 'POST', token: secret, body: { active: true } })).status).toBe(200);
    const implicit = fragmentOf((await authorizeThrough(signin, { response_type: 'token', client_id: creds.clientId, redirect_uri: CALLBACK }, owner.user_id, owner.password)).location).access_token!;
    expect((await api(`${base}users/me`, { token: implicit })).status).toBe(200);
    expect((await api(`${base}oauth_apps/${made.body.oauth_app_id}`, { method: 'DELETE', token: secret })).status).toBe(204);
    expectError(await api(`${base}users/me`, { token: tokens.body.access_token }), 401, 'invalid_token');
    expectError(await api(`${base}users/me`, { token: implicit }), 401, 'invalid_token');
  });

  it("ends a user's grants when the password changes, except the one of the token that changed it", async () => {
    await refillAddressBucket();
    const login = { user_id: 'mover', password: 'a long enough passphrase' };
    expect((await api(`${base}users`, { method: 'POST', token: secret, body: { user_id: login.user_id, name: 'Mo', email: 'mo@example.test', password: login.password } })).status).toBe(201);
    const grantOf = async () => {
      const answer = await authorizeThrough(signin, { response_type: 'code', client_id: app.clientId, redirect_uri: CALLBACK }, login.user_id, login.password);
      const tokens = await tokenRequest(base, { grant_type: 'authorization_code', code: queryOf(answer.location).code!, redirect_uri: CALLBACK }, { basic: basic() });
      expect(tokens.status, tokens.text).toBe(200);
      return tokens.body;
    };
    const kept = await grantOf();
    const ended = await grantOf();
    const changed = await api(`${base}users/me`, { method: 'POST', token: kept.access_token, body: { password: 'another long passphrase', current_password: login.password } });
    expect(changed.status, changed.text).toBe(200);
    expectError(await api(`${base}users/me`, { token: ended.access_token }), 401, 'invalid_token');
    expectError(await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: ended.refresh_token }, { basic: basic() }), 400, 'invalid_input', 'invalid_grant');
    expect((await api(`${base}users/me`, { token: kept.access_token })).status).toBe(200);
    expect((await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: kept.refresh_token }, { basic: basic() })).status).toBe(200);
  });
});

describe('the implicit grant', () => {
  it('sends the browser back with a trusted token in the fragment, marked with the app', async () => {
    await refillAddressBucket();
    const answer = await authorizeThrough(signin, { response_type: 'token', client_id: app.clientId, redirect_uri: CALLBACK, state: '/orders?x=1&y' }, owner.user_id, owner.password);
    expect(answer.status, answer.html).toBe(303);
    expect(answer.location!.startsWith(`${CALLBACK}#access_token=tt.live.`)).toBe(true);
    const fragment = fragmentOf(answer.location);
    expect(fragment).toMatchObject({ token_type: 'bearer', expires_in: '3600', state: '/orders?x=1&y' });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const auth = await api(`${base}auths/me`, { token: fragment.access_token });
    expect(auth.status, auth.text).toBe(200);
    expect(auth.body).toMatchObject({ type: 'trusted', oauth_app: `${base}oauth_apps/${app.id}`, user: `${base}users/owner` });
    expect(auth.headers.get('x-token-expires-in-seconds')).toBe('3600');
  });
});

describe('the authorize page', () => {
  it('names the app on a form with the sign-in page headers, in German on request, and on the consent screen', async () => {
    const { challenge } = pkcePair();
    const form = await openAuthorize(signin, { response_type: 'code', client_id: app.clientId, redirect_uri: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256' });
    expect(form.status).toBe(200);
    expect(form.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(form.headers.get('cache-control')).toBe('no-store');
    expect(form.headers.get('referrer-policy')).toBe('no-referrer');
    expect(form.headers.get('content-security-policy')).toContain('frame-ancestors https://app.example.test');
    expect(form.html).toContain('Shop Sync');
    expect(form.html).not.toContain('<script');
    expect(form.cookie).toMatch(/^cartwheel_signin=/);
    const german = await openAuthorize(signin, { response_type: 'code', client_id: app.clientId, redirect_uri: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256' }, { 'Accept-Language': 'de-DE' });
    expect(german.html).toContain('<html lang="de">');
    expect(german.html).toContain('Passwort');
    await refillAddressBucket();
    const consent = await postAuthorize(signin, { ...hiddenFields(german.html), username: owner.user_id, password: owner.password }, german.cookie);
    expect(consent.status, consent.html).toBe(200);
    expect(consent.html).toContain('Shop Sync Zugriff auf Ihr Konto erlauben?');
    expect(consent.html).toContain('Erlauben');
    expect(consent.headers.get('cache-control')).toBe('no-store');
    // Refusing sends the browser back with access_denied and no code.
    const refused = await answerConsent(signin, consent, 'deny');
    expect(refused.status).toBe(303);
    expect(queryOf(refused.location)).toMatchObject({ error: 'access_denied' });
    expect(queryOf(refused.location).code).toBeUndefined();
    // The ticket is spent: the same consent form cannot be answered again.
    const again = await answerConsent(signin, consent, 'allow');
    expect(again.status).toBe(400);
    expect(again.errorCode).toBe('consent_expired');
  });

  it('shows an error page and never redirects for an unknown client or an unregistered redirect_uri', async () => {
    const queries: Array<Record<string, string>> = [
      { response_type: 'code', client_id: 'ci_unknown', redirect_uri: CALLBACK },
      { response_type: 'code', redirect_uri: CALLBACK },
      { response_type: 'code', client_id: app.clientId, redirect_uri: 'https://evil.example.test/cb' },
      { response_type: 'code', client_id: app.clientId, redirect_uri: `${CALLBACK}/` },
      { response_type: 'code', client_id: app.clientId, redirect_uri: ADMIN },
      { response_type: 'code', client_id: app.clientId },
    ];
    for (const query of queries) {
      const answer = await openAuthorize(signin, query);
      expect(answer.status, JSON.stringify(query)).toBe(400);
      expect(answer.location).toBeNull();
      expect(['invalid_client', 'redirect_uri_unregistered']).toContain(answer.errorCode);
    }
  });

  it('redirects other faults with error=invalid_request and the state: plain PKCE, a bad challenge, an unknown response_type, a public app without PKCE', async () => {
    const { challenge } = pkcePair();
    const cases: Array<[Record<string, string>, 'query' | 'fragment']> = [
      [{ response_type: 'code', client_id: app.clientId, code_challenge: challenge, code_challenge_method: 'plain' }, 'query'],
      [{ response_type: 'code', client_id: app.clientId, code_challenge: challenge }, 'query'],
      [{ response_type: 'code', client_id: app.clientId, code_challenge: 'short', code_challenge_method: 'S256' }, 'query'],
      [{ response_type: 'id_token', client_id: app.clientId }, 'query'],
      [{ client_id: app.clientId }, 'query'],
      [{ response_type: 'code', client_id: publicApp.clientId }, 'query'],
    ];
    for (const [query, carrier] of cases) {
      const answer = await openAuthorize(signin, { ...query, redirect_uri: CALLBACK, state: 'st 1' });
      expect(answer.status, JSON.stringify(query)).toBe(303);
      expect(answer.location!.startsWith(`${CALLBACK}?`), answer.location!).toBe(carrier === 'query');
      expect(queryOf(answer.location)).toMatchObject({ error: 'invalid_request', state: 'st 1' });
    }
  });

  it('needs the anti-forgery cookie, the right password (counted by the lockout), and a user of the app\'s own account', async () => {
    await refillAddressBucket();
    const query = { response_type: 'token', client_id: app.clientId, redirect_uri: CALLBACK };
    const form = await openAuthorize(signin, query);
    const fields = { ...hiddenFields(form.html), username: owner.user_id, password: owner.password };
    const forged = await postAuthorize(signin, fields, undefined);
    expect(forged.status).toBe(403);
    expect(forged.errorCode).toBe('invalid_origin');
    const wrong = await signInToAuthorize(signin, query, owner.user_id, 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(wrong.errorCode).toBe('invalid_login');
    expect(wrong.location).toBeNull();
    const stranger = await signInToAuthorize(signin, query, other.owner.user_id, other.owner.password);
    expect(stranger.status).toBe(403);
    expect(stranger.errorCode).toBe('other_account');
    expect(stranger.html).not.toContain('name="ticket"');
  });
});

describe('the token endpoint', () => {
  it('answers OAuth faults in the platform envelope with meta.oauth_error', async () => {
    await refillAddressBucket();
    expectError(await tokenRequest(base, { code: 'x' }, { basic: basic() }), 400, 'invalid_input', 'invalid_request');
    expectError(await tokenRequest(base, { grant_type: 'password', username: 'owner', password: 'x' }, { basic: basic() }), 400, 'invalid_input', 'unsupported_grant_type');
    expectError(await tokenRequest(base, { grant_type: 'authorization_code', redirect_uri: CALLBACK }, { basic: basic() }), 400, 'invalid_input', 'invalid_request');
    expectError(await tokenRequest(base, { grant_type: 'authorization_code', code: 'x'.repeat(40), redirect_uri: CALLBACK }, { basic: basic() }), 400, 'invalid_input', 'invalid_grant');
    expectError(await tokenRequest(base, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK }), 401, 'invalid_login', 'invalid_client');
    expectError(await tokenRequest(base, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_id: 'ci_nope', client_secret: 'cs_nope' }), 401, 'invalid_login', 'invalid_client');
    const json = await api(`${base}oauth/token`, { method: 'POST', body: { grant_type: 7 } });
    expectError(json, 400, 'invalid_input', 'invalid_request');
    expect(json.body.error.meta.property).toBe('grant_type');
    expectError(await api(`${base}oauth/token`, { method: 'POST', rawBody: 'grant_type=refresh_token', headers: { 'Content-Type': 'text/plain' } }), 400, 'invalid_syntax');
  });

  it('counts against the per-address limit of public endpoints (429 with Retry-After), which refills with time', async () => {
    await refillAddressBucket();
    let limited: Awaited<ReturnType<typeof tokenRequest>> | undefined;
    for (let attempt = 0; attempt < 61 && !limited; attempt++) {
      const answer = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: 'rt.live.0000000000000000000000000000000000000000' }, { basic: basic() });
      if (answer.status === 429) limited = answer;
      else expect(answer.status).toBe(400);
    }
    expect(limited, 'a 429 within the burst of 60').toBeDefined();
    expectError(limited!, 429, 'request_limit_exceeded');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await refillAddressBucket();
    expect((await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: 'rt.live.0000000000000000000000000000000000000000' }, { basic: basic() })).status).toBe(400);
  });
});

describe('isolation', () => {
  it("keeps apps, grants and tokens to their account: another account can neither read, change nor authorize them", async () => {
    await refillAddressBucket();
    const theirs = await api(`${base}oauth_apps`, { method: 'POST', token: other.tokens.live_secret, body: { name: 'Their App', redirect_uris: [CALLBACK] } });
    expect(theirs.status, theirs.text).toBe(201);
    const theirId = theirs.body.oauth_app_id;
    for (const token of [secret, runtime.bootstrap.tokens.test_secret]) {
      expectError(await api(`${base}oauth_apps/${theirId}`, { token }), 404, 'resource_not_found');
      expectError(await api(`${base}oauth_apps/${theirId}`, { method: 'POST', token, body: { name: 'Hijacked', redirect_uris: ['https://evil.example.test/cb'] } }), 404, 'resource_not_found');
      expectError(await api(`${base}oauth_apps/${theirId}/reset_secret`, { method: 'POST', token }), 404, 'resource_not_found');
      expectError(await api(`${base}oauth_apps/${theirId}`, { method: 'DELETE', token }), 404, 'resource_not_found');
      expect((await api(`${base}oauth_apps?limit=100`, { token })).body.data.map((entry: { oauth_app_id: string }) => entry.oauth_app_id)).not.toContain(theirId);
    }
    expect((await api(`${base}oauth_apps/${theirId}`, { token: other.tokens.live_secret })).body.name).toBe('Their App');
    for (const token of [other.tokens.live_secret, other.tokens.test_secret]) {
      expectError(await api(`${base}oauth_apps/${app.id}`, { token }), 404, 'resource_not_found');
      expectError(await api(`${base}oauth_apps/${app.id}`, { method: 'DELETE', token }), 404, 'resource_not_found');
      expect((await api(`${base}oauth_apps`, { token })).body.data.map((entry: { oauth_app_id: string }) => entry.oauth_app_id)).toEqual([theirId]);
    }
    // Our owner cannot authorize their app, nor theirs ours (above: other_account); no ticket, no code.
    const query = { response_type: 'code', client_id: theirs.body.client_id, redirect_uri: CALLBACK };
    const ours = await signInToAuthorize(signin, query, owner.user_id, owner.password);
    expect(ours.status).toBe(403);
    expect(ours.errorCode).toBe('other_account');
    // Their owner authorizes their app; the token it gets reaches their account only.
    const answer = await authorizeThrough(signin, query, other.owner.user_id, other.owner.password);
    const tokens = await tokenRequest(base, { grant_type: 'authorization_code', code: queryOf(answer.location).code!, redirect_uri: CALLBACK }, { basic: { clientId: theirs.body.client_id, secret: theirs.body.client_secret } });
    expect(tokens.status, tokens.text).toBe(200);
    expect(tokens.body.account_id).toBe(other.account_id);
    expect((await api(`${base}users/me`, { token: tokens.body.access_token })).body.account_id).toBe(other.account_id);
    expectError(await api(`${base}oauth_apps/${app.id}`, { token: tokens.body.access_token }), 404, 'resource_not_found');
    expectError(await api(`${base}users/owner`, { token: tokens.body.access_token }), 404, 'resource_not_found');
    expectError(await api(tokens.body.auth, { token: secret }), 404, 'resource_not_found');
    expectError(await api(tokens.body.auth, { method: 'DELETE', token: secret }), 404, 'resource_not_found');
    // Our client cannot redeem their code or refresh their grant.
    expectError(await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, { basic: basic() }), 400, 'invalid_input', 'invalid_grant');
    expect((await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, { basic: { clientId: theirs.body.client_id, secret: theirs.body.client_secret } })).status).toBe(200);
  });
});
