/**
 * End-to-end over HTTP against a real local runtime: hosted functions (functions.md; events.md
 * §9). Real zips are uploaded as multipart forms and deployed to warm, confined child processes;
 * the invoke URL is called with every method and both token styles; failures answer as §7.6
 * says; variables are sealed and shown only to holders of `hosted_functions:update`; test and
 * live are separate and another account's token gets 404; an order:created subscription to a
 * function delivers to it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeWithSecondAccount, type RuntimeProcess } from '../support/runtime-process';
import { zipOf } from '../support/zip-writer';

const ROOT = resolve(import.meta.dirname, '../..');
const RATES = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };

let runtime: RuntimeProcess;
let base: string;
let functionsUrl: string;
let account: string;
let owner: string;
let liveOwner: string;
let otherAccount: { account_id: string; tokens: { live_secret: string; test_secret: string } };

type Reply = Awaited<ReturnType<typeof api>>;

/** A zip of an examples/functions/<name> folder, as a merchant would make it. */
function exampleZip(name: string): Buffer {
  const dir = join(ROOT, 'examples/functions', name);
  const files: Array<{ name: string; data: Buffer }> = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files.push({ name: relative(dir, path).split('\\').join('/'), data: readFileSync(path) });
    }
  };
  walk(dir);
  return zipOf(files);
}

/** A zip of inline sources. */
const sourceZip = (files: Record<string, string>) => zipOf(Object.entries(files).map(([name, data]) => ({ name, data })));

/** Posts a multipart form to the management API. */
async function form(path: string, fields: Record<string, string>, zip?: Buffer, token = owner, filename = 'fn.zip'): Promise<Reply> {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  if (zip) body.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), filename);
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

const create = (fields: Record<string, string>, zip: Buffer, token = owner) => form('hosted_functions', fields, zip, token);
const get = (path: string, token = owner) => api(`${base}${path}`, { token });

/** Calls an invoke URL. */
async function invoke(url: string, init: { method?: string; token?: string; query?: boolean; body?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const target = new URL(url);
  const headers: Record<string, string> = { ...init.headers };
  if (init.token && init.query) target.searchParams.set('token', init.token);
  else if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const response = await fetch(target, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: init.body } : {}) });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

const expectError = (reply: Reply, status: number, code: string, meta?: Record<string, unknown>) => {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type')).toBe('application/json');
  expect(reply.body.error).toMatchObject({ status, code });
  if (meta) expect(reply.body.error.meta).toMatchObject(meta);
  expect(reply.text).not.toMatch(/\n\s+at /);
};

async function secretToken(permissions: unknown[], live = false): Promise<string> {
  const minted = await api(`${base}auths/secret${live ? '' : '?test=true'}`, { method: 'POST', token: live ? liveOwner : owner, body: { comments: 'e2e', permissions } });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.token;
}

/** A callback-style echo of the event and a variable. */
const ECHO = `exports.handler = (event, context, callback) => {
  callback(null, { statusCode: 200, headers: { 'Content-Type': 'application/json', 'X-Seen': 1 }, body: JSON.stringify({ event, region: process.env.REGION ?? null, keys: Object.keys(process.env).sort() }) });
};`;

let echo: { hosted_function_id: string; invoke_url: string };

beforeAll(async () => {
  ({ runtime, other: otherAccount } = await startRuntimeWithSecondAccount({ env: RATES }));
  base = runtime.bootstrap.api_url;
  functionsUrl = runtime.bootstrap.functions_url;
  account = runtime.bootstrap.account_id;
  owner = runtime.bootstrap.tokens.test_secret;
  liveOwner = runtime.bootstrap.tokens.live_secret;
  const echoMade = await create({ name: 'Echo', runtime: 'node', handler: 'index.handler', environment_variables: '[{"name":"REGION","value":"eu"}]' }, exampleZip('node-echo'));
  expect(echoMade.status, echoMade.text).toBe(201);
  echo = echoMade.body;
}, 180_000);

afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

describe('POST /hosted_functions', () => {
  it('creates and deploys a function from a zip: 201, Location, every property, active before the answer', () => {
    expect(echo).toMatchObject({
      object: 'hosted_function',
      test: true,
      account_id: account,
      name: 'Echo',
      description: null,
      runtime: 'nodejs22.x',
      environment: 'nodejs22.x',
      handler: 'index.handler',
      environment_variables: [{ name: 'REGION', value: 'eu' }],
      timeout: 30,
      memory_mb: 256,
      filename: 'fn.zip',
      status: 'active',
      status_message: null,
    });
    expect(echo.invoke_url).toBe(`${functionsUrl.replace(/\/$/, '')}/func/v1/${echo.hosted_function_id}`);
    expect((echo as unknown as { date_deployed: string }).date_deployed).toBeTruthy();
  });

  it('refuses bad fields and bad zips with 400 and stores nothing', async () => {
    const before = (await get('hosted_functions')).body.total_count;
    const zip = sourceZip({ 'index.js': ECHO });
    const cases: Array<[Record<string, string>, Buffer | undefined, string]> = [
      [{ runtime: 'node', handler: 'index.handler' }, zip, 'name'],
      [{ name: 'x', handler: 'index.handler' }, zip, 'runtime'],
      [{ name: 'x', runtime: 'ruby', handler: 'index.handler' }, zip, 'runtime'],
      [{ name: 'x', runtime: 'node', handler: 'main.handler' }, zip, 'handler'],
      [{ name: 'x', runtime: 'node', handler: 'index' }, zip, 'handler'],
      [{ name: 'x', runtime: 'java', handler: 'NotAJavaHandler' }, zip, 'handler'],
      [{ name: 'x', runtime: 'node', handler: 'index.handler', timeout: '0' }, zip, 'timeout'],
      [{ name: 'x', runtime: 'node', handler: 'index.handler', memory_mb: '4096' }, zip, 'memory_mb'],
      [{ name: 'x', runtime: 'node', handler: 'index.handler', environment_variables: '[{"name":"PATH","value":"/"}]' }, zip, 'environment_variables'],
      [{ name: 'x', runtime: 'node', handler: 'index.handler', environment_variables: '{oops' }, zip, 'environment_variables'],
      [{ name: 'x', runtime: 'node', handler: 'index.handler' }, undefined, 'file'],
      [{ name: 'x', runtime: 'node', handler: 'index.handler' }, Buffer.from('not a zip'), 'file'],
      [{ name: 'x', runtime: 'node', handler: 'index.handler' }, zipOf([{ name: 'index.js', data: ECHO }, { name: '../evil.js', data: 'x' }]), 'file'],
      [{ name: 'x', runtime: 'node', handler: 'index.handler' }, zipOf([{ name: 'index.js', data: ECHO }, { name: '__cartwheel__/index.cjs', data: 'x' }]), 'file'],
      [{ name: 'x', runtime: 'node', handler: 'index.handler' }, zipOf([{ name: 'index.js', data: ECHO }, { name: 'link', data: '/etc/passwd', unixMode: 0o120777 }]), 'file'],
    ];
    for (const [fields, file, property] of cases) {
      const reply = await create(fields, file as Buffer);
      expectError(reply, 400, 'invalid_input', { property });
    }
    expect((await get('hosted_functions')).body.total_count).toBe(before);
  });

  it('needs hosted_functions:create; JSON instead of a form is invalid_syntax', async () => {
    const reader = await secretToken([{ resource: 'hosted_functions', methods: ['read'] }]);
    expectError(await create({ name: 'x', runtime: 'node', handler: 'index.handler' }, sourceZip({ 'index.js': ECHO }), reader), 403, 'insufficient_permissions');
    expectError(await api(`${base}hosted_functions`, { method: 'POST', token: owner, body: { name: 'x' } }), 400, 'invalid_syntax');
  });
});

describe('reading, listing and variables', () => {
  it('shows values only to holders of hosted_functions:update', async () => {
    const reader = await secretToken([{ resource: 'hosted_functions', methods: ['read'] }]);
    const updater = await secretToken([{ resource: 'hosted_functions', methods: ['read', 'update'] }]);
    expect((await get(`hosted_functions/${echo.hosted_function_id}`, reader)).body.environment_variables).toEqual([{ name: 'REGION' }]);
    expect((await get(`hosted_functions/${echo.hosted_function_id}`, updater)).body.environment_variables).toEqual([{ name: 'REGION', value: 'eu' }]);
    const list = await get('hosted_functions?runtime=node', reader);
    expect(list.body.data.every((entry: { environment_variables: Array<{ value?: string }> }) => entry.environment_variables.every((variable) => variable.value === undefined))).toBe(true);
  });

  it('never stores the values in clear', () => {
    const items = readdirSync(runtime.dataDir, { recursive: true }).map(String);
    const tableFiles = items.filter((path) => !path.startsWith('functions') && !path.startsWith('objects') && statSync(join(runtime.dataDir, path)).isFile());
    for (const file of tableFiles) {
      const content = readFileSync(join(runtime.dataDir, file));
      expect(content.includes(Buffer.from('"REGION","value":"eu"')), file).toBe(false);
    }
  });

  it('lists with filters and sorting, and refuses an unknown sort', async () => {
    const list = await get('hosted_functions?status=active&sort_by=name');
    expect(list.status).toBe(200);
    expect(list.body.data.map((entry: { hosted_function_id: string }) => entry.hosted_function_id)).toContain(echo.hosted_function_id);
    expectError(await get('hosted_functions?sort_by=size'), 400, 'invalid_input');
  });

  it('hides every function from another account: 404 on read, update and delete, and none listed', async () => {
    const other = otherAccount.tokens.test_secret;
    const path = `hosted_functions/${echo.hosted_function_id}`;
    expectError(await get(path, other), 404, 'resource_not_found');
    expectError(await api(`${base}${path}`, { method: 'POST', token: other, body: { name: 'Taken' } }), 404, 'resource_not_found');
    expectError(await form(path, { name: 'Taken' }, sourceZip({ 'index.js': ECHO }), other), 404, 'resource_not_found');
    expectError(await api(`${base}${path}`, { method: 'DELETE', token: other }), 404, 'resource_not_found');
    expect((await get('hosted_functions', other)).body.data).toEqual([]);
    expect((await get(path)).body.name).toBe('Echo');
    const theirs = await create({ name: 'Theirs', runtime: 'node', handler: 'index.handler' }, sourceZip({ 'index.js': ECHO }), other);
    expect(theirs.status, theirs.text).toBe(201);
    expectError(await invoke(theirs.body.invoke_url, { token: owner }), 404, 'resource_not_found');
    const subscription = await api(`${base}event_subscriptions`, { method: 'POST', token: owner, body: { event_type: 'order:created', method: 'http', destination: theirs.body.invoke_url } });
    expectError(subscription, 400, 'invalid_input', { property: 'destination' });
  });

  it('keeps test and live apart: the other mode is token_type_mismatch', async () => {
    expectError(await get(`hosted_functions/${echo.hosted_function_id}`, liveOwner), 400, 'token_type_mismatch');
  });
});

describe('the invoke URL (§7)', () => {
  it('answers every method with the function response, with both token styles, and passes the §7.2 event', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const reply = await invoke(`${echo.invoke_url}/quotes/eu?region=eu&token=${owner}`, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{"a":1}', headers: { 'Content-Type': 'application/json' } }) });
      expect(reply.status, `${method} ${reply.text}`).toBe(200);
      const event = (reply.body as { event: Record<string, any> }).event;
      expect(event.httpMethod).toBe(method);
      expect(event.path).toBe(`/func/v1/${echo.hosted_function_id}/quotes/eu?region=eu`);
      expect(event.queryStringParameters).toEqual({ region: 'eu' });
      expect(event.headers['X-Test']).toBe('true');
      expect(event.headers['X-Account-Id']).toBe(account);
      expect(event.requestContext.requestId).toBe(reply.headers.get('x-request-id'));
    }
    const bearer = await invoke(echo.invoke_url, { token: owner, method: 'POST', body: 'plain', headers: { 'Content-Type': 'text/plain' } });
    expect(bearer.status).toBe(200);
    const event = (bearer.body as { event: Record<string, any> }).event;
    expect(event.headers.authorization).toBeUndefined();
    expect(event.body).toBe('plain');
    expect((bearer.body as { env: Record<string, string> }).env.REGION).toBe('eu');
  });

  it('gives the child only its own variables and neutral runtime values', async () => {
    const reply = await invoke(echo.invoke_url, { token: owner });
    const keys = Object.keys((reply.body as { env: Record<string, string> }).env);
    expect(keys).toContain('REGION');
    expect(keys.filter((key) => key.startsWith('CARTWHEEL_') || key.startsWith('AWS_') || key === 'NODE_OPTIONS')).toEqual([]);
  });

  it('answers 401 without a valid token, 404 for another account or an unknown id, 400 for the other mode, 403 without the permission', async () => {
    expectError(await invoke(echo.invoke_url), 401, 'invalid_token');
    expectError(await invoke(echo.invoke_url, { token: 'sk.test.nope' }), 401, 'invalid_token');
    expectError(await invoke(`${functionsUrl}/func/v1/UNKNOWN00000`, { token: owner }), 404, 'resource_not_found');
    expectError(await invoke(echo.invoke_url, { token: otherAccount.tokens.test_secret }), 404, 'resource_not_found');
    expectError(await invoke(echo.invoke_url, { token: otherAccount.tokens.test_secret, query: true }), 404, 'resource_not_found');
    expectError(await invoke(echo.invoke_url, { token: liveOwner }), 400, 'token_type_mismatch');
    const reader = await secretToken([{ resource: 'hosted_functions', methods: ['read'] }]);
    expectError(await invoke(echo.invoke_url, { token: reader }), 403, 'insufficient_permissions');
    const executor = await secretToken([{ resource: 'hosted_function_executions', methods: ['create'] }]);
    expect((await invoke(echo.invoke_url, { token: executor })).status).toBe(200);
    const limited = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: owner })).body.token;
    expectError(await invoke(echo.invoke_url, { token: limited }), 403, 'insufficient_permissions');
  });

  it('answers preflights itself, refuses other methods and foreign origins, and 422 over 6 MB', async () => {
    const preflight = await invoke(echo.invoke_url, { method: 'OPTIONS', headers: { Origin: 'https://shop.example.test', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-thing' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example.test');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('PUT');
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    expectError(await invoke(echo.invoke_url, { method: 'PROPFIND', token: owner }), 405, 'method_not_allowed');
    expectError(await invoke(echo.invoke_url, { token: owner, headers: { Origin: 'https://evil.example.test' } }), 403, 'invalid_origin');
    const local = await invoke(echo.invoke_url, { token: owner, headers: { Origin: 'http://localhost:5173' } });
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expectError(await invoke(echo.invoke_url, { token: owner, method: 'POST', body: 'x'.repeat(6 * 1024 * 1024 + 1) }), 422, 'account_limit_exceeded');
  });

  it('maps errors to 502 and a timeout to 504 (the function’s own timeout), and the next call works', async () => {
    const failing = await create({ name: 'Fails', runtime: 'nodejs', handler: 'index.handler' }, sourceZip({ 'index.js': "exports.handler = async (event) => { if (event.httpMethod === 'POST') throw new TypeError('country required'); return event.queryStringParameters.mode === 'nothing' ? undefined : { statusCode: 200, body: 'ok' }; };" }));
    expect(failing.status, failing.text).toBe(201);
    expectError(await invoke(failing.body.invoke_url, { token: owner, method: 'POST' }), 502, 'remote_server_error', { hosted_function_id: failing.body.hosted_function_id, error_type: 'TypeError', error_message: 'country required' });
    expectError(await invoke(`${failing.body.invoke_url}?mode=nothing`, { token: owner }), 502, 'remote_server_error', { reason: 'invalid_response' });
    expect((await invoke(failing.body.invoke_url, { token: owner })).text).toBe('ok');

    const sleeper = await create({ name: 'Sleeps', runtime: 'node', handler: 'index.handler', timeout: '1' }, sourceZip({ 'index.js': "exports.handler = (event, context, callback) => { if (event.queryStringParameters.fast) return callback(null, { body: 'awake' }); /* never calls back */ };" }));
    expect(sleeper.status, sleeper.text).toBe(201);
    expectError(await invoke(sleeper.body.invoke_url, { token: owner }), 504, 'remote_server_timeout', { timeout_seconds: 1 });
    expect((await invoke(`${sleeper.body.invoke_url}?fast=1`, { token: owner })).text).toBe('awake');
  });

  it('runs the examples: an ES module with module state, and Python', async () => {
    const asyncFn = await create({ name: 'Async', runtime: 'nodejs22.x', handler: 'index.handler' }, exampleZip('node-async'));
    expect(asyncFn.status, asyncFn.text).toBe(201);
    expect((await invoke(`${asyncFn.body.invoke_url}/a?b=1`, { token: owner, method: 'PATCH' })).text).toBe(`PATCH /func/v1/${asyncFn.body.hosted_function_id}/a?b=1 calls=1 remaining=true`);
    expect((await invoke(asyncFn.body.invoke_url, { token: owner, query: true })).text).toMatch(/calls=2 /);
    const py = await create({ name: 'PyEcho', runtime: 'python3.13', handler: 'main.handler', environment_variables: '{"REGION":"ap"}' }, exampleZip('python-echo'));
    expect(py.status, py.text).toBe(201);
    const reply = await invoke(`${py.body.invoke_url}?x=1`, { token: owner, method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' } });
    expect(reply.status, reply.text).toBe(200);
    const echoed = reply.body as { event: Record<string, any>; env: Record<string, string> };
    expect(echoed.event).toMatchObject({ httpMethod: 'POST', body: '{"a":1}', queryStringParameters: { x: '1' } });
    expect(echoed.env.REGION).toBe('ap');
    const pyFail = await form(`hosted_functions/${py.body.hosted_function_id}`, { handler: 'main.fail' });
    expect(pyFail.status, pyFail.text).toBe(200);
    expectError(await invoke(py.body.invoke_url, { token: owner }), 502, 'remote_server_error', { error_type: 'ValueError', error_message: 'country required' });
  });

  it('runs Python functions', async () => {
    const python = await create({ name: 'Py', runtime: 'python', handler: 'app/main.handler', environment_variables: '{"REGION":"us"}' }, sourceZip({
      'app/main.py': "import json, os\n\ndef handler(event, context):\n    if event['httpMethod'] == 'DELETE':\n        raise ValueError('no deleting')\n    return {'statusCode': 200, 'headers': {'Content-Type': 'application/json'}, 'body': json.dumps({'region': os.environ['REGION'], 'test': event['headers']['X-Test']})}\n",
    }));
    expect(python.status, python.text).toBe(201);
    expect(python.body.runtime).toBe('python3.13');
    const reply = await invoke(python.body.invoke_url, { token: owner });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ region: 'us', test: 'true' });
    expectError(await invoke(python.body.invoke_url, { token: owner, method: 'DELETE' }), 502, 'remote_server_error', { error_type: 'ValueError', error_message: 'no deleting' });
  });

  it('answers Java without a Java 21 toolchain with 502 runtime_unavailable (creation is allowed)', async () => {
    const java = await create({ name: 'Java', runtime: 'java', handler: 'com.example.Quotes::handle' }, sourceZip({ 'Quotes.class': 'x' }));
    expect(java.status, java.text).toBe(201);
    const reply = await invoke(java.body.invoke_url, { token: owner });
    if (reply.status !== 200) expectError(reply, 502, 'remote_server_error', { reason: 'runtime_unavailable' });
  });

  it('refuses calls past 50 running for the account with 429 and Retry-After: 1, at once, and serves the rest', async () => {
    // Each call waits on this server until the test has seen the refusals, so exactly 50 are running then.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const gate = createServer((_request, response) => void released.then(() => response.end('go')));
    await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(gate.address() as AddressInfo).port}/`;
      const held = await create({ name: 'Held', runtime: 'node', handler: 'index.handler', environment_variables: JSON.stringify({ GATE_URL: url }) }, sourceZip({ 'index.js': "exports.handler = async () => { await (await fetch(process.env.GATE_URL)).text(); return { body: 'done' }; };" }));
      expect(held.status, held.text).toBe(201);
      const refusals: Reply[] = [];
      const calls = Array.from({ length: 60 }, () =>
        invoke(held.body.invoke_url, { token: owner }).then((reply) => {
          if (reply.status === 429) refusals.push(reply);
          return reply;
        }),
      );
      for (let waited = 0; refusals.length < 10 && waited < 60_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(refusals).toHaveLength(10);
      release();
      const replies = await Promise.all(calls);
      expect(replies.filter((reply) => reply.status === 200)).toHaveLength(50);
      for (const reply of refusals) {
        expectError(reply, 429, 'request_limit_exceeded');
        expect(reply.headers.get('retry-after')).toBe('1');
      }
      expect((await invoke(held.body.invoke_url, { token: owner })).text).toBe('done');
    } finally {
      release();
      gate.close();
    }
  });

  it('answers 50 concurrent invocations of one function', async () => {
    const replies = await Promise.all(Array.from({ length: 50 }, () => invoke(echo.invoke_url, { token: owner })));
    expect(replies.map((reply) => reply.status)).toEqual(Array(50).fill(200));
  });
});

describe('updating and deleting (§3, §5, §6)', () => {
  it('replaces code (pending → active, date_deployed moves), keeps a value sent by name only, and redeploys settings alone staying active', async () => {
    const made = await create({ name: 'V', runtime: 'node', handler: 'index.handler', environment_variables: '{"A":"1","B":"2"}' }, sourceZip({ 'index.js': "exports.handler = async () => ({ body: 'v1:' + process.env.A + process.env.B });" }));
    const url = made.body.invoke_url;
    expect((await invoke(url, { token: owner })).text).toBe('v1:12');
    const updated = await form(`hosted_functions/${made.body.hosted_function_id}`, {}, sourceZip({ 'index.js': "exports.handler = async () => ({ body: 'v2:' + process.env.A + (process.env.B ?? '-') });" }), owner, 'v2.zip');
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ status: 'active', filename: 'v2.zip' });
    expect((await invoke(url, { token: owner })).text).toBe('v2:12');
    const settings = await api(`${base}hosted_functions/${made.body.hosted_function_id}`, { method: 'POST', token: owner, body: { environment_variables: [{ name: 'A' }], timeout: '10' } });
    expect(settings.status, settings.text).toBe(200);
    expect(settings.body).toMatchObject({ status: 'active', timeout: 10, environment_variables: [{ name: 'A', value: '1' }] });
    expect((await invoke(url, { token: owner })).text).toBe('v2:1-');
    expectError(await api(`${base}hosted_functions/${made.body.hosted_function_id}`, { method: 'POST', token: owner, body: { environment_variables: [{ name: 'NEW' }] } }), 400, 'invalid_input', { property: 'environment_variables' });
    expectError(await api(`${base}hosted_functions/${made.body.hosted_function_id}`, { method: 'POST', token: owner, body: { handler: 'other.handler' } }), 400, 'invalid_input', { property: 'handler' });
  });

  it('keeps the previous code serving when new code fails to deploy', async () => {
    const made = await create({ name: 'Keep', runtime: 'node', handler: 'index.handler' }, sourceZip({ 'index.js': "exports.handler = async () => ({ body: 'old' });" }));
    // A handler file that exists but a package that cannot be read as code still deploys; a missing handler file is refused up front.
    const refused = await form(`hosted_functions/${made.body.hosted_function_id}`, {}, sourceZip({ 'other.js': 'x' }));
    expectError(refused, 400, 'invalid_input', { property: 'handler' });
    expect((await invoke(made.body.invoke_url, { token: owner })).text).toBe('old');
  });

  it('deletes: 204, then the invoke URL and the resource answer 404', async () => {
    const made = await create({ name: 'Gone', runtime: 'node', handler: 'index.handler' }, sourceZip({ 'index.js': "exports.handler = async () => ({ body: 'here' });" }));
    expect((await invoke(made.body.invoke_url, { token: owner })).text).toBe('here');
    expect((await api(`${base}hosted_functions/${made.body.hosted_function_id}`, { method: 'DELETE', token: owner })).status).toBe(204);
    expectError(await invoke(made.body.invoke_url, { token: owner }), 404, 'resource_not_found');
    expectError(await get(`hosted_functions/${made.body.hosted_function_id}`), 404, 'resource_not_found');
  });
});

describe('functions as event destinations (events.md §9)', () => {
  it('recognises the invoke URL, refuses another mode’s function, and delivers order:created to the function', { timeout: 120_000 }, async () => {
    const received = await create({ name: 'Hook', runtime: 'node', handler: 'index.handler' }, sourceZip({
      'index.js': "const seen = []; exports.handler = async (event) => { if (event.httpMethod === 'GET') return { body: JSON.stringify(seen) }; seen.push({ headers: event.headers, body: JSON.parse(event.body) }); return { statusCode: 200, body: 'thanks' }; };",
    }));
    expect(received.status, received.text).toBe(201);
    const subscription = await api(`${base}event_subscriptions`, { method: 'POST', token: owner, body: { event_type: 'order:created', method: 'http', destination: `${received.body.invoke_url}?from=events` } });
    expect(subscription.status, subscription.text).toBe(201);
    expect(subscription.body.hosted_function).toBe(`${base}hosted_functions/${received.body.hosted_function_id}`);
    const live = await api(`${base}event_subscriptions`, { method: 'POST', token: liveOwner, body: { event_type: 'order:created', method: 'http', destination: received.body.invoke_url } });
    expectError(live, 400, 'invalid_input', { property: 'destination' });

    // A sample delivery waits for the attempt: the function answers it.
    const sample = await api(`${base}event_subscriptions/${subscription.body.event_subscription_id}/test`, { method: 'POST', token: owner });
    expect(sample.status, sample.text).toBe(200);
    expect(sample.body).toMatchObject({ success: true, status_code: 200 });
    const seen = (await invoke(received.body.invoke_url, { token: owner })).body as Array<{ headers: Record<string, string>; body: { data: unknown } }>;
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen[0]!.headers['X-Hosted-Function-Id']).toBe(received.body.hosted_function_id);
    expect(seen[0]!.headers['x-service-signature']).toBeTruthy();
    expect(seen[0]!.body.data).toBeTruthy();

    // A real order: its order:created notification reaches the function through the delivery worker.
    expect((await api(`${base}products`, { method: 'POST', token: owner, body: { product_id: 'fn-sold', name: 'Sold', type: 'digital', prices: [{ currency: 'USD', price: 7 }] } })).status).toBe(201);
    const cart = await api(`${base}carts`, { method: 'POST', token: owner, body: { items: [{ product_id: 'fn-sold', quantity: 1 }], customer: { name: 'Ana Ruiz', email: 'ana@example.org', billing_address: { country: 'US' } } } });
    expect(cart.status, cart.text).toBe(201);
    const paid = await api(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token: owner, body: { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } } });
    expect(paid.status, paid.text).toBe(201);
    const orderId = String(paid.body.order).split('/').pop();
    // Waited on through the platform's record of the event, not the function's memory: a warm
    // function may run in several children locally, and polling it while the delivery arrives can
    // reach a child that did not take it.
    type DeliveredEvent = { status: string; data: { order_id: string }; attempts: Array<{ status_code: number | null }> };
    let delivered: DeliveredEvent | undefined;
    for (let waited = 0; !delivered && waited < 60_000; waited += 200) {
      const events = await get(`events?event_subscription_id=${subscription.body.event_subscription_id}&limit=100`);
      expect(events.status, events.text).toBe(200);
      delivered = (events.body.data as DeliveredEvent[]).find((event) => event.data.order_id === orderId && event.status === 'delivered');
      if (!delivered) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(delivered, 'the order:created notification reached the function').toBeDefined();
    expect(delivered!.attempts.at(-1)!.status_code).toBe(200);
  });

  it('records a delivery to a deleted function as function_not_found', async () => {
    const doomed = await create({ name: 'Doomed', runtime: 'node', handler: 'index.handler' }, sourceZip({ 'index.js': "exports.handler = async () => ({ statusCode: 500, body: 'no' });" }));
    const subscription = await api(`${base}event_subscriptions`, { method: 'POST', token: owner, body: { event_type: 'product:created', method: 'http', destination: doomed.body.invoke_url } });
    expect(subscription.status, subscription.text).toBe(201);
    const refused = await api(`${base}event_subscriptions/${subscription.body.event_subscription_id}/test`, { method: 'POST', token: owner });
    expect(refused.body).toMatchObject({ success: false, status_code: 500 });
    expect((await api(`${base}hosted_functions/${doomed.body.hosted_function_id}`, { method: 'DELETE', token: owner })).status).toBe(204);
    const gone = await api(`${base}event_subscriptions/${subscription.body.event_subscription_id}/test`, { method: 'POST', token: owner });
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body).toMatchObject({ success: false, status_code: null, error: { code: 'function_not_found' } });
  });
});
