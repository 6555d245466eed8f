/**
 * The local runtime as a process: restarts keep data, `kill -9` loses nothing committed,
 * signals stop it cleanly, the operator command adds accounts, and accounts cannot see each
 * other. Each test drives real processes on its own data directory.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, startRuntime, tempDataDir } from '../support/runtime-process';

const ROOT = resolve(import.meta.dirname, '../..');

function createAccount(dataDir: string, args: string[]) {
  return spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', join(ROOT, 'infra/accounts/create-account.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, CARTWHEEL_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
}

describe('local runtime lifecycle', () => {
  it('keeps everything across a restart and rewrites the same bootstrap facts', async () => {
    const dataDir = tempDataDir();
    const first = await startRuntime({ dataDir });
    const token = first.bootstrap.tokens.live_secret;
    const created = await api(`${first.bootstrap.api_url}auths/secret`, {
      method: 'POST',
      token,
      body: { comments: 'survives', permissions: [{ resource: 'orders', methods: ['read'] }] },
    });
    expect(created.status).toBe(201);
    expect(statSync(join(dataDir, 'bootstrap.json')).mode & 0o777).toBe(0o600);
    expect(await first.stop('SIGINT')).toBe(0);

    const second = await startRuntime({ dataDir });
    try {
      expect(second.bootstrap.account_id).toBe(first.bootstrap.account_id);
      expect(second.bootstrap.tokens).toEqual(first.bootstrap.tokens);
      expect(second.bootstrap.owner).toEqual(first.bootstrap.owner);
      const me = await api(`${second.bootstrap.api_url}auths/me`, { token: created.body.token });
      expect(me.status).toBe(200);
      expect(me.body.comments).toBe('survives');
      const list = await api(`${second.bootstrap.api_url}auths`, { token });
      expect(list.body.total_items).toBe(2);
    } finally {
      await second.stop();
    }
  });

  it('loses no committed write on kill -9', async () => {
    const dataDir = tempDataDir();
    const first = await startRuntime({ dataDir });
    const token = first.bootstrap.tokens.live_secret;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await api(`${first.bootstrap.api_url}auths/secret`, {
        method: 'POST',
        token,
        body: { comments: `kill ${i}`, permissions: [{ resource: 'orders', methods: ['read'] }] },
      });
      expect(created.status).toBe(201);
      ids.push(created.body.auth_id);
    }
    await first.stop('SIGKILL');

    const second = await startRuntime({ dataDir });
    try {
      for (const id of ids) expect((await api(`${second.bootstrap.api_url}auths/${id}`, { token })).status).toBe(200);
      const list = await api(`${second.bootstrap.api_url}auths`, { token });
      expect(list.body.total_items).toBe(11);
    } finally {
      await second.stop();
    }
  });

  it('refuses a second runtime on the same data directory', async () => {
    const dataDir = tempDataDir();
    const first = await startRuntime({ dataDir });
    try {
      await expect(startRuntime({ dataDir })).rejects.toThrow(/in use by process/);
      const result = createAccount(dataDir, ['--company', 'B', '--email', 'b@example.test']);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(/in use by process/);
    } finally {
      await first.stop();
    }
  });

  it('creates accounts with the operator command, and account A sees nothing of account B', async () => {
    const dataDir = tempDataDir();
    const first = await startRuntime({ dataDir });
    const a = first.bootstrap;
    const aToken = await api(`${a.api_url}auths/secret`, { method: 'POST', token: a.tokens.live_secret, body: { permissions: [{ resource: 'orders', methods: ['read'] }] } });
    await first.stop();

    const result = createAccount(dataDir, ['--company', 'Beta Ltd', '--email', 'owner@beta.example', '--user-id', 'beta-owner']);
    expect(result.status, result.stderr).toBe(0);
    const b = JSON.parse(result.stdout);
    expect(b.owner).toMatchObject({ user_id: 'beta-owner', email: 'owner@beta.example' });
    expect(b.owner.password).toHaveLength(20);
    expect(b.tokens.live_secret).toMatch(/^sk\.live\./);
    expect(b.account_id).not.toBe(a.account_id);

    const taken = createAccount(dataDir, ['--company', 'Gamma', '--email', 'OWNER@beta.example', '--user-id', 'gamma']);
    expect(taken.status).not.toBe(0);
    expect(taken.stderr).toMatch(/email address .* already taken/);
    const takenId = createAccount(dataDir, ['--company', 'Gamma', '--email', 'g@gamma.example', '--user-id', 'Beta-Owner']);
    expect(takenId.stderr).toMatch(/user id .* already taken/);
    const defaultId = createAccount(dataDir, ['--company', 'Gamma', '--email', 'g@gamma.example']);
    expect(defaultId.stderr).toMatch(/user id owner is already taken/);
    const badPassword = createAccount(dataDir, ['--company', 'Gamma', '--email', 'g@gamma.example', '--user-id', 'gamma', '--password', 'short']);
    expect(badPassword.status).not.toBe(0);
    expect(badPassword.stderr).toMatch(/at least 15 characters/);
    const missing = createAccount(dataDir, ['--email', 'g@gamma.example']);
    expect(missing.stderr).toMatch(/--company is required/);

    const second = await startRuntime({ dataDir });
    try {
      const bList = await api(`${second.bootstrap.api_url}auths`, { token: b.tokens.live_secret });
      expect(bList.body.total_items).toBe(1);
      expect(bList.body.data.every((auth: any) => auth.account_id === b.account_id)).toBe(true);
      const aList = await api(`${second.bootstrap.api_url}auths`, { token: a.tokens.live_secret });
      expect(aList.body.data.every((auth: any) => auth.account_id === a.account_id)).toBe(true);
      // B cannot read, change or revoke A's token by id.
      const url = `${second.bootstrap.api_url}auths/${aToken.body.auth_id}`;
      expect((await api(url, { token: b.tokens.live_secret })).status).toBe(404);
      expect((await api(url, { method: 'POST', token: b.tokens.live_secret, body: { comments: 'x' } })).status).toBe(404);
      expect((await api(url, { method: 'DELETE', token: b.tokens.live_secret })).status).toBe(404);
      expect((await api(`${second.bootstrap.api_url}auths/me`, { token: aToken.body.token })).status).toBe(200);
    } finally {
      await second.stop();
    }
    // Six operator commands, each opening the data directory with its own emulators.
  }, 300_000);
});

describe('limits and the manual clock', () => {
  it('answers 429 with Retry-After once a token exhausts its bucket, and nothing else happens', async () => {
    const runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '1/3' } });
    try {
      const url = `${runtime.bootstrap.api_url}auths/me`;
      const token = runtime.bootstrap.tokens.live_secret;
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await api(url, { token })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await api(`${runtime.bootstrap.api_url}auths/secret`, { method: 'POST', token, body: { comments: 'refused', permissions: [{ resource: 'orders', methods: ['read'] }] } });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('request_limit_exceeded');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Other tokens have their own buckets.
      expect((await api(url, { token: runtime.bootstrap.tokens.test_secret })).status).toBe(200);
      await new Promise((r) => setTimeout(r, Number(refused.headers.get('retry-after')) * 1000));
      const list = await api(`${runtime.bootstrap.api_url}auths?q=refused`, { token });
      expect(list.status).toBe(200);
      expect(list.body.total_items).toBe(0);
    } finally {
      await runtime.stop();
    }
  });

  it('expires tokens when the manual clock passes their expiry, and the clock survives a restart', async () => {
    const dataDir = tempDataDir();
    const runtime = await startRuntime({ dataDir, env: { CARTWHEEL_CLOCK: 'manual' } });
    const base = runtime.bootstrap.api_url;
    const clockUrl = `${runtime.url}/_local/clock`;
    expect((await api(clockUrl)).body.mode).toBe('manual');
    // Start from a whole second, so expiry arithmetic below is exact.
    const whole = new Date(Math.ceil((Date.now() + 1000) / 1000) * 1000).toISOString();
    const start = (await api(clockUrl, { method: 'POST', body: { set: whole } })).body;
    expect(start.now).toBe(whole.replace('.000', ''));
    const expires = new Date(Date.parse(start.now) + 3600_000).toISOString();
    const created = await api(`${base}auths/secret`, { method: 'POST', token: runtime.bootstrap.tokens.live_secret, body: { expires, permissions: [{ resource: 'orders', methods: ['read'] }] } });
    expect(created.status).toBe(201);
    expect((await api(`${base}auths/me`, { token: created.body.token })).headers.get('x-token-expires-in-seconds')).toBe('3600');

    const moved = await api(clockUrl, { method: 'POST', body: { advance_seconds: 3599 } });
    expect(moved.body.now).toBe(new Date(Date.parse(start.now) + 3599_000).toISOString().replace('.000', ''));
    expect((await api(`${base}auths/me`, { token: created.body.token })).headers.get('x-token-expires-in-seconds')).toBe('1');
    await api(clockUrl, { method: 'POST', body: { advance_seconds: 1 } });
    const expired = await api(`${base}auths/me`, { token: created.body.token });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatchObject({ code: 'invalid_token', message: 'The token has expired.' });

    expect((await api(clockUrl, { method: 'POST', body: { advance_seconds: -5 } })).status).toBe(400);
    expect((await api(clockUrl, { method: 'POST', body: { set: '2001-01-01T00:00:00Z' } })).status).toBe(400);
    expect((await api(clockUrl, { method: 'POST', rawBody: '{', headers: { 'Content-Type': 'application/json' } })).status).toBe(400);
    const before = (await api(clockUrl)).body.now;
    await runtime.stop();
    const again = await startRuntime({ dataDir, env: { CARTWHEEL_CLOCK: 'manual' } });
    try {
      expect((await api(`${again.url}/_local/clock`)).body.now).toBe(before);
    } finally {
      await again.stop();
    }
  });
});

describe('email outbox', () => {
  it('lists messages sent through the email port, newest first, with their renderings', async () => {
    const dataDir = tempDataDir();
    const runtime = await startRuntime({ dataDir });
    try {
      expect((await api(`${runtime.url}/_local/outbox`)).body).toEqual({ data: [] });
      // Send through the platform's own email port, configured as the runtime configures it.
      const send = spawnSync(
        process.execPath,
        ['--disable-warning=ExperimentalWarning', '--import', 'tsx', '-e', `
          const { outboxEmail } = await import(${JSON.stringify(join(ROOT, 'infra/local/outbox.ts'))});
          const email = outboxEmail({ dir: ${JSON.stringify(join(dataDir, 'outbox'))}, from: 'shop@example.test', clock: { nowMs: () => Date.now() } });
          for (const subject of ['First', 'Second ✓']) {
            await email.send({ to: 'buyer@example.test', subject, html: '<p>Hi <b>there</b></p>', text: 'Hi there', kind: 'order_confirmation', orderId: 'ORDER1' });
            await new Promise((r) => setTimeout(r, 5));
          }`],
        { cwd: ROOT, env: { ...process.env, CARTWHEEL_EMAIL_FROM: 'shop@example.test' }, encoding: 'utf8' },
      );
      expect(send.status, send.stderr).toBe(0);
      const list = await api(`${runtime.url}/_local/outbox`);
      expect(list.body.data.map((m: any) => m.subject)).toEqual(['Second ✓', 'First']);
      const message = list.body.data[1];
      expect(message).toMatchObject({ to: 'buyer@example.test', from: 'shop@example.test', kind: 'order_confirmation', order_id: 'ORDER1' });
      expect((await (await fetch(message.html_url)).text())).toBe('<p>Hi <b>there</b></p>');
      expect((await (await fetch(message.text_url)).text())).toBe('Hi there');
      const eml = await (await fetch(message.html_url.replace('.html', '.eml'))).text();
      expect(eml).toContain('Subject: First');
      expect(eml).toContain('multipart/alternative');
      const html = await fetch(`${runtime.url}/_local/outbox`, { headers: { Accept: 'text/html' } });
      expect(html.headers.get('content-type')).toContain('text/html');
      expect(await html.text()).toContain('Second ✓');
      expect((await api(`${runtime.url}/_local/outbox/NOPE.html`)).status).toBe(404);
    } finally {
      await runtime.stop();
    }
  });
});

describe('shutdown under load', () => {
  it('exits 0 within the drain bound while a client keeps a connection busy', async () => {
    const runtime = await startRuntime();
    const url = `${runtime.bootstrap.api_url}auths/me`;
    const token = runtime.bootstrap.tokens.live_secret;
    let running = true;
    const statuses = new Set<number>();
    // One client hammering over a kept-alive connection.
    const client = (async () => {
      while (running) {
        try {
          statuses.add((await api(url, { token })).status);
        } catch {
          return; // the connection was closed: the runtime is gone
        }
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const code = await runtime.stop('SIGTERM');
    running = false;
    await client;
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(statuses.has(200)).toBe(true);
  });

  it('answers a request that arrives on an open connection while it stops with the 503 envelope and Connection: close', async () => {
    const runtime = await startRuntime();
    const token = runtime.bootstrap.tokens.live_secret;
    const body = '{"comments":"kept busy","permissions":[{"resource":"orders","methods":["read"]}]}';
    const holding = await requestInFlight(runtime.port, token, body);
    const arriving = await requestInFlight(runtime.port, token, body);
    const exited = runtime.stop('SIGTERM');
    // The runtime refuses new requests and closes its listener in one step.
    while (await isListening(runtime.port)) await new Promise((resolvePause) => setImmediate(resolvePause));
    // The accepted request finishes; the one pipelined behind it is refused (the other keeps the drain waiting).
    arriving.socket.write(`${body}GET /api/v1/auths/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nOrigin: http://localhost:8080\r\n\r\n`);
    const answers = await arriving.closed;
    holding.socket.write(body);
    expect(await holding.closed).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    expect(await exited).toBe(0);

    expect(answers).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    const [head, refusal] = answers.slice(answers.indexOf('HTTP/1.1 503')).split('\r\n\r\n') as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    for (const header of ['Content-Type: application/json', 'Connection: close', 'Retry-After: 1', 'Access-Control-Allow-Origin: http://localhost:8080']) {
      expect(head).toContain(`\r\n${header}\r\n`);
    }
    const error = JSON.parse(refusal).error;
    expect(error).toMatchObject({ type: 'service_unavailable', code: 'stopping', status: 503, meta: null });
    expect(head).toContain(`\r\nX-Request-Id: ${error.reference}\r\n`);
  });
});

/**
 * Opens a connection and sends the head of a `POST /auths/secret` that expects 100-continue;
 * resolves once the gateway says 100 Continue, which it does right before reading the body:
 * the request is then in flight. `closed` resolves with everything the connection received.
 */
async function requestInFlight(port: number, token: string, body: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  const continued = new Promise<void>((resolveContinued) =>
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.includes('100 Continue')) resolveContinued();
    }),
  );
  const closed = new Promise<string>((resolveClosed) => socket.once('close', () => resolveClosed(received)));
  socket.write(
    `POST /api/v1/auths/secret HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await continued;
  return { socket, closed };
}

/** Whether something accepts connections on the port. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolveOpen) => {
    const probe = connect(port, '127.0.0.1');
    probe.once('connect', () => {
      probe.destroy();
      resolveOpen(true);
    });
    probe.once('error', () => resolveOpen(false));
  });
}
