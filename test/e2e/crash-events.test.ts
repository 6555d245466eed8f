/**
 * No notification is lost to a crash (events.md §6: at least once): a burst of 500 product
 * creations, each an occurrence a subscription wants, with the runtime killed (`kill -9`) in the
 * middle and restarted on the same data. Afterwards every product that exists has its
 * notification at the receiver, and the duplicates (at-least-once deliveries) are counted.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const BURST = 500;
const PARALLEL = 8;
const SETTLE_MS = 60_000;
const env = { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let receiver: Receiver;
let receiverUrl: string;
/** product_id → deliveries received. */
const deliveries = new Map<string, number>();

beforeAll(async () => {
  receiver = await startReceiver(undefined, (request) => {
    const productId = JSON.parse(request.body.toString('utf8')).data.product_id as string;
    deliveries.set(productId, (deliveries.get(productId) ?? 0) + 1);
  });
  receiverUrl = `${receiver.url}/hook`;
});

afterAll(async () => {
  await receiver.close();
});

/** Every product id the runtime holds (an offset list, followed to its end). */
async function productIds(base: string, token: string): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await api(`${base}products?limit=100&offset=${offset}`, { token });
    if (page.status !== 200) throw new Error(`products answered ${page.status}`);
    ids.push(...page.body.data.map((product: { product_id: string }) => product.product_id));
    if (page.body.data.length < 100) return ids;
  }
}

it('delivers every event of a burst across a kill -9 and a restart, at least once', async () => {
  let runtime: RuntimeProcess = await startRuntime({ env });
  const { api_url: base, tokens } = runtime.bootstrap;
  const secret = tokens.test_secret;
  try {
    const subscription = await api(`${base}event_subscriptions`, { method: 'POST', token: secret, body: { event_type: 'product:created', method: 'http', destination: receiverUrl } });
    expect(subscription.status, subscription.text).toBe(201);

    let next = 0;
    let created = 0;
    const worker = async () => {
      while (next < BURST) {
        const n = next++;
        for (;;) {
          try {
            const answer = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: `burst-${n}`, name: `Burst ${n}`, type: 'digital', prices: [{ currency: 'USD', price: 1 }] } });
            // 409: a create the kill interrupted after its commit, sent again.
            if (answer.status === 201 || answer.status === 409) created++;
            break;
          } catch {
            await pause(20); // the runtime is down or restarting
          }
        }
      }
    };
    const workers = Array.from({ length: PARALLEL }, () => worker());
    while (created < BURST / 3) await pause(10);
    await runtime.kill9();
    runtime = await runtime.restart();
    await Promise.all(workers);

    const expected = await productIds(base, secret);
    expect(expected.length).toBe(BURST);
    // Move the clock: every sweep hands over what the killed process left.
    const settleBy = Date.now() + SETTLE_MS;
    let missing = expected.filter((id) => !deliveries.has(id));
    while (missing.length && Date.now() < settleBy) {
      await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 120 } });
      await pause(500);
      missing = expected.filter((id) => !deliveries.has(id));
    }
    const duplicates = [...deliveries.values()].reduce((sum, count) => sum + count - 1, 0);
    console.log(`crash-events: ${expected.length} events, ${deliveries.size} delivered, ${duplicates} duplicate deliveries, ${missing.length} missing`);
    expect(missing).toEqual([]);
  } finally {
    await runtime.stop('SIGTERM').catch(() => undefined);
  }
}, 180_000);
