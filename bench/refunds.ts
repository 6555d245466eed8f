/**
 * Refunds on the local runtime: `--refunds` sequential refunds, each of its own paid order (the
 * common case: one refund per sale), half by items then the rest by amount, and a burst of
 * `--burst` concurrent refunds of 1.00 against one payment (the contended case: every refund
 * of the sale serializes on the payment's ledger). Prints p50/p99 of the refund call as the
 * client sees it. Not a test: it prints figures.
 *
 *   npm run bench:refunds [-- --refunds 200 --burst 30]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, startRuntime } from '../test/support/runtime-process';

const { values } = parseArgs({ options: { refunds: { type: 'string', default: '200' }, burst: { type: 'string', default: '30' } } });
const total = Number(values.refunds);
const burst = Number(values.burst);

const dataDir = mkdtempSync(join(tmpdir(), 'cartwheel-bench-refunds-'));
const runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000' } });
const base = runtime.bootstrap.api_url;
const secret = runtime.bootstrap.tokens.test_secret;
await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } });
await api(`${base}settings/tax`, { method: 'POST', token: secret, body: { rules: [{ country: 'US', state_prov: null, rate: 0.1 }] } });
const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
if (product.status !== 201) throw new Error(product.text);

const card = { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } };
const customer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US' } };

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const figures = (label: string, samples: number[]) =>
  console.log(`${label.padEnd(34)} n=${String(samples.length).padStart(4)}  p50 ${percentile(samples, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(samples, 99).toFixed(1).padStart(6)} ms`);

/** One timed refund call; throws unless it answers `expected`. */
async function timed(path: string, body: unknown, expected = 201): Promise<number> {
  const started = performance.now();
  const answer = await api(`${base}${path}`, { method: 'POST', token: secret, body });
  const ms = performance.now() - started;
  if (answer.status !== expected) throw new Error(`${path}: ${answer.status} ${answer.text}`);
  return ms;
}

try {
  const byItems: number[] = [];
  const byAmount: number[] = [];
  for (let n = 0; n < total; n++) {
    const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: 'ebook', quantity: 2 }], customer } });
    const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order`, { method: 'POST', token: secret, body: { payment_method: card } });
    if (paid.status !== 201) throw new Error(paid.text);
    const orderId = paid.body.order.order_id;
    byItems.push(await timed(`orders/${orderId}/refunds`, { items: [{ item_id: 'ebook', quantity: 1 }] }));
    byAmount.push(await timed(`orders/${orderId}/refunds`, { total: 20.9 }));
  }
  figures('refund by items (uncontended)', byItems);
  figures('refund by amount (final)', byAmount);
  figures('refund, both', [...byItems, ...byAmount]);

  const payment = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total: burst / 3, customer, payment_method: card } });
  if (payment.status !== 201) throw new Error(payment.text);
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: burst }, async () => {
    const begun = performance.now();
    const answer = await api(`${base}payments/${payment.body.payment_id}/refunds`, { method: 'POST', token: secret, body: { total: 1 } });
    return { status: answer.status, ms: performance.now() - begun };
  }));
  const wall = performance.now() - started;
  const succeeded = answers.filter((answer) => answer.status === 201);
  figures(`burst: ${burst} at once, 201s`, succeeded.map((answer) => answer.ms));
  figures(`burst: ${burst} at once, 422s`, answers.filter((answer) => answer.status === 422).map((answer) => answer.ms));
  console.log(`burst: ${succeeded.length} refunded of ${burst} against ${(burst / 3).toFixed(2)} USD in ${wall.toFixed(0)} ms wall`);
} finally {
  await runtime.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
