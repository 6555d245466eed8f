/**
 * End-to-end over HTTP against a real local runtime (child process, own data dir): the HTTP
 * core of conventions.md and the secret-token endpoints of auth.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let live: string;
let test: string;

beforeAll(async () => {
  runtime = await startRuntime();
  base = runtime.bootstrap.api_url;
  live = runtime.bootstrap.tokens.live_secret;
  test = runtime.bootstrap.tokens.test_secret;
});
afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

const expectError = (response: { status: number; body: any; headers: Headers }, status: number, code: string) => {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.body.error).toMatchObject({ status, code });
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.reference).toBe(response.headers.get('x-request-id'));
};

describe('bootstrap', () => {
  it('writes bootstrap.json with the contract fields and tokens that work', async () => {
    const b = runtime.bootstrap;
    expect(b.api_url).toBe(`${runtime.url}/api/v1/`);
    expect(b.signin_url).toBe(`${runtime.url}/signin/`);
    expect(b.apps_url).toBe(`http://${b.account_id}.apps.localhost:${new URL(runtime.url).port}`);
    expect(b.owner.email).toBe('owner@example.test');
    expect(b.owner.password.length).toBeGreaterThanOrEqual(20);
    expect(b.tokens.live_secret).toMatch(/^sk\.live\.[0-9A-Za-z]{40}$/);
    expect(b.tokens.test_secret).toMatch(/^sk\.test\.[0-9A-Za-z]{40}$/);
    expect(runtime.output()).toContain(b.tokens.live_secret);
  });

  it('serves health and clock pages to loopback', async () => {
    expect((await api(`${runtime.url}/_local/health`)).body).toEqual({ status: 'ok' });
    const clock = await api(`${runtime.url}/_local/clock`);
    expect(clock.body.mode).toBe('system');
    expect(clock.body.now).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expectError(await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 5 } }), 409, 'invalid_state');
  });
});

describe('HTTP core (conventions.md)', () => {
  it('lists /auths with a secret token as an offset list', async () => {
    const response = await api(`${base}auths`, { token: live });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9A-Z]{12}$/);
    expect(Object.keys(response.body)).toEqual([
      'object', 'total_items', 'total_pages', 'current_page', 'next_page_url', 'next_page_offset',
      'previous_page_url', 'previous_page_offset', 'current_page_url', 'data',
    ]);
    expect(response.body.total_items).toBe(1);
    expect(response.body.data[0]).toMatchObject({ object: 'auth', type: 'secret', test: false, comments: 'bootstrap' });
    expect(response.body.data[0].token).toBe(`sk.live...${live.slice(-4)}`);
    expect(response.body.data[0].url).toBe(`${base}auths/${response.body.data[0].auth_id}`);
    expect(response.headers.get('x-token-expires-in-seconds')).toBeNull();
  });

  it('serves a burst of concurrent requests of one token without spurious 429s', async () => {
    // 150 at once stays inside the default burst of 200 even with this file's other requests.
    const answers = await Promise.all(Array.from({ length: 150 }, () => api(`${base}auths/me`, { token: test })));
    expect(answers.map((a) => a.status)).toEqual(Array(150).fill(200));
  });

  it('answers 401 invalid_token without a token, with an unknown one and with a malformed one', async () => {
    expectError(await api(`${base}auths`), 401, 'invalid_token');
    expectError(await api(`${base}auths`, { token: `sk.live.${'a'.repeat(40)}` }), 401, 'invalid_token');
    expectError(await api(`${base}auths`, { token: 'garbage' }), 401, 'invalid_token');
    expectError(await api(`${base}auths`, { headers: { Authorization: `Basic ${live}` } }), 401, 'invalid_token');
    // Cookies are never read, and the API ignores ?token=.
    expectError(await api(`${base}auths?token=${live}`, { headers: { Cookie: `token=${live}` } }), 401, 'invalid_token');
  });

  it('answers 400 invalid_syntax for bad JSON and for a body without the JSON content type', async () => {
    expectError(await api(`${base}auths/secret`, { method: 'POST', token: live, rawBody: '{"permissions":', headers: { 'Content-Type': 'application/json' } }), 400, 'invalid_syntax');
    const noType = await api(`${base}auths/secret`, { method: 'POST', token: live, rawBody: '{}' });
    expectError(noType, 400, 'invalid_syntax');
    expect(noType.body.error.meta).toEqual({ header: 'Content-Type', expected: 'application/json' });
    expectError(await api(`${base}auths/secret`, { method: 'POST', token: live, rawBody: '{}', headers: { 'Content-Type': 'text/plain' } }), 400, 'invalid_syntax');
    expectError(await api(`${base}auths/secret`, { method: 'POST', token: live, rawBody: '[1,2]', headers: { 'Content-Type': 'application/json' } }), 400, 'invalid_input');
  });

  it('answers 422 account_limit_exceeded for a body over 1 MiB', async () => {
    const big = { comments: 'x', permissions: [{ resource: 'orders', methods: ['read'] }], padding: 'y'.repeat(1024 * 1024) };
    expectError(await api(`${base}auths/secret`, { method: 'POST', token: live, body: big }), 422, 'account_limit_exceeded');
  });

  it('answers 404 for other versions, unknown paths and paths outside /api/v1', async () => {
    for (const path of ['/api/v2/auths', '/api/v0/auths', '/api/1/auths', '/api/', '/api/v1/nothing-here', '/nothing']) {
      expectError(await api(`${runtime.url}${path}`, { token: live }), 404, 'resource_not_found');
    }
  });

  it('answers 405 with Allow for a method the path does not support', async () => {
    const response = await api(`${base}auths`, { method: 'PUT', token: live, body: {} });
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toContain('GET');
    // POST /auths/me is served by POST /auths/{auth_id}, as API Gateway would match it.
    const patch = await api(`${base}auths/me`, { method: 'PATCH', token: live });
    expect(patch.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'OPTIONS', 'POST']);
    const secret = await api(`${base}auths/secret`, { method: 'DELETE', token: live });
    expect(secret.status).toBe(404);
  });

  it('answers CORS preflight with 204 and the contract headers, without a token', async () => {
    const response = await fetch(`${base}auths`, { method: 'OPTIONS', headers: { Origin: 'https://anywhere.example', 'Access-Control-Request-Method': 'POST' } });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://anywhere.example');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
    expect(response.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Accept, Accept-Language, Idempotency-Key, X-Requested-With');
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('content-type')).toBeNull();
  });

  it('allows localhost origins and refuses others with 403 invalid_origin that still carries CORS headers', async () => {
    const ok = await api(`${base}auths/me`, { token: live, headers: { Origin: 'http://localhost:5173' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(ok.headers.get('access-control-expose-headers')).toContain('X-Token-Expires-In-Seconds');
    expect(ok.headers.get('vary')).toBe('Origin');
    const refused = await api(`${base}auths/me`, { token: live, headers: { Origin: 'https://evil.example' } });
    expectError(refused, 403, 'invalid_origin');
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://evil.example');
  });

  it('builds absolute links from the host the request arrived on, ignoring forged forwarding headers', async () => {
    const port = new URL(runtime.url).port;
    const response = await api(`http://127.0.0.1:${port}/api/v1/auths/me`, {
      token: live,
      headers: { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' },
    });
    expect(response.body.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/api/v1/auths/`));
  });
});

describe('secret tokens (auth.md 4, 7)', () => {
  it('creates a secret token shown once, usable at once, and redacted afterwards', async () => {
    const created = await api(`${base}auths/secret`, {
      method: 'POST',
      token: live,
      body: { comments: 'Fulfilment', permissions: [{ resource: 'orders', methods: ['read', 'update'] }, { resource: 'auths', methods: ['read'] }], unknown_field: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^sk\.live\.[0-9A-Za-z]{40}$/);
    expect(created.headers.get('location')).toBe(created.body.url);
    expect(created.body.effective_permissions.orders).toEqual({ read: true, create: false, update: true, delete: false });
    expect(created.body.permissions).toEqual([
      { resource: 'orders', methods: ['read', 'update'], allow: true },
      { resource: 'auths', methods: ['read'], allow: true },
    ]);
    expect(created.body).not.toHaveProperty('unknown_field');
    const me = await api(`${base}auths/me`, { token: created.body.token });
    expect(me.status).toBe(200);
    expect(me.body.token).toBe(`sk.live...${created.body.token.slice(-4)}`);
    expect(me.body.date_last_used).toMatch(/Z$/);
    const read = await api(created.body.url, { token: live });
    expect(read.body.token).not.toBe(created.body.token);
  });

  it('shapes the issuing answer with show, as admin clients ask for it (auth.md 4.1)', async () => {
    const created = await api(`${base}auths/secret?test=false&show=auth_id,token`, { method: 'POST', token: live, body: { permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['auth_id', 'token', 'url']);
    expect(created.body.token).toMatch(/^sk\.live\./);
    const conflict = await api(`${base}auths/secret?show=token&hide=url`, { method: 'POST', token: live, body: { comments: 'never made', permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expectError(conflict, 400, 'invalid_input');
    expect((await api(`${base}auths?q=never%20made`, { token: live })).body.total_items).toBe(0);
    const formatted = await api(`${base}auths/me?formatted=true&user_locale=de-DE&timezone=Europe/Berlin`, { token: live });
    expect(formatted.body.date_created).toMatch(/\+01:00$/);
    expect(formatted.body.formatted.date_created).toMatch(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
  });

  it('refuses a missing or bad permission list and escalation', async () => {
    expectError(await api(`${base}auths/secret`, { method: 'POST', token: live, body: { comments: 'x' } }), 400, 'invalid_input');
    const nullPermissions = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { comments: 'x', permissions: null } });
    expectError(nullPermissions, 400, 'invalid_input');
    expect(nullPermissions.body.error.meta).toEqual({ property: 'permissions', reason: 'required' });
    const bad = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { permissions: [{ resource: 'orders', methods: ['read'] }, { resource: 'spaceships', methods: ['read'] }] } });
    expectError(bad, 400, 'invalid_input');
    expect(bad.body.error.meta.property).toBe('permissions[1].resource');
    const limited = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { permissions: [{ resource: 'auths', methods: ['*'] }, { resource: 'orders', methods: ['read'] }] } });
    const escalation = await api(`${base}auths/secret`, { method: 'POST', token: limited.body.token, body: { permissions: [{ resource: 'users', methods: ['delete'] }] } });
    expectError(escalation, 403, 'insufficient_permissions');
    expect(escalation.body.error.meta.denied).toEqual(['users:delete']);
  });

  it('answers 403 insufficient_permissions for a valid token without the right', async () => {
    const weak = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { permissions: [{ resource: 'products', methods: ['read'] }] } });
    const list = await api(`${base}auths`, { token: weak.body.token });
    expectError(list, 403, 'insufficient_permissions');
    // conventions.md §5: the answer names the permission to ask for, in the write format's words.
    expect(list.body.error.meta).toEqual({ required_permission: 'auths:read' });
    const options = await api(`${base}auths/options`, { token: weak.body.token });
    expectError(options, 403, 'insufficient_permissions');
    expect(options.body.error.meta.required_permission).toBe('auths:read');
    const create = await api(`${base}products`, { method: 'POST', token: weak.body.token, body: { name: 'Refused', price: 1 } });
    expectError(create, 403, 'insufficient_permissions');
    expect(create.body.error.meta.required_permission).toBe('products:create');
    expect((await api(`${base}auths/me`, { token: weak.body.token })).status).toBe(200);
  });

  it('keeps modes apart: a test token cannot create live tokens and lists only test tokens', async () => {
    expectError(await api(`${base}auths/secret?test=false`, { method: 'POST', token: test, body: { permissions: [{ resource: 'orders', methods: ['read'] }] } }), 400, 'token_type_mismatch');
    const testToken = await api(`${base}auths/secret`, { method: 'POST', token: test, body: { permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expect(testToken.body.token).toMatch(/^sk\.test\./);
    expect(testToken.body.test).toBe(true);
    const testList = await api(`${base}auths`, { token: test });
    expect(testList.body.data.every((auth: any) => auth.test === true)).toBe(true);
    const liveList = await api(`${base}auths`, { token: live });
    expect(liveList.body.data.every((auth: any) => auth.test === false)).toBe(true);
    const fromLive = await api(`${base}auths?test=true`, { token: live });
    expect(fromLive.body.total_items).toBe(testList.body.total_items);
    const liveCreated = await api(`${base}auths/secret?test=true`, { method: 'POST', token: live, body: { permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expect(liveCreated.body.token).toMatch(/^sk\.test\./);
  });

  it('pages the offset list and keeps total_items exact', async () => {
    for (let i = 0; i < 3; i++) {
      await api(`${base}auths/secret`, { method: 'POST', token: live, body: { comments: `paging ${i}`, permissions: [{ resource: 'orders', methods: ['read'] }] } });
    }
    const all = await api(`${base}auths`, { token: live });
    const page = await api(`${base}auths?limit=2&offset=2&debug=1`, { token: live });
    expect(page.body.total_items).toBe(all.body.total_items);
    expect(page.body.current_page).toBe(2);
    expect(page.body.data.map((a: any) => a.auth_id)).toEqual(all.body.data.slice(2, 4).map((a: any) => a.auth_id));
    expect(page.body.previous_page_url).toBe(`${base}auths?limit=2&offset=0&debug=1`);
    const desc = await api(`${base}auths?desc=true`, { token: live });
    expect(desc.body.data.map((a: any) => a.auth_id)).toEqual([...all.body.data].reverse().map((a: any) => a.auth_id));
    const search = await api(`${base}auths?q=PAGING%201`, { token: live });
    expect(search.body.total_items).toBe(1);
    expectError(await api(`${base}auths?limit=0`, { token: live }), 400, 'invalid_input');
    expectError(await api(`${base}auths?sort_by=name`, { token: live }), 400, 'invalid_input');
    expectError(await api(`${base}auths?type=weird`, { token: live }), 400, 'invalid_input');
    expectError(await api(`${base}auths?desc=maybe`, { token: live }), 400, 'invalid_input');
  });

  it('changes comments, expiry and permissions, and ignores read-only properties', async () => {
    const created = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { permissions: [{ resource: 'orders', methods: ['read'] }] } });
    const whole = { ...created.body, comments: 'renamed', token: 'sk.live.forged', type: 'limited', permissions: [{ resource: 'products', methods: ['read'] }] };
    const updated = await api(created.body.url, { method: 'POST', token: live, body: whole });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ comments: 'renamed', type: 'secret', auth_id: created.body.auth_id });
    expect(updated.body.effective_permissions.products.read).toBe(true);
    expect(updated.body.effective_permissions.orders.read).toBe(false);
    // The change applies from the next request.
    expectError(await api(`${base}auths`, { token: created.body.token }), 403, 'insufficient_permissions');
    expectError(await api(created.body.url, { method: 'POST', token: live, body: { expires: '2001-01-01T00:00:00Z' } }), 400, 'invalid_input');
    expectError(await api(created.body.url, { method: 'POST', token: live, body: { comments: 'x'.repeat(1001) } }), 400, 'invalid_input');
    for (const [body, property] of [
      [{ comments: 42 }, 'comments'],
      [{ comments: 'never', expires: 1_900_000_000 }, 'expires'],
      [{ comments: 'never', permissions: null }, 'permissions'],
      [{ comments: 'never', permissions: [{ resource: 'orders', methods: ['read'], allow: 1 }] }, 'permissions[0].allow'],
      [{ comments: 'never', permissions: [{ resource: 'orders', methods: 'read' }] }, 'permissions[0].methods'],
    ] as const) {
      const refused = await api(created.body.url, { method: 'POST', token: live, body });
      expectError(refused, 400, 'invalid_input');
      expect(refused.body.error.meta).toMatchObject({ property });
    }
    const unchanged = await api(created.body.url, { token: live });
    expect(unchanged.body.comments).toBe('renamed');
  });

  it('accepts a date shorthand for expires: its last moment in the zone in effect', async () => {
    const created = await api(`${base}auths/secret?timezone=Asia/Kolkata`, { method: 'POST', token: live, body: { expires: '+1', permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expect(created.status).toBe(201);
    // The last moment of tomorrow in Kolkata, shown in the zone in effect.
    expect(created.body.expires).toMatch(/T23:59:59\+05:30$/);
    expect((await api(`${created.body.url}`, { token: live })).body.expires).toMatch(/T18:29:59Z$/);
    expectError(await api(`${base}auths/secret`, { method: 'POST', token: live, body: { expires: 'someday', permissions: [{ resource: 'orders', methods: ['read'] }] } }), 400, 'invalid_input');
    expectError(await api(`${base}auths/secret`, { method: 'POST', token: live, body: { expires: '-1', permissions: [{ resource: 'orders', methods: ['read'] }] } }), 400, 'invalid_input');
  });

  it('sends X-Token-Expires-In-Seconds for tokens with an expiry', async () => {
    const expires = new Date(Date.now() + 3600_000).toISOString();
    const created = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { expires, permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expect(created.body.expires_in_seconds).toBeGreaterThan(3590);
    const me = await api(`${base}auths/me`, { token: created.body.token });
    const header = Number(me.headers.get('x-token-expires-in-seconds'));
    expect(header).toBeGreaterThan(3590);
    expect(header).toBeLessThanOrEqual(3600);
  });

  it('revokes tokens at once (by id and /auths/me)', async () => {
    const a = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { permissions: [{ resource: 'orders', methods: ['read'] }] } });
    const deleted = await api(a.body.url, { method: 'DELETE', token: live });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(deleted.headers.get('content-type')).toBeNull();
    expectError(await api(`${base}auths/me`, { token: a.body.token }), 401, 'invalid_token');
    expectError(await api(a.body.url, { token: live }), 404, 'resource_not_found');
    const b = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expect((await api(`${base}auths/me`, { method: 'DELETE', token: b.body.token })).status).toBe(204);
    expectError(await api(`${base}auths/me`, { token: b.body.token }), 401, 'invalid_token');
  });

  it('lists grantable permissions at /auths/options', async () => {
    const options = await api(`${base}auths/options`, { token: live });
    expect(options.body.object).toBe('auth_options');
    expect(options.body.permissions).toContainEqual({ resource: 'hosted_function_executions', methods: ['create'] });
    expect(options.body.permissions).toHaveLength(23);
    expectError(await api(`${base}auths/options?type=robot`, { token: live }), 400, 'invalid_input');
  });
});

describe('Idempotency-Key (conventions.md 19)', () => {
  const body = { comments: 'idempotent', permissions: [{ resource: 'orders', methods: ['read'] }] };

  it('replays the stored answer without executing again', async () => {
    const key = `key-${Date.now()}`;
    const first = await api(`${base}auths/secret`, { method: 'POST', token: live, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    const replay = await api(`${base}auths/secret?ignored=1`, {
      method: 'POST',
      token: live,
      body: { permissions: body.permissions, comments: body.comments },
      headers: { 'Idempotency-Key': key },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.token).toBe(first.body.token);
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    const list = await api(`${base}auths?q=idempotent`, { token: live });
    expect(list.body.total_items).toBe(1);
  });

  it('refuses the same key with another body (409 in_use, conflict)', async () => {
    const key = `mismatch-${Date.now()}`;
    await api(`${base}auths/secret`, { method: 'POST', token: live, body, headers: { 'Idempotency-Key': key } });
    const other = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { ...body, comments: 'other' }, headers: { 'Idempotency-Key': key } });
    expectError(other, 409, 'in_use');
    expect(other.body.error.meta).toEqual({ parameter: 'Idempotency-Key', reason: 'conflict' });
  });

  it('does not store 400 answers, so a corrected request can reuse the key', async () => {
    const key = `retry-${Date.now()}`;
    expectError(await api(`${base}auths/secret`, { method: 'POST', token: live, body: { comments: 'no perms' }, headers: { 'Idempotency-Key': key } }), 400, 'invalid_input');
    const fixed = await api(`${base}auths/secret`, { method: 'POST', token: live, body, headers: { 'Idempotency-Key': key } });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('executes concurrent requests with one key once: the others replay or are told it is in progress', async () => {
    const key = `race-${Date.now()}`;
    const raceBody = { comments: `race ${key}`, permissions: body.permissions };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => api(`${base}auths/secret`, { method: 'POST', token: live, body: raceBody, headers: { 'Idempotency-Key': key } })),
    );
    const executed = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(executed).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.body.token).toBe(executed[0]!.body.token);
      else expect(answer.body.error.meta).toEqual({ parameter: 'Idempotency-Key', reason: 'in_progress' });
    }
    expect((await api(`${base}auths?q=${encodeURIComponent(raceBody.comments)}`, { token: live })).body.total_items).toBe(1);
  });

  it('scopes keys to the calling token and rejects invalid keys', async () => {
    const key = `scoped-${Date.now()}`;
    const a = await api(`${base}auths/secret`, { method: 'POST', token: live, body, headers: { 'Idempotency-Key': key } });
    const b = await api(`${base}auths/secret`, { method: 'POST', token: test, body, headers: { 'Idempotency-Key': key } });
    expect(b.status).toBe(201);
    expect(b.body.token).not.toBe(a.body.token);
    const invalid = await api(`${base}auths/secret`, { method: 'POST', token: live, body, headers: { 'Idempotency-Key': 'x'.repeat(256) } });
    expectError(invalid, 400, 'invalid_input');
    expect(invalid.body.error.meta.parameter).toBe('Idempotency-Key');
  });
});
