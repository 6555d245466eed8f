/**
 * Full checkout on the local runtime: limited token → cart → pay → order read, as a shopper's
 * browser does it. Prints checkouts per second (sequential and concurrent) and the DynamoDB
 * calls one checkout costs, counted by the local emulator (`/_local/metrics`).
 *
 *   npm run bench:checkout [-- --checkouts 100 --concurrency 8]
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, startRuntime } from '../test/support/runtime-process';

const { values } = parseArgs({ options: { checkouts: { type: 'string', default: '100' }, concurrency: { type: 'string', default: '8' } } });
const checkouts = Number(values.checkouts);
const concurrency = Number(values.concurrency);

const dataDir = mkdtempSync(join(tmpdir(), 'cartwheel-bench-checkout-'));
const runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000' } });
const base = runtime.bootstrap.api_url;
const account = runtime.bootstrap.account_id;
const secret = runtime.bootstrap.tokens.test_secret;
const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } };
const customer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };

async function metrics(): Promise<Record<string, number>> {
  return (await api(`${runtime.url}/_local/metrics`)).body.dynamodb_calls;
}

/** Milliseconds each step took, per step, while `timing` is on (the sequential run). */
const steps: Record<string, number[]> = { token: [], cart: [], pay: [], order: [] };
let timing = false;

async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await run();
  if (timing) steps[name]!.push(performance.now() - started);
  return result;
}

/** One shopper's checkout; returns the HTTP requests it made. */
async function checkout(): Promise<number> {
  const token = (await step('token', () => api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret }))).body.token;
  const cart = await step('cart', () => api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'bench-ebook', quantity: 2 }], customer } }));
  if (cart.status !== 201) throw new Error(`cart: ${cart.status} ${cart.text}`);
  const paid = await step('pay', () => api(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token, body: card }));
  if (paid.status !== 201) throw new Error(`pay: ${paid.status} ${paid.text}`);
  const order = await step('order', () => api(`${paid.body.url}?expand=order`, { token }));
  if (order.status !== 200 || !order.body.order?.order_id) throw new Error(`order: ${order.status}`);
  return 4;
}

const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

try {
  await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } });
  await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'bench-ebook', name: 'Bench e-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
  for (let i = 0; i < 5; i++) await checkout(); // warm-up

  // DynamoDB calls of one checkout, by operation (sequential, nothing else running).
  const before = await metrics();
  await checkout();
  const after = await metrics();
  const perCheckout = Object.fromEntries(Object.entries(after).map(([op, n]) => [op, n - (before[op] ?? 0)]).filter(([, n]) => (n as number) > 0));
  const totalCalls = Object.values(perCheckout).reduce((a, b) => (a as number) + (b as number), 0);

  let start = performance.now();
  timing = true;
  for (let i = 0; i < Math.min(checkouts, 50); i++) await checkout();
  timing = false;
  const sequentialRate = Math.min(checkouts, 50) / ((performance.now() - start) / 1000);

  start = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < checkouts) await checkout();
  }));
  const concurrentRate = checkouts / ((performance.now() - start) / 1000);

  console.log('Full checkout (limited token, cart, pay, order read) on the local runtime');
  console.log(`  sequential:             ${sequentialRate.toFixed(1)} checkouts/s (${(1000 / sequentialRate).toFixed(1)} ms each)`);
  console.log(`  ${concurrency} concurrent shoppers:  ${concurrentRate.toFixed(1)} checkouts/s`);
  console.log(`  p50 per step (sequential): ${Object.entries(steps).map(([name, values]) => `${name} ${p50(values).toFixed(1)} ms`).join(', ')}`);
  console.log(`  DynamoDB calls per checkout: ${totalCalls} ${JSON.stringify(perCheckout)}`);
} finally {
  await runtime.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
