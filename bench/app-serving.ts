/**
 * Hosted-app serving on the local runtime (hosting.md §11) against a bare node:http static
 * server holding the same files in memory: a 50 KB hashed asset and `index.html`, requested on
 * the app host (`Host: <account_id>.apps.localhost:<port>`). The app is created, uploaded and
 * deployed through the management API, as a merchant would.
 *
 *   npm run bench:app-serving [-- --requests 3000 --seconds 5 --concurrency 8]
 *
 * Prints p50/p90/p99 latency (sequential requests) and requests per second (concurrent) for
 * both servers and both files, and the ratios.
 */
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { api, startRuntime } from '../test/support/runtime-process';
import { zipFiles } from '../test/support/zip-writer';
import { sequentialLatency, throughput, type LatencyFigures } from './load';

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

// A 50 KB script of printable text (what a bundler emits), and a small index page.
const asset = Buffer.from(`/* bench */\n${randomBytes(40_000).toString('base64').match(/.{1,100}/g)!.join('\n')}\n`.slice(0, 50 * 1024));
const index = Buffer.from(`<!doctype html><html><head><title>Bench</title><script src="assets/index-Bx7Tk9Qa.js"></script></head><body>${'<p>shop</p>'.repeat(100)}</body></html>`);
const files = { 'index.html': index, 'assets/index-Bx7Tk9Qa.js': asset };

const dataDir = mkdtempSync(join(tmpdir(), 'cartwheel-bench-'));
const runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000' } });
const base = runtime.bootstrap.api_url;
const token = runtime.bootstrap.tokens.live_secret;
let bare: ChildProcess | undefined;
try {
  const app = await api(`${base}apps`, { method: 'POST', token, body: { name: 'Bench', alias: 'shop' } });
  if (app.status !== 201) throw new Error(`POST /apps: ${app.status} ${app.text}`);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(zipFiles(files))], { type: 'application/zip' }), 'bench.zip');
  const uploaded = await fetch(`${base}apps/${app.body.app_id}/versions`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  const version = (await uploaded.json()) as { version_id: string; status: string };
  if (uploaded.status !== 201 || version.status !== 'ready') throw new Error(`Upload: ${uploaded.status} ${JSON.stringify(version)}`);
  const deployed = await api(`${base}apps/${app.body.app_id}/deploy`, { method: 'POST', token, body: { version_id: version.version_id } });
  if (deployed.status !== 201) throw new Error(`Deploy: ${deployed.status} ${deployed.text}`);

  bare = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'bare-static-server.ts')], {
    env: {
      ...process.env,
      BARE_FILES: JSON.stringify({
        '/shop/': { type: 'text/html; charset=utf-8', base64: index.toString('base64') },
        '/shop/assets/index-Bx7Tk9Qa.js': { type: 'text/javascript; charset=utf-8', base64: asset.toString('base64') },
      }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const barePort = await new Promise<number>((resolvePort) => {
    bare!.stdout!.on('data', (chunk: Buffer) => {
      const match = /bare listening on (\d+)/.exec(chunk.toString());
      if (match) resolvePort(Number(match[1]));
    });
  });

  const appHeaders = { Host: `${runtime.bootstrap.account_id.toLowerCase()}.apps.localhost:${runtime.port}` };
  const row = (name: string, l: LatencyFigures, rps: number) =>
    `  ${name.padEnd(16)} p50 ${l.p50.toFixed(3)} ms   p90 ${l.p90.toFixed(3)} ms   p99 ${l.p99.toFixed(3)} ms   ${rps.toFixed(0)} req/s`;
  for (const [label, path, bytes] of [
    ['50 KB asset', '/shop/assets/index-Bx7Tk9Qa.js', asset.length],
    ['index.html', '/shop/', index.length],
  ] as const) {
    const platformUrl = `http://127.0.0.1:${runtime.port}${path}`;
    const bareUrl = `http://127.0.0.1:${barePort}${path}`;
    // Warm both (JIT, keep-alive sockets, the runtime's file cache).
    await sequentialLatency(platformUrl, appHeaders, 300);
    await sequentialLatency(bareUrl, {}, 300);
    const platform = await sequentialLatency(platformUrl, appHeaders, requests);
    const baseline = await sequentialLatency(bareUrl, {}, requests);
    const platformRps = await throughput(platformUrl, appHeaders, concurrency, seconds);
    const baselineRps = await throughput(bareUrl, {}, concurrency, seconds);
    console.log(`${label} (${bytes} bytes, GET ${path} on the app host), ${requests} sequential, ${concurrency} concurrent for ${seconds}s`);
    console.log(row('local runtime', platform, platformRps));
    console.log(row('bare node:http', baseline, baselineRps));
    console.log(`  ratio p50: ${(platform.p50 / baseline.p50).toFixed(2)}x   p99: ${(platform.p99 / baseline.p99).toFixed(2)}x   throughput: ${(baselineRps / platformRps).toFixed(2)}x fewer req/s`);
  }
} finally {
  bare?.kill('SIGTERM');
  await runtime.stop('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
