/**
 * The client side of the checkout bench, against one local runtime: a shopper's checkout
 * (limited token → cart → pay → order read, as a storefront does it) and an authenticated
 * catalogue read, each step timed and costed. A step's DynamoDB cost comes from the
 * `x-cartwheel-dynamodb` header when the runtime sends one, and on request from the
 * emulator's `/_local/metrics` totals around the step (runtimes older than the header).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { COST_HEADER, parseCost } from '../shared/store/request-cost';
import { api, type RuntimeProcess } from '../test/support/runtime-process';
import { httpApi } from './http-client';

/** Which HTTP client the shoppers use (see http-client.ts). */
export type ClientName = 'http' | 'fetch';

/** The steps of one checkout, in order. */
export const STEPS = ['token', 'cart', 'pay', 'order read'] as const;
export type StepName = (typeof STEPS)[number];

/** What the header said a request cost. */
export type HeaderCost = NonNullable<ReturnType<typeof parseCost>>;

/** One timed request. */
export interface Sample {
  ms: number;
  /** From the response header; undefined when the runtime sends none. */
  cost?: HeaderCost;
  /** Emulator calls by operation during the request (only when asked for). */
  emulatorCalls?: Record<string, number>;
}

/** One checkout: its whole time and each step's. */
export interface CheckoutSample {
  ms: number;
  steps: Record<StepName, Sample>;
}

/** How many catalogue products `setUp` creates, and the page size of a catalogue read. */
export const CATALOGUE_SIZE = 50;

const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } };
const customer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };
/**
 * The pause before a counted step: the previous step's background work finishes, and every
 * one-second cache of the process (token records, rate-limit leases, account settings)
 * lapses, so the step takes its cold path every time. With 300 ms the caches were
 * half-lapsed and the same step cost 3 calls one time and 5 the next.
 */
export const QUIET_MS = 1100;

type Reply = Awaited<ReturnType<typeof api>>;

/** One runtime as shoppers and the shop owner see it. */
export class Shop {
  private readonly base: string;
  private readonly account: string;
  private readonly secret: string;
  private readonly api: typeof api;

  constructor(
    /** `baseline` or `current`, for messages. */
    readonly name: string,
    readonly runtime: RuntimeProcess,
    client: ClientName = 'http',
  ) {
    this.api = client === 'fetch' ? api : httpApi;
    this.base = runtime.bootstrap.api_url;
    this.account = runtime.bootstrap.account_id;
    this.secret = runtime.bootstrap.tokens.test_secret;
  }

  /** No duplicate-payment wait (every bench shopper buys the same), the bench e-book, and the catalogue. */
  async setUp(): Promise<void> {
    const settings = await this.api(`${this.base}settings/payment`, { method: 'POST', token: this.secret, body: { duplicate_payment_timeout: 0 } });
    expect(settings, 200, 'payment settings');
    const ebook = { product_id: 'bench-ebook', name: 'Bench e-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] };
    expect(await this.api(`${this.base}products`, { method: 'POST', token: this.secret, body: ebook }), 201, 'bench product');
    for (let from = 1; from < CATALOGUE_SIZE; from += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, CATALOGUE_SIZE - from) }, async (_, k) => {
          const i = from + k;
          const body = { name: `Catalogue product ${i}`, type: i % 3 === 0 ? 'physical' : 'digital', headline: `Product ${i}`, prices: [{ currency: 'USD', price: 10 + i }] };
          expect(await this.api(`${this.base}products`, { method: 'POST', token: this.secret, body }), 201, `catalogue product ${i}`);
        }),
      );
    }
  }

  /** One shopper's checkout; with `countByEmulator`, each step waits `QUIET_MS` first and gets the emulator's count too. */
  async checkout(countByEmulator = false): Promise<CheckoutSample> {
    const started = performance.now();
    const steps = {} as Record<StepName, Sample>;
    const step = async (name: StepName, send: () => Promise<Reply>, status: number): Promise<Reply> => {
      const { reply, sample } = await this.timed(send, countByEmulator);
      expect(reply, status, name);
      steps[name] = sample;
      return reply;
    };
    const token = (await step('token', () => this.api(`${this.base}auths/limited?account_id=${this.account}&test=true`, { method: 'POST', token: this.secret }), 201)).body.token;
    const cart = await step('cart', () => this.api(`${this.base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'bench-ebook', quantity: 2 }], customer } }), 201);
    const paid = await step('pay', () => this.api(`${this.base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token, body: card }), 201);
    const order = await step('order read', () => this.api(`${paid.body.url}?expand=order`, { token }), 200);
    if (!order.body.order?.order_id) throw new Error(`${this.name}: order read: no expanded order in ${order.text.slice(0, 300)}`);
    return { ms: performance.now() - started, steps };
  }

  /** `GET products?limit=50` with the secret token: the whole catalogue, one page. */
  async catalogueRead(countByEmulator = false): Promise<Sample> {
    const { reply, sample } = await this.timed(() => this.api(`${this.base}products?limit=${CATALOGUE_SIZE}`, { token: this.secret }), countByEmulator);
    expect(reply, 200, 'catalogue read');
    if (reply.body.data?.length !== CATALOGUE_SIZE) throw new Error(`${this.name}: catalogue read: ${reply.body.data?.length} products, expected ${CATALOGUE_SIZE}`);
    return sample;
  }

  /** DynamoDB calls the emulator received so far, by operation. */
  async emulatorCalls(): Promise<Record<string, number>> {
    return (await this.api(`${this.runtime.url}/_local/metrics`)).body.dynamodb_calls;
  }

  private async timed(send: () => Promise<Reply>, countByEmulator: boolean): Promise<{ reply: Reply; sample: Sample }> {
    let before: Record<string, number> | undefined;
    if (countByEmulator) {
      await sleep(QUIET_MS);
      before = await this.emulatorCalls();
    }
    const started = performance.now();
    const reply = await send();
    const sample: Sample = { ms: performance.now() - started, cost: parseCost(reply.headers.get(COST_HEADER)) };
    if (before) sample.emulatorCalls = difference(await this.emulatorCalls(), before);
    return { reply, sample };
  }
}

/** Calls by operation in `after` and not in `before` (operations with none left out). */
function difference(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([op, n]) => [op, n - (before[op] ?? 0)]).filter(([, n]) => (n as number) > 0));
}

function expect(reply: Reply, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`${what}: status ${reply.status}, expected ${status}: ${reply.text.slice(0, 300)}`);
}

/** Runs `count` checkouts with `shoppers` of them in flight at a time; resolves with each checkout and the wall time. */
export async function concurrentCheckouts(shop: Shop, count: number, shoppers: number): Promise<{ samples: CheckoutSample[]; ms: number }> {
  const samples: CheckoutSample[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(shoppers, count) }, async () => {
      while (next < count) {
        next++;
        samples.push(await shop.checkout());
      }
    }),
  );
  return { samples, ms: performance.now() - started };
}
