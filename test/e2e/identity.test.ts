/**
 * Users, the sign-in page, trusted tokens and the login lockout over HTTP against a real local
 * runtime with the manual clock (auth.md 1.5, 5, 7, 9): the bootstrap owner signs in with the
 * printed password at the printed sign-in URL; the form's headers, languages and anti-forgery
 * cookie; registered and unregistered redirects; users managed under the rule that nobody
 * grants what they lack; trusted tokens copied at issue, twinned, signed out and revoked;
 * lockout and its end; sliding idle expiry of trusted (60 minutes) and limited (14 days)
 * tokens; the per-IP limit on password checks; and another account's users and tokens out of reach.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeWithSecondAccount, type RuntimeProcess } from '../support/runtime-process';
import { fragmentOf, openSignIn, signInThroughForm, submitSignIn, trustedTokenFor } from '../support/sign-in';

/** Per token unlimited; per address a burst of 60 (the throttle test drains it on the manual clock). */
const RATES = { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '1/60' };
const ADMIN = 'https://admin.example.test/oauth/index.html';
const OTHER_ADMIN = 'https://other-admin.example.test/cb';
const GOOD_PASSWORD = 'correct horse battery staple';

let runtime: RuntimeProcess;
let base: string;
let signin: string;
let account: string;
let secret: string;
let owner: { user_id: string; password: string };
let other: { account_id: string; owner: { user_id: string; password: string }; tokens: { live_secret: string; test_secret: string } };

type Response = Awaited<ReturnType<typeof api>>;

function expectError(response: Response, status: number, code: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body.error).toMatchObject({ code, status });
}

async function advanceClock(seconds: number): Promise<void> {
  expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: seconds } })).status).toBe(200);
}

/** Refills the per-address bucket (60 at 1 per second) on the manual clock. */
const refillAddressBucket = () => advanceClock(60);

beforeAll(async () => {
  ({ runtime, other: other } = await startRuntimeWithSecondAccount({ env: RATES }));
  base = runtime.bootstrap.api_url;
  signin = runtime.bootstrap.signin_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.live_secret;
  owner = { user_id: 'owner', password: runtime.bootstrap.owner.password };
  const registered = await api(`${base}settings/technical`, { method: 'POST', token: secret, body: { oauth_redirect_uris: [ADMIN] } });
  expect(registered.status, registered.text).toBe(200);
  const otherRegistered = await api(`${base}settings/technical`, { method: 'POST', token: other.tokens.live_secret, body: { oauth_redirect_uris: [OTHER_ADMIN] } });
  expect(otherRegistered.status, otherRegistered.text).toBe(200);
}, 180_000);

afterAll(async () => {
  if (runtime) expect(await runtime.stop('SIGTERM')).toBe(0);
});

describe('the sign-in page', () => {
  it('is at the printed signin_url and lets the bootstrap owner in with the printed password: 303 to the registered URI with a working trusted token', async () => {
    expect(signin).toBe(`${runtime.url}/signin/`);
    const answer = await signInThroughForm(signin, owner.user_id, owner.password, { redirect_uri: ADMIN, state: '/orders?x=1&y' });
    expect(answer.status, answer.html).toBe(303);
    expect(answer.location!.startsWith(`${ADMIN}#access_token=tt.live.`)).toBe(true);
    const fragment = fragmentOf(answer.location);
    expect(fragment).toMatchObject({ token_type: 'bearer', expires_in: '3600', state: '/orders?x=1&y' });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');

    const me = await api(`${base}users/me`, { token: fragment.access_token });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({ object: 'user', user_id: 'owner', account_id: account, is_account_owner: true, email: 'owner@example.test' });
    expect(me.body.date_last_login).not.toBeNull();
    expect(me.text).not.toMatch(/password/);
    expect(me.headers.get('x-token-expires-in-seconds')).toBe('3600');
    const auth = await api(`${base}auths/me`, { token: fragment.access_token });
    expect(auth.body).toMatchObject({ type: 'trusted', test: false, user: `${base}users/owner`, permissions: null });
    expect(auth.body.effective_permissions.orders).toEqual({ read: true, create: true, update: true, delete: true });
    // The owner's trusted token reaches the API like any token of the account.
    expect((await api(`${base}orders`, { token: fragment.access_token })).status).toBe(200);
  });

  it('signs in by email too, case-insensitively, and issues a test token with test=true', async () => {
    const answer = await signInThroughForm(signin, 'OWNER@example.TEST', owner.password, { redirect_uri: ADMIN, test: 'true' });
    expect(answer.status, answer.html).toBe(303);
    expect(fragmentOf(answer.location).access_token).toMatch(/^tt\.test\./);
    expect(fragmentOf(answer.location).state).toBeUndefined();
  });

  it('is a plain form with labelled fields, no script, and the headers of auth.md 5.1', async () => {
    const form = await openSignIn(signin, { redirect_uri: ADMIN, state: 's"<x>' });
    expect(form.status).toBe(200);
    expect(form.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(form.headers.get('cache-control')).toBe('no-store');
    expect(form.headers.get('referrer-policy')).toBe('no-referrer');
    expect(form.headers.get('content-security-policy')).toContain('frame-ancestors https://admin.example.test');
    expect(form.headers.get('x-frame-options')).toBeNull();
    expect(form.html).toContain('<form method="post"');
    expect(form.html).toMatch(/<label for="username">User ID or email<\/label>/);
    expect(form.html).toMatch(/<label for="password">Password<\/label>/);
    expect(form.html).toContain('value="s&quot;&lt;x&gt;"');
    expect(form.html).not.toContain('<script');
    expect(form.cookie).toMatch(/^cartwheel_signin=/);
    expect(form.headers.getSetCookie()[0]).toMatch(/HttpOnly/);
    expect(form.headers.getSetCookie()[0]).toMatch(/Max-Age=900/);
  });

  it('refuses to be framed anywhere without a redirect_uri', async () => {
    const form = await openSignIn(signin);
    expect(form.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(form.headers.get('x-frame-options')).toBe('DENY');
  });

  it('speaks German by Accept-Language or lang, English otherwise', async () => {
    const german = await openSignIn(signin, {}, { 'Accept-Language': 'fr-CH, de;q=0.8, en;q=0.5' });
    expect(german.html).toContain('<html lang="de">');
    expect(german.html).toContain('Passwort');
    expect((await openSignIn(signin, { lang: 'de' })).html).toContain('Benutzer-ID oder E-Mail');
    expect((await openSignIn(signin, { lang: 'en' }, { 'Accept-Language': 'de' })).html).toContain('<html lang="en">');
    const wrong = await signInThroughForm(signin, owner.user_id, 'not the password at all', { redirect_uri: ADMIN }, { 'Accept-Language': 'de-DE' });
    expect(wrong.status).toBe(401);
    expect(wrong.errorCode).toBe('invalid_login');
    expect(wrong.html).toContain('Benutzername oder Passwort ist falsch.');
    await refillAddressBucket();
    // A success resets the owner's failure count.
    await trustedTokenFor(signin, owner.user_id, owner.password, ADMIN);
  });

  it('shows a "signed out" notice with logout=1', async () => {
    expect((await openSignIn(signin, { logout: '1' })).html).toContain('You have been signed out.');
  });

  it('refuses a cross-site POST without the anti-forgery cookie (even with the right password), and one whose value differs', async () => {
    const form = await openSignIn(signin, { redirect_uri: ADMIN });
    const fields = { redirect_uri: ADMIN, csrf_token: form.csrf!, username: owner.user_id, password: owner.password };
    const withoutCookie = await submitSignIn(signin, fields, undefined, { Origin: 'https://evil.example.test' });
    expect(withoutCookie.status).toBe(403);
    expect(withoutCookie.location).toBeNull();
    expect(withoutCookie.errorCode).toBe('invalid_origin');
    const withoutValue = await submitSignIn(signin, { ...fields, csrf_token: '' }, form.cookie);
    expect(withoutValue.status).toBe(403);
    // Another value: the last character changed (to one it is not: a random token ends in `x` one time in 64).
    const changed = form.csrf!.endsWith('x') ? 'y' : 'x';
    const otherValue = await submitSignIn(signin, { ...fields, csrf_token: `${form.csrf!.slice(0, -1)}${changed}` }, form.cookie);
    expect(otherValue.status).toBe(403);
    const notAForm = await fetch(signin, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/json', Cookie: form.cookie! }, body: JSON.stringify(fields) });
    expect(notAForm.status).toBe(403);
    // The same form with its cookie goes through.
    expect((await submitSignIn(signin, fields, form.cookie)).status).toBe(303);
  });

  it('never redirects to an unregistered URI, and says so only after a successful login', async () => {
    const wrong = await signInThroughForm(signin, owner.user_id, 'not the password at all', { redirect_uri: 'https://evil.example.test/steal' });
    expect(wrong.status).toBe(401);
    expect(wrong.errorCode).toBe('invalid_login');
    const right = await signInThroughForm(signin, owner.user_id, owner.password, { redirect_uri: 'https://evil.example.test/steal' });
    expect(right.status).toBe(400);
    expect(right.location).toBeNull();
    expect(right.errorCode).toBe('redirect_uri_unregistered');
    expect(right.html).toContain('https://evil.example.test/steal');
    expect(right.html).not.toContain('tt.live');
    // Character for character: a trailing slash, another case or a query is another URI.
    for (const near of [`${ADMIN}/`, ADMIN.replace('admin', 'ADMIN'), `${ADMIN}?x=1`]) {
      expect((await signInThroughForm(signin, owner.user_id, owner.password, { redirect_uri: near })).errorCode, near).toBe('redirect_uri_unregistered');
    }
    const missing = await signInThroughForm(signin, owner.user_id, owner.password);
    expect(missing.status).toBe(400);
    expect(missing.errorCode).toBe('redirect_uri_missing');
    // Another account's registered URI is not this account's.
    expect((await signInThroughForm(signin, owner.user_id, owner.password, { redirect_uri: OTHER_ADMIN })).errorCode).toBe('redirect_uri_unregistered');
    await refillAddressBucket();
  });

  it("accepts the oauth/callback.html address of the account's hosted app aliases", async () => {
    const app = await api(`${base}apps`, { method: 'POST', token: secret, body: { name: 'Admin', alias: 'admin' } });
    expect(app.status, app.text).toBe(201);
    const callback = `${runtime.bootstrap.apps_url}/admin/oauth/callback.html`;
    const answer = await signInThroughForm(signin, owner.user_id, owner.password, { redirect_uri: callback });
    expect(answer.status, answer.html).toBe(303);
    expect(answer.location!.startsWith(`${callback}#access_token=tt.live.`)).toBe(true);
    expect((await signInThroughForm(signin, owner.user_id, owner.password, { redirect_uri: `${runtime.bootstrap.apps_url}/nope/oauth/callback.html` })).errorCode).toBe('redirect_uri_unregistered');
  });

  it('leads the bare path to the page and answers 404 below it', async () => {
    const bare = await fetch(`${runtime.url}/signin?lang=de`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/signin/?lang=de');
    expect((await fetch(`${signin}elsewhere`)).status).toBe(404);
  });
});

describe('users', () => {
  let ownerToken: string;
  beforeAll(async () => {
    await refillAddressBucket();
    ownerToken = await trustedTokenFor(signin, owner.user_id, owner.password, ADMIN);
  });

  it('creates, reads, lists, changes and deletes users; ids and emails are unique platform-wide, case-insensitively', async () => {
    const created = await api(`${base}users`, {
      method: 'POST', token: ownerToken,
      body: { user_id: 'clerk', name: 'Clara Clerk', email: 'clara@example.test', password: GOOD_PASSWORD, permissions: [{ resource: 'orders', methods: ['read'] }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('location')).toBe(`${base}users/clerk`);
    expect(created.body).toMatchObject({ object: 'user', user_id: 'clerk', is_account_owner: false, language: 'en', locale: 'en-US', date_last_login: null, permissions: [{ resource: 'orders', methods: ['read'], allow: true }] });
    expect(created.body.effective_permissions.orders).toEqual({ read: true, create: false, update: false, delete: false });
    expect(created.text).not.toMatch(/password/);
    expectError(await api(`${base}users`, { method: 'POST', token: ownerToken, body: { user_id: 'CLERK', name: 'X', email: 'x@example.test' } }), 409, 'in_use');
    expectError(await api(`${base}users`, { method: 'POST', token: ownerToken, body: { user_id: 'clerk2', name: 'X', email: 'CLARA@example.test' } }), 409, 'in_use');
    // The other account's owner id is taken on the whole platform too.
    expectError(await api(`${base}users`, { method: 'POST', token: ownerToken, body: { user_id: 'other-owner', name: 'X', email: 'x@example.test' } }), 409, 'in_use');

    expect((await api(`${base}users/CLERK`, { token: ownerToken })).body.user_id).toBe('clerk');
    const list = await api(`${base}users?sort_by=user_id`, { token: secret });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((user: { user_id: string }) => user.user_id)).toEqual(['clerk', 'owner']);
    expect(list.body.total_items).toBe(2);
    expect((await api(`${base}users?q=clara`, { token: secret })).body.data.map((user: { user_id: string }) => user.user_id)).toEqual(['clerk']);

    const changed = await api(`${base}users/clerk`, { method: 'POST', token: ownerToken, body: { name: 'Clara C.', email: 'clara.c@example.test', language: 'de', locale: 'de-DE' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Clara C.', email: 'clara.c@example.test', language: 'de', locale: 'de-DE' });
    // The old address is free again, the new one signs in.
    expect((await signInThroughForm(signin, 'clara.c@example.test', GOOD_PASSWORD, { redirect_uri: ADMIN })).status).toBe(303);

    const temp = await api(`${base}users`, { method: 'POST', token: ownerToken, body: { user_id: 'temp', name: 'Temp', email: 'clara@example.test' } });
    expect(temp.status, temp.text).toBe(201);
    expect((await api(`${base}users/temp`, { method: 'DELETE', token: ownerToken })).status).toBe(204);
    expectError(await api(`${base}users/temp`, { token: ownerToken }), 404, 'resource_not_found');
    await refillAddressBucket();
  });

  it('applies the password rules of auth.md 9.3; a user without a password cannot sign in', async () => {
    const make = (password: string) => api(`${base}users`, { method: 'POST', token: ownerToken, body: { user_id: 'rules', name: 'R', email: 'rules@example.test', password } });
    for (const [password, reason] of [['fourteen chars', 'too_short'], ['               ', 'invalid'], ['passwordpassword', 'invalid'], ['rules@example.test', 'invalid'], ['x'.repeat(129), 'too_long']] as const) {
      const answer = await make(password);
      expectError(answer, 400, 'invalid_input');
      expect(answer.body.error.meta, password).toMatchObject({ property: 'password', reason });
    }
    expect((await make('fifteen chars!!')).status).toBe(201);
    const nopass = await api(`${base}users`, { method: 'POST', token: ownerToken, body: { user_id: 'nopass', name: 'N', email: 'nopass@example.test' } });
    expect(nopass.status).toBe(201);
    expect((await signInThroughForm(signin, 'nopass', 'anything at all here', { redirect_uri: ADMIN })).errorCode).toBe('invalid_login');
    await refillAddressBucket();
  });

  it('lets nobody grant what they lack, and only owners make owners', async () => {
    const manager = await api(`${base}users`, {
      method: 'POST', token: ownerToken,
      body: { user_id: 'manager', name: 'M', email: 'manager@example.test', password: GOOD_PASSWORD, permissions: [{ resource: 'users', methods: ['*'] }, { resource: 'orders', methods: ['read'] }] },
    });
    expect(manager.status, manager.text).toBe(201);
    const managerToken = await trustedTokenFor(signin, 'manager', GOOD_PASSWORD, ADMIN);
    const escalate = await api(`${base}users`, { method: 'POST', token: managerToken, body: { user_id: 'helper', name: 'H', email: 'helper@example.test', permissions: [{ resource: '*', methods: ['*'] }] } });
    expectError(escalate, 403, 'insufficient_permissions');
    expect(escalate.body.error.meta.denied).toContain('orders:update');
    expectError(await api(`${base}users/manager`, { method: 'POST', token: managerToken, body: { permissions: [{ resource: 'products', methods: ['read'] }] } }), 403, 'insufficient_permissions');
    expectError(await api(`${base}users/manager`, { method: 'POST', token: managerToken, body: { is_account_owner: true } }), 403, 'insufficient_permissions');
    const within = await api(`${base}users`, { method: 'POST', token: managerToken, body: { user_id: 'helper', name: 'H', email: 'helper@example.test', permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expect(within.status, within.text).toBe(201);
    // A secret token is held to the same rule.
    const narrow = await api(`${base}auths/secret`, { method: 'POST', token: secret, body: { permissions: [{ resource: 'users', methods: ['*'] }] } });
    expectError(await api(`${base}users`, { method: 'POST', token: narrow.body.token, body: { user_id: 'helper2', name: 'H', email: 'helper2@example.test', permissions: [{ resource: 'orders', methods: ['read'] }] } }), 403, 'insufficient_permissions');
    // Without users rights there is no /users at all.
    const clerkToken = await trustedTokenFor(signin, 'clerk', GOOD_PASSWORD, ADMIN);
    expectError(await api(`${base}users`, { token: clerkToken }), 403, 'insufficient_permissions');
    await refillAddressBucket();
  });

  it('refuses deleting yourself and the last owner, and demoting the last owner', async () => {
    expectError(await api(`${base}users/owner`, { method: 'DELETE', token: ownerToken }), 422, 'invalid_state');
    expectError(await api(`${base}users/owner`, { method: 'DELETE', token: secret }), 422, 'invalid_state');
    expectError(await api(`${base}users/owner`, { method: 'POST', token: secret, body: { is_account_owner: false } }), 422, 'invalid_state');
  });

  it('answers /users/me only for trusted tokens, and lets users change themselves', async () => {
    expectError(await api(`${base}users/me`, { token: secret }), 403, 'insufficient_permissions');
    const shopper = await api(`${base}auths/limited?account_id=${account}`, { method: 'POST' });
    expectError(await api(`${base}users/me`, { token: shopper.body.token }), 403, 'insufficient_permissions');
    const clerkToken = await trustedTokenFor(signin, 'clerk', GOOD_PASSWORD, ADMIN);
    const changed = await api(`${base}users/me`, { method: 'POST', token: clerkToken, body: { name: 'Clara', is_account_owner: true, permissions: [{ resource: '*', methods: ['*'] }] } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Clara', is_account_owner: false });
    expect(changed.body.effective_permissions.orders.update).toBe(false);
    const wrongCurrent = await api(`${base}users/me`, { method: 'POST', token: clerkToken, body: { password: 'a brand new passphrase', current_password: 'wrong one' } });
    expectError(wrongCurrent, 400, 'invalid_input');
    expect(wrongCurrent.body.error.meta.property).toBe('current_password');
    await refillAddressBucket();
  });
});

describe('trusted tokens', () => {
  it("copy the user's rights at issue: a later change applies to tokens issued afterwards", async () => {
    const ownerToken = await trustedTokenFor(signin, owner.user_id, owner.password, ADMIN);
    const before = await trustedTokenFor(signin, 'helper', 'helper password 15+', ADMIN).catch(() => undefined);
    expect(before).toBeUndefined(); // helper has no password yet
    expect((await api(`${base}users/helper`, { method: 'POST', token: ownerToken, body: { password: 'helper password 15+' } })).status).toBe(200);
    const first = await trustedTokenFor(signin, 'helper', 'helper password 15+', ADMIN);
    expect((await api(`${base}orders`, { token: first })).status).toBe(200);
    expect((await api(`${base}users/helper`, { method: 'POST', token: ownerToken, body: { permissions: [{ resource: 'products', methods: ['read'] }] } })).status).toBe(200);
    expect((await api(`${base}orders`, { token: first })).status).toBe(200);
    const second = await trustedTokenFor(signin, 'helper', 'helper password 15+', ADMIN);
    expectError(await api(`${base}orders`, { token: second }), 403, 'insufficient_permissions');
    expect((await api(`${base}products`, { token: second })).status).toBe(200);
    await refillAddressBucket();
  });

  it('have a test twin from POST /auths/trusted?test=true; the caller stays valid; other kinds are refused', async () => {
    const live = await trustedTokenFor(signin, owner.user_id, owner.password, ADMIN);
    const twin = await api(`${base}auths/trusted?test=true`, { method: 'POST', token: live });
    expect(twin.status, twin.text).toBe(201);
    expect(twin.body).toMatchObject({ type: 'trusted', test: true, user: `${base}users/owner` });
    expect(twin.body.token).toMatch(/^tt\.test\./);
    expect(twin.headers.get('x-token-expires-in-seconds')).toBe('3600');
    expect((await api(`${base}users/me`, { token: twin.body.token })).body.user_id).toBe('owner');
    expect((await api(`${base}users/me`, { token: live })).status).toBe(200);
    expectError(await api(`${base}auths/trusted`, { method: 'POST', token: twin.body.token }), 400, 'token_type_mismatch');
    const liveAgain = await api(`${base}auths/trusted`, { method: 'POST', token: live });
    expect(liveAgain.body.token).toMatch(/^tt\.live\./);
    expectError(await api(`${base}auths/trusted?test=true`, { method: 'POST', token: secret }), 403, 'insufficient_permissions');
    // Listed among the account's trusted tokens of each mode.
    const listed = await api(`${base}auths?type=trusted&test=true`, { token: secret });
    expect(listed.body.data.map((auth: { auth_id: string }) => auth.auth_id)).toContain(twin.body.auth_id);
  });

  it('sign out with DELETE /auths/me', async () => {
    const token = await trustedTokenFor(signin, owner.user_id, owner.password, ADMIN);
    expect((await api(`${base}auths/me`, { method: 'DELETE', token })).status).toBe(204);
    expectError(await api(`${base}users/me`, { token }), 401, 'invalid_token');
    await refillAddressBucket();
  });

  it("are revoked when the user changes its password (all but the changing token) and when the user is deleted", async () => {
    const ownerToken = await trustedTokenFor(signin, owner.user_id, owner.password, ADMIN);
    const made = await api(`${base}users`, { method: 'POST', token: ownerToken, body: { user_id: 'leaver', name: 'L', email: 'leaver@example.test', password: GOOD_PASSWORD } });
    expect(made.status, made.text).toBe(201);
    const a = await trustedTokenFor(signin, 'leaver', GOOD_PASSWORD, ADMIN);
    const b = await trustedTokenFor(signin, 'leaver', GOOD_PASSWORD, ADMIN);
    const bTest = (await api(`${base}auths/trusted?test=true`, { method: 'POST', token: b })).body.token;
    const changed = await api(`${base}users/me`, { method: 'POST', token: a, body: { password: 'another long passphrase', current_password: GOOD_PASSWORD } });
    expect(changed.status, changed.text).toBe(200);
    expect((await api(`${base}users/me`, { token: a })).status).toBe(200);
    expectError(await api(`${base}users/me`, { token: b }), 401, 'invalid_token');
    expectError(await api(`${base}users/me`, { token: bTest }), 401, 'invalid_token');
    expect((await signInThroughForm(signin, 'leaver', GOOD_PASSWORD, { redirect_uri: ADMIN })).errorCode).toBe('invalid_login');
    const c = await trustedTokenFor(signin, 'leaver', 'another long passphrase', ADMIN);
    expect((await api(`${base}users/leaver`, { method: 'DELETE', token: ownerToken })).status).toBe(204);
    expectError(await api(`${base}users/me`, { token: a }), 401, 'invalid_token');
    expectError(await api(`${base}users/me`, { token: c }), 401, 'invalid_token');
    await refillAddressBucket();
  });
});

describe('lockout and limits on the manual clock', () => {
  it('locks a user after five failures in 15 minutes for 10 minutes, then unlocks by itself', async () => {
    await refillAddressBucket();
    const attempt = (password: string) => signInThroughForm(signin, 'clerk', password, { redirect_uri: ADMIN });
    for (let failure = 1; failure <= 4; failure++) expect((await attempt(`wrong password ${failure}`)).errorCode).toBe('invalid_login');
    // Failures older than 15 minutes no longer count.
    await advanceClock(15 * 60 + 1);
    for (let failure = 1; failure <= 4; failure++) expect((await attempt(`wrong password ${failure}`)).errorCode).toBe('invalid_login');
    const fifth = await attempt('wrong password 5');
    expect(fifth.status).toBe(401);
    expect(fifth.errorCode).toBe('invalid_login');
    const locked = await attempt(GOOD_PASSWORD);
    expect(locked.status).toBe(401);
    expect(locked.errorCode).toBe('account_locked');
    expect(locked.location).toBeNull();
    expect(Number(locked.headers.get('retry-after'))).toBe(600);
    // Attempts while locked neither count nor extend the lock.
    await advanceClock(9 * 60);
    expect((await attempt('wrong again')).errorCode).toBe('account_locked');
    expect(Number((await attempt(GOOD_PASSWORD)).headers.get('retry-after'))).toBe(60);
    await advanceClock(60);
    expect((await attempt(GOOD_PASSWORD)).status).toBe(303);
    // Other users were never affected.
    expect((await signInThroughForm(signin, owner.user_id, owner.password, { redirect_uri: ADMIN })).status).toBe(303);
  });

  it('answers an unknown login name exactly like a wrong password, and never locks it', async () => {
    await refillAddressBucket();
    const unknown = await signInThroughForm(signin, 'nobody-here', 'some password here', { redirect_uri: ADMIN });
    const wrong = await signInThroughForm(signin, 'clerk', 'some password here', { redirect_uri: ADMIN });
    expect(unknown.status).toBe(wrong.status);
    const messageOf = (html: string) => /<p class="error"[^>]*>([^<]*)<\/p>/.exec(html)?.[1];
    expect(messageOf(unknown.html)).toBe(messageOf(wrong.html));
    expect(unknown.errorCode).toBe('invalid_login');
    for (let attempt = 0; attempt < 6; attempt++) expect((await signInThroughForm(signin, 'nobody-here', 'x', { redirect_uri: ADMIN })).errorCode).toBe('invalid_login');
    await refillAddressBucket();
    expect((await signInThroughForm(signin, 'clerk', GOOD_PASSWORD, { redirect_uri: ADMIN })).status).toBe(303);
  });

  it('limits password checks per address (429, nobody counted), and the limit refills with time', async () => {
    await refillAddressBucket();
    let limited;
    for (let attempt = 0; attempt < 61 && !limited; attempt++) {
      const answer = await signInThroughForm(signin, 'clerk', `wrong ${attempt}`, { redirect_uri: ADMIN });
      if (answer.status === 429) limited = answer;
      // The clerk locks after five; the bucket is drained regardless.
      else expect(answer.status).toBe(401);
    }
    expect(limited, 'a 429 within the burst of 60').toBeDefined();
    expect(limited!.errorCode).toBe('request_limit_exceeded');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The owner's right password is not checked either while the address is over its limit.
    expect((await signInThroughForm(signin, owner.user_id, owner.password, { redirect_uri: ADMIN })).status).toBe(429);
    await advanceClock(10 * 60);
    expect((await signInThroughForm(signin, 'clerk', GOOD_PASSWORD, { redirect_uri: ADMIN })).status).toBe(303);
  });

  it('expires a trusted token 60 idle minutes after its last use, sliding with every use', async () => {
    await refillAddressBucket();
    const token = await trustedTokenFor(signin, owner.user_id, owner.password, ADMIN);
    await advanceClock(59 * 60);
    const used = await api(`${base}users/me`, { token });
    expect(used.status).toBe(200);
    expect(used.headers.get('x-token-expires-in-seconds')).toBe('3600');
    await advanceClock(59 * 60);
    expect((await api(`${base}users/me`, { token })).status).toBe(200);
    await advanceClock(60 * 60 + 61);
    const expired = await api(`${base}users/me`, { token });
    expectError(expired, 401, 'invalid_token');
    expect(expired.body.error.message).toBe('The token has expired.');
  });

  it('expires a limited token 14 idle days after its last use, sliding with every use', async () => {
    const minted = await api(`${base}auths/limited?account_id=${account}`, { method: 'POST' });
    expect(minted.status, minted.text).toBe(201);
    const token = minted.body.token;
    await advanceClock(14 * 24 * 3600 - 120);
    const used = await api(`${base}auths/me`, { token });
    expect(used.status).toBe(200);
    expect(used.headers.get('x-token-expires-in-seconds')).toBe('1209600');
    await advanceClock(14 * 24 * 3600 - 120);
    expect((await api(`${base}auths/me`, { token })).status).toBe(200);
    await advanceClock(14 * 24 * 3600 + 61);
    expectError(await api(`${base}auths/me`, { token }), 401, 'invalid_token');
  });
});

describe('another account', () => {
  let ownerToken: string;
  let otherToken: string;
  beforeAll(async () => {
    await refillAddressBucket();
    ownerToken = await trustedTokenFor(signin, owner.user_id, owner.password, ADMIN);
    otherToken = await trustedTokenFor(signin, other.owner.user_id, other.owner.password, OTHER_ADMIN);
  });

  it("is out of reach: its users and tokens can be neither read nor changed", async () => {
    expect((await api(`${base}users/me`, { token: otherToken })).body.account_id).toBe(other.account_id);
    for (const token of [ownerToken, secret]) {
      expectError(await api(`${base}users/other-owner`, { token }), 404, 'resource_not_found');
      expectError(await api(`${base}users/other-owner`, { method: 'POST', token, body: { name: 'Hijacked', password: 'hijacked password 1' } }), 404, 'resource_not_found');
      expectError(await api(`${base}users/other-owner`, { method: 'DELETE', token }), 404, 'resource_not_found');
      const listed = await api(`${base}users?limit=100`, { token });
      expect(listed.body.data.map((user: { account_id: string }) => user.account_id)).not.toContain(other.account_id);
    }
    const otherAuth = (await api(`${base}auths/me`, { token: otherToken })).body.auth_id;
    expectError(await api(`${base}auths/${otherAuth}`, { token: ownerToken }), 404, 'resource_not_found');
    expectError(await api(`${base}auths/${otherAuth}`, { method: 'DELETE', token: ownerToken }), 404, 'resource_not_found');
    expect((await api(`${base}users/me`, { token: otherToken })).status).toBe(200);
    expect((await api(`${base}users/other-owner`, { token: otherToken })).body.name).toBe('Other');
    // Nor does it reach ours.
    expectError(await api(`${base}users/owner`, { token: otherToken }), 404, 'resource_not_found');
    expectError(await api(`${base}users/clerk`, { method: 'DELETE', token: otherToken }), 404, 'resource_not_found');
  });
});
