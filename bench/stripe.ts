/**
 * A live checkout through Stripe (the stand-in, infra/local/stripe-standin/) next to the same
 * checkout through the built-in test gateway, on one local runtime: per checkout step (cart,
 * pay, order read) the p50/p99 time, the DynamoDB calls and sequential round trips the step's
 * handler made (the `x-cartwheel-dynamodb` header, as bench:checkout reads it), and the calls the
 * Stripe adapter sent per checkout. The stand-in answers at once, so the time is the
 * platform's own plus a loopback HTTP round trip per Stripe call. Not a test: it prints figures.
 *
 *   npm run bench:stripe [-- --checkouts 200]
 */
import { parseArgs } from 'node:util';
import { startStripeStandin } from '../infra/local/stripe-standin/server';
import { COST_HEADER, parseCost } from '../shared/store/request-cost';
import { api, startRuntime } from '../test/support/runtime-process';

const { values } = parseArgs({ options: { checkouts: { type: 'string', default: '200' } } });
const checkouts = Number(values.checkouts);

const standin = await startStripeStandin();
const runtime = await startRuntime({ env: { CARTWHEEL_STRIPE_API_BASE: standin.url, CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000' } });
const base = runtime.bootstrap.api_url;
const tokens = { live: runtime.bootstrap.tokens.live_secret, test: runtime.bootstrap.tokens.test_secret };
const customer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const mean = (samples: number[]) => samples.reduce((sum, value) => sum + value, 0) / Math.max(1, samples.length);

type Step = 'cart' | 'pay' | 'order read';
interface StepFigures { ms: number[]; calls: number[]; rounds: number[] }

/** One timed, costed request that must answer `expected`. */
async function step(figures: StepFigures, url: string, token: string, body?: unknown, expected = body === undefined ? 200 : 201) {
  const started = performance.now();
  const reply = await api(url, { method: body === undefined ? 'GET' : 'POST', token, ...(body === undefined ? {} : { body }) });
  figures.ms.push(performance.now() - started);
  if (reply.status !== expected) throw new Error(`${url}: ${reply.status} ${reply.text}`);
  const cost = parseCost(reply.headers.get(COST_HEADER));
  figures.calls.push(cost?.calls ?? 0);
  figures.rounds.push(cost?.rounds ?? 0);
  return reply;
}

/** `checkouts` checkouts in `mode` with `method`; answers per-step figures and Stripe calls per checkout. */
async function run(mode: 'live' | 'test', method: unknown): Promise<{ steps: Record<Step, StepFigures>; stripeCalls: number }> {
  const token = tokens[mode];
  const steps: Record<Step, StepFigures> = { cart: { ms: [], calls: [], rounds: [] }, pay: { ms: [], calls: [], rounds: [] }, 'order read': { ms: [], calls: [], rounds: [] } };
  const before = standin.requests.length;
  for (let n = 0; n < checkouts; n++) {
    const cart = await step(steps.cart, `${base}carts`, token, { items: [{ product_id: 'ebook', quantity: 1 }], customer });
    const paid = await step(steps.pay, `${base}carts/${cart.body.cart_id}/payments`, token, { payment_method: method });
    await step(steps['order read'], `${paid.body.url}?expand=order`, token);
  }
  return { steps, stripeCalls: (standin.requests.length - before) / checkouts };
}

try {
  for (const token of [tokens.live, tokens.test]) {
    const product = await api(`${base}products`, { method: 'POST', token, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
    if (product.status !== 201) throw new Error(product.text);
  }
  const settings = await api(`${base}settings/payment`, { method: 'POST', token: tokens.live, body: { duplicate_payment_timeout: 0, stripe_live: { publishable_key: 'pk_live_bench', secret_key: 'sk_live_bench', webhook_secret: 'whsec_bench' } } });
  if (settings.status !== 200) throw new Error(settings.text);
  const builtIn = await run('test', { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } });
  const stripe = await run('live', { type: 'credit_card', data: { token: 'pm_card_visa' } });
  if (standin.invalid.length) throw new Error(`Invalid Stripe requests: ${standin.invalid.join('; ')}`);
  console.log(`${checkouts} checkouts each, one at a time (times are the client's; calls and rounds are DynamoDB's, from ${COST_HEADER})`);
  console.log(`${'step'.padEnd(12)} ${'gateway'.padEnd(10)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'calls'.padStart(6)} ${'rounds'.padStart(7)}`);
  for (const name of ['cart', 'pay', 'order read'] as const) {
    for (const [label, result] of [['built-in', builtIn], ['stripe', stripe]] as const) {
      const figures = result.steps[name];
      console.log(`${name.padEnd(12)} ${label.padEnd(10)} ${percentile(figures.ms, 50).toFixed(1).padStart(8)} ${percentile(figures.ms, 99).toFixed(1).padStart(8)} ${mean(figures.calls).toFixed(1).padStart(6)} ${mean(figures.rounds).toFixed(1).padStart(7)}`);
    }
  }
  console.log(`Stripe API calls per checkout: built-in ${builtIn.stripeCalls.toFixed(1)}, stripe ${stripe.stripeCalls.toFixed(1)} (one PaymentIntent create-and-confirm; every one valid against Stripe's OpenAPI description)`);
} finally {
  await runtime.stop();
  await standin.close();
}
