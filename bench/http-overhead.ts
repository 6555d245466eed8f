/**
 * Per-request overhead of the platform on the local runtime: an authenticated
 * `GET /api/v1/auths/me` against a bare node:http server answering the same bytes.
 *
 *   npm run bench:http [-- --requests 3000 --seconds 5 --concurrency 8]
 *
 * Prints p50/p90/p99 latency (sequential requests) and requests per second (concurrent),
 * for both, and the ratios. Target: overhead under 1 ms at p50.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startRuntime } from '../test/support/runtime-process';
import { sequentialLatency, throughput } from './load';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '8' },
  },
});
const requests = Number(values.requests);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const dataDir = mkdtempSync(join(tmpdir(), 'cartwheel-bench-'));
// A generous rate limit: the bench measures overhead, not the limiter's refusals.
const runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000' } });
const url = `${runtime.bootstrap.api_url}auths/me`;
const headers = { Authorization: `Bearer ${runtime.bootstrap.tokens.live_secret}` };

// Capture the exact bytes the platform answers, for the bare server to repeat.
const sample = await fetch(url, { headers });
const replyHeaders: Record<string, string> = {};
sample.headers.forEach((value, name) => {
  if (!['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) replyHeaders[name] = value;
});
const reply = { status: sample.status, headers: replyHeaders, body: await sample.text() };

const bare: ChildProcess = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'bare-server.ts')], {
  env: { ...process.env, BARE_REPLY: JSON.stringify(reply) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const barePort = await new Promise<number>((resolvePort) => {
  bare.stdout!.on('data', (chunk: Buffer) => {
    const match = /bare listening on (\d+)/.exec(chunk.toString());
    if (match) resolvePort(Number(match[1]));
  });
});
const bareUrl = `http://127.0.0.1:${barePort}/api/v1/auths/me`;

console.log(`Authenticated GET /api/v1/auths/me, ${reply.body.length} bytes, ${requests} sequential requests, ${concurrency} concurrent for ${seconds}s`);
try {
  // Warm both (JIT, keep-alive sockets, emulator caches).
  await sequentialLatency(url, headers, 300);
  await sequentialLatency(bareUrl, headers, 300);
  const platform = await sequentialLatency(url, headers, requests);
  const baseline = await sequentialLatency(bareUrl, headers, requests);
  const platformRps = await throughput(url, headers, concurrency, seconds);
  const baselineRps = await throughput(bareUrl, headers, concurrency, seconds);
  const row = (name: string, l: { p50: number; p90: number; p99: number }, rps: number) =>
    `${name.padEnd(16)} p50 ${l.p50.toFixed(3)} ms   p90 ${l.p90.toFixed(3)} ms   p99 ${l.p99.toFixed(3)} ms   ${rps.toFixed(0)} req/s`;
  console.log(row('local runtime', platform, platformRps));
  console.log(row('bare node:http', baseline, baselineRps));
  console.log(`overhead p50: ${(platform.p50 - baseline.p50).toFixed(3)} ms (target < 1 ms)`);
  console.log(`ratio p50: ${(platform.p50 / baseline.p50).toFixed(2)}x   p99: ${(platform.p99 / baseline.p99).toFixed(2)}x   throughput: ${(baselineRps / platformRps).toFixed(2)}x fewer req/s`);
} finally {
  bare.kill('SIGTERM');
  await runtime.stop('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
