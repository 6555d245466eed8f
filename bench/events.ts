/**
 * Event notifications on the local runtime: `--events` direct payments (each commits a
 * `payment:completed` occurrence a subscription wants) made by `--concurrency` clients, delivered
 * to a local receiver. Prints events delivered per second, and p50/p99 of the time from the
 * payment's commit (the moment its 201 reached the client, an upper bound of the commit) to
 * receipt at the receiver. Not a test: it prints figures.
 *
 *   npm run bench:events [-- --events 5000 --concurrency 8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, startRuntime } from '../test/support/runtime-process';

const { values } = parseArgs({ options: { events: { type: 'string', default: '5000' }, concurrency: { type: 'string', default: '8' } } });
const total = Number(values.events);
const concurrency = Number(values.concurrency);

const receivedAt = new Map<string, number>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const paymentId = JSON.parse(Buffer.concat(chunks).toString('utf8')).data.payment_id as string;
    if (!receivedAt.has(paymentId)) receivedAt.set(paymentId, performance.now());
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
const destination = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dataDir = mkdtempSync(join(tmpdir(), 'cartwheel-bench-events-'));
const runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000' } });
const base = runtime.bootstrap.api_url;
const secret = runtime.bootstrap.tokens.test_secret;
await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } });
const subscription = await api(`${base}event_subscriptions`, { method: 'POST', token: secret, body: { event_type: 'payment:completed', method: 'http', destination } });
if (subscription.status !== 201) throw new Error(subscription.text);

const body = {
  currency: 'USD',
  total: 10,
  customer: { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } },
  payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } },
};
const committedAt = new Map<string, number>();
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total) {
      next++;
      const paid = await api(`${base}payments`, { method: 'POST', token: secret, body });
      if (paid.status !== 201) throw new Error(`payment answered ${paid.status}: ${paid.text}`);
      committedAt.set(paid.body.payment_id, performance.now());
    }
  }),
);
const paidIn = performance.now() - started;
const deadline = performance.now() + 120_000;
while (receivedAt.size < committedAt.size && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
const deliveredIn = performance.now() - started;

const latencies = [...committedAt].flatMap(([id, at]) => (receivedAt.has(id) ? [Math.max(0, receivedAt.get(id)! - at)] : [])).sort((a, b) => a - b);
const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
console.log(`Event notifications on the local runtime (${total} direct payments, ${concurrency} clients, payment:completed to a local receiver)`);
console.log(`  payments committed: ${committedAt.size} in ${(paidIn / 1000).toFixed(1)} s (${((committedAt.size / paidIn) * 1000).toFixed(1)}/s)`);
console.log(`  events delivered:   ${receivedAt.size} in ${(deliveredIn / 1000).toFixed(1)} s (${((receivedAt.size / deliveredIn) * 1000).toFixed(1)}/s)`);
console.log(`  commit → receipt:   p50 ${percentile(50).toFixed(0)} ms, p99 ${percentile(99).toFixed(0)} ms`);

await runtime.stop('SIGTERM');
receiver.close();
rmSync(dataDir, { recursive: true, force: true });
