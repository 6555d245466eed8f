/**
 * License requests on the local runtime: `--orders` cart payments, one at a time, of a product
 * whose remote license service is a local script that answers at once. Prints p50/p99 of the
 * time from the payment's commit (its 201 reaching the client, an upper bound of the commit) to
 * the code stored on the order item (seen by polling the order every 2 ms), and the payment
 * time of an unlicensed, a list-licensed (code taken inside the payment) and a remote-licensed
 * product side by side. Not a test: it prints figures.
 *
 *   npm run bench:licenses [-- --orders 200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, startRuntime } from '../test/support/runtime-process';

const { values } = parseArgs({ options: { orders: { type: 'string', default: '200' } } });
const total = Number(values.orders);

let issued = 0;
const script = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end(`KEY-${++issued}`));
});
await new Promise<void>((resolve) => script.listen(0, '127.0.0.1', () => resolve()));
const scriptUrl = `http://127.0.0.1:${(script.address() as AddressInfo).port}/issue`;

const dataDir = mkdtempSync(join(tmpdir(), 'cartwheel-bench-licenses-'));
const runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000' } });
const base = runtime.bootstrap.api_url;
const secret = runtime.bootstrap.tokens.test_secret;
await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } });
const remote = await api(`${base}license_services`, { method: 'POST', token: secret, body: { name: 'Remote', type: 'remote_url', configuration: { url: scriptUrl } } });
const list = await api(`${base}license_services`, { method: 'POST', token: secret, body: { name: 'List', type: 'list', configuration: { licenses: Array.from({ length: total + 10 }, (_, n) => `L-${n}`) } } });
if (remote.status !== 201 || list.status !== 201) throw new Error(`${remote.text} ${list.text}`);
for (const [productId, serviceId] of [['plain', null], ['remote', remote.body.license_service_id], ['list', list.body.license_service_id]] as const) {
  const created = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: productId, name: productId, type: 'digital', prices: [{ currency: 'USD', price: 5 }], license_service_id: serviceId } });
  if (created.status !== 201) throw new Error(created.text);
}

const card = { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } };
const customer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US' } };

/** Pays a one-item cart; answers the order id and how long the payment call took (ms). */
async function pay(productId: string): Promise<{ orderId: string; payMs: number; pending: boolean }> {
  const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: productId }], customer } });
  if (cart.status !== 201) throw new Error(cart.text);
  const started = performance.now();
  const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order`, { method: 'POST', token: secret, body: { payment_method: card } });
  if (paid.status !== 201) throw new Error(paid.text);
  return { orderId: paid.body.order.order_id, payMs: performance.now() - started, pending: paid.body.order.items[0].license_pending };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

const payTimes: Record<string, number[]> = { plain: [], list: [], remote: [] };
const toCode: number[] = [];
for (let n = 0; n < total; n++) {
  for (const productId of ['plain', 'list'] as const) payTimes[productId]!.push((await pay(productId)).payMs);
  const { orderId, payMs } = await pay('remote');
  payTimes.remote!.push(payMs);
  const committed = performance.now();
  for (;;) {
    const order = await api(`${base}orders/${orderId}`, { token: secret });
    if (order.body.items[0].license_pending === false) break;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  toCode.push(performance.now() - committed);
  if ((n + 1) % 50 === 0) console.log(`  ${n + 1}/${total} orders`);
}

console.log(`\nRemote license script answering at once, ${total} orders one at a time:`);
console.log(`  payment commit → code on the item: p50 ${percentile(toCode, 50).toFixed(1)} ms, p99 ${percentile(toCode, 99).toFixed(1)} ms`);
console.log('Payment call (cart → order), p50:');
for (const [productId, times] of Object.entries(payTimes)) {
  console.log(`  ${productId.padEnd(7)} ${percentile(times, 50).toFixed(1)} ms (ratio to unlicensed ${(percentile(times, 50) / percentile(payTimes.plain!, 50)).toFixed(2)})`);
}

await runtime.stop();
script.close();
rmSync(dataDir, { recursive: true, force: true });
