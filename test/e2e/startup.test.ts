/**
 * Requests during start-up cannot stop the runtime (local-runtime.md: "No request, however
 * early or malformed, can stop the process"). The test spawns the runtime on a port it chose
 * and, from the moment of the spawn, hammers that port from several concurrent loops (API
 * without a token, the health page, a POST with a broken JSON body, raw requests over a
 * socket: one the HTTP parser rejects and one with a malformed percent-encoded path) until
 * `/_local/health` says ok. Connection refused before the listener opens is expected. It
 * proves: the process never exited; every answer it gave was 200/400/401/404/503; every
 * error answer under `/api/` carried the error envelope (503 during start-up included); the
 * port was reached while the runtime was still starting; and afterwards the API serves the
 * bootstrap token. Against the old listener (`gateway!.listener` before the gateway existed)
 * the first early request crashed the process.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { api, freePort, spawnRuntime, type Bootstrap } from '../support/runtime-process';

/** One answer the runtime gave (or a failure that is not "connection refused"). */
interface Observation {
  loop: string;
  path: string;
  status?: number;
  body?: string;
  error?: string;
  /** Whether it arrived before `/_local/health` first said ok. */
  beforeReady: boolean;
}

const ALLOWED = [200, 400, 401, 404, 503];
const ENVELOPE_KEYS = ['code', 'message', 'meta', 'reference', 'status', 'type'];

/** The error code of a failed connection attempt (fetch wraps it in `cause`). */
function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? (error as { code?: string }).code ?? cause?.message ?? String(error);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends raw bytes and resolves with the status of the answer's status line (undefined if none). */
function rawRequest(port: number, request: string): Promise<{ status?: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    // write, not end: a half-closed client has hung up, and Node's server drops its pending answer.
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', (error) => (received ? finish() : reject(error)));
    socket.on('close', () => finish());
    const finish = () => {
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      const split = received.indexOf('\r\n\r\n');
      resolve({ status: match ? Number(match[1]) : undefined, body: split >= 0 ? received.slice(split + 4) : '' });
    };
  });
}

it('answers or refuses every request while starting, never exits, then serves', async () => {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const spawned = spawnRuntime({
    // Limits are not what this test is about: the no-token loops must not meet 429.
    env: { PORT: String(port), CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' },
  });
  let exitedWith: string | undefined;
  spawned.child.once('exit', (code, signal) => (exitedWith = `code ${code}, signal ${signal}`));

  const observations: Observation[] = [];
  let ready = false;
  let refused = 0;
  const deadline = Date.now() + 45_000;
  const keepGoing = () => !ready && exitedWith === undefined && Date.now() < deadline;

  /** One loop: `attempt` until ready, recording answers; refused connections are retried. */
  const loop = async (name: string, path: string, attempt: () => Promise<{ status?: number; body: string }>) => {
    while (keepGoing()) {
      try {
        const answer = await attempt();
        observations.push({ loop: name, path, status: answer.status, body: answer.body, beforeReady: !ready });
        if (name === 'health' && answer.status === 200 && JSON.parse(answer.body).status === 'ok') ready = true;
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ECONNREFUSED') refused++;
        else observations.push({ loop: name, path, error: code, beforeReady: !ready });
        await pause(5);
      }
      await pause(2);
    }
  };
  const viaFetch = (path: string, init?: RequestInit) => async () => {
    const response = await fetch(`${origin}${path}`, init);
    return { status: response.status, body: await response.text() };
  };

  const loops: Promise<void>[] = [];
  for (let i = 0; i < 2; i++) {
    loops.push(
      loop('api', '/api/v1/auths', viaFetch('/api/v1/auths')),
      loop('health', '/_local/health', viaFetch('/_local/health')),
      loop('bad-json', '/api/v1/auths/secret', viaFetch('/api/v1/auths/secret', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"comments": "unterminated' })),
      loop('raw-unparseable', '(none)', () => rawRequest(port, 'BLAH /api/v1/auths HTTP/1.1\r\nHost: localhost\r\nContent-Length: nope\r\n\r\n')),
      loop('raw-bad-path', '/api/v1/auths/%E0%A4%A', () => rawRequest(port, 'GET /api/v1/auths/%E0%A4%A?x=%% HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')),
    );
  }
  await Promise.all(loops);

  try {
    const describe = (o: Observation) => `${o.loop} ${o.path} → ${o.error ?? o.status} ${o.body?.slice(0, 200) ?? ''}`;
    expect(exitedWith, `the runtime exited while starting (${exitedWith}):\n${spawned.output()}`).toBeUndefined();
    expect(ready, `/_local/health never said ok within 45 s:\n${spawned.output()}`).toBe(true);

    const failures = observations.filter((o) => o.error !== undefined);
    expect(failures.map(describe), 'requests failed other than by connection refused').toEqual([]);
    const unexpected = observations.filter((o) => !ALLOWED.includes(o.status!));
    expect(unexpected.map(describe), `statuses outside ${ALLOWED.join('/')}`).toEqual([]);

    const withoutEnvelope = observations.filter((o) => {
      if (!o.path.startsWith('/api/') || o.status! < 400 || !o.body) return false;
      try {
        const error = JSON.parse(o.body).error;
        return Object.keys(error).sort().join() !== ENVELOPE_KEYS.join() || error.status !== o.status;
      } catch {
        return true;
      }
    });
    expect(withoutEnvelope.map(describe), '/api/ answers without the error envelope').toEqual([]);

    // The test only proves something if it reached the runtime while it was still starting.
    const starting = observations.filter((o) => o.beforeReady && o.loop === 'health' && o.status === 503);
    expect(starting.length, 'no request reached the runtime before it was ready').toBeGreaterThan(0);
    console.log(
      `start-up: ${refused} connections refused, ${observations.length} answers (${observations.filter((o) => o.beforeReady).length} before ready), statuses ${[...new Set(observations.map((o) => o.status))].sort().join('/')}`,
    );

    const bootstrap = JSON.parse(readFileSync(join(spawned.dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
    const list = await api(`${origin}/api/v1/auths`, { token: bootstrap.tokens.live_secret });
    expect(list.status, list.text).toBe(200);
    expect(exitedWith).toBeUndefined();
  } finally {
    if (exitedWith === undefined) spawned.child.kill('SIGTERM');
    await spawned.exited;
  }
  expect(exitedWith).toBe('code 0, signal null');
});
