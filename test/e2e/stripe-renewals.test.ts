/**
 * Subscription renewals through the account's own Stripe connection (issues 26 and 27,
 * commerce.md §4.7 "Charges", §10.2), over HTTP against a runtime whose Stripe adapter points at
 * the stand-in (infra/local/stripe-standin/), on the driven clock:
 *
 * - test mode with `stripe_test` renews through Stripe, test mode without it through the
 *   built-in gateway (`fast_forward`);
 * - a renewal charge that took money and then lost the race to a cancellation (immediate, or at
 *   the period end) is still recorded once, and the cancellation stands (the built-in gateway's
 *   charges held after they were made, CARTWHEEL_GATEWAY_CHARGED_HOLD_FILE);
 * - a live subscription bought with a `pm_` token keeps the card at Stripe
 *   (`setup_future_usage: off_session`) and renews off-session with the saved customer and
 *   PaymentMethod, its metadata and `cartwheel-<payment_id>`: one payment and one order per
 *   period; once the card needs authentication, Stripe's `authentication_required` puts it in
 *   grace, and after the retry days it is cancelled with `payment_failure`;
 * - live mode without a Stripe connection fails the renewal with a message saying why.
 *
 * The stand-in checks every request against Stripe's OpenAPI description; none may be invalid.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeStandin, type SeenRequest, type StripeStandin } from '../../infra/local/stripe-standin/server';
import { api, startRuntimeWithSecondAccount, tempDataDir, type RuntimeProcess } from '../support/runtime-process';

const START = '2028-03-10T12:00:00.000Z';
const DAY = 86_400_000;
const LIVE_KEY = 'sk_live_renewAcct1';
const TEST_KEY = 'sk_test_renewAcct1';

let standin: StripeStandin;
let runtime: RuntimeProcess;
let base: string;
let origin: string;
let account: string;
let live: string;
let test: string;
let other: { account_id: string; tokens: { live_secret: string; test_secret: string } };
const holdFile = join(tempDataDir(), '..', `renewal-charged-hold-${process.pid}-${Date.now()}`);

const buyer = (email: string) => ({ name: 'Ada Lee', email, billing_address: { country: 'US', postal_code: '94107' } });
const token = (pm: string) => ({ payment_method: { type: 'credit_card', data: { token: pm } } });
const rawCard = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } };

/** Polls `read` until `done` holds (or 60 s pass), answering the last value. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const by = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined as T);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > by) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)?.slice(0, 800)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function setClock(ms: number): Promise<void> {
  const moved = await api(`${origin}/_local/clock`, { method: 'POST', body: { set: new Date(ms).toISOString() } });
  expect(moved.status, moved.text).toBe(200);
}

/** Buys the `monthly` product with `payment` as a fresh shopper of `secret`'s account and mode; answers the payment, order and subscription. */
async function subscribe(secret: string, email: string, payment: unknown) {
  const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: 'monthly', quantity: 1 }], customer: buyer(email) } });
  expect(cart.status, cart.text).toBe(201);
  const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order`, { method: 'POST', token: secret, body: payment });
  expect(paid.status, paid.text).toBe(201);
  expect(paid.body.status).toBe('completed');
  const id = String(paid.body.order.items[0].subscription).split('/').pop()!;
  return { id, payment: paid.body, order: paid.body.order, subscription: (await api(`${base}subscriptions/${id}`, { token: secret })).body };
}

const readSubscription = async (secret: string, id: string) => (await api(`${base}subscriptions/${id}`, { token: secret })).body;
const paymentsOf = async (secret: string, id: string) => (await api(`${base}subscriptions/${id}/payments?limit=100`, { token: secret })).body.data as any[];
const ordersOf = async (secret: string, id: string) => (await api(`${base}subscriptions/${id}/orders?limit=100`, { token: secret })).body.data as any[];
const ledger = async () => (await api(`${origin}/_local/gateway/charges`)).body.data as Array<{ kind: string; payment_id: string; outcome: string }>;

/** The id of the PaymentIntent Stripe made under `idempotencyKey` (from its webhook-visible search by payment id). */
async function intentOf(idempotencyKey: string): Promise<string> {
  const paymentId = idempotencyKey.replace(/^cartwheel-/, '');
  const found = await api(`${standin.url}/v1/payment_intents/search?query=${encodeURIComponent(`metadata['payment_id']:'${paymentId}'`)}`, { headers: { Authorization: `Bearer ${TEST_KEY}` } });
  expect(found.status, found.text).toBe(200);
  return found.body.data[0].id;
}

/** The PaymentIntent creations the stand-in saw for one subscription's renewals. */
function renewalIntents(subscriptionId: string): SeenRequest[] {
  return standin.requests.filter((request) => request.method === 'POST' && request.path === '/v1/payment_intents' && (request.params.metadata as Record<string, string> | undefined)?.subscription_id === subscriptionId);
}

beforeAll(async () => {
  standin = await startStripeStandin();
  ({ runtime, other } = await startRuntimeWithSecondAccount({
    env: { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_STRIPE_API_BASE: standin.url, CARTWHEEL_STRIPE_TIMEOUT_MS: '2000', CARTWHEEL_GATEWAY_CHARGED_HOLD_FILE: holdFile, CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' },
  }));
  base = runtime.bootstrap.api_url;
  origin = runtime.url;
  account = runtime.bootstrap.account_id;
  live = runtime.bootstrap.tokens.live_secret;
  test = runtime.bootstrap.tokens.test_secret;
  await setClock(Date.parse(START));
  const plan = { billing_interval: 1, billing_interval_unit: 'month', end_at_billing_count: null };
  for (const secret of [live, test, other.tokens.test_secret]) {
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'monthly', name: 'Monthly box', type: 'service', prices: [{ currency: 'USD', price: 10 }], subscription_plan: plan } });
    expect(product.status, product.text).toBe(201);
    const settings = await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } });
    expect(settings.status, settings.text).toBe(200);
  }
  const connected = await api(`${base}settings/payment`, {
    method: 'POST',
    token: live,
    body: {
      stripe_live: { publishable_key: 'pk_live_renewAcct1', secret_key: LIVE_KEY, webhook_secret: 'whsec_renewLive1' },
      stripe_test: { publishable_key: 'pk_test_renewAcct1', secret_key: TEST_KEY, webhook_secret: 'whsec_renewTest1' },
    },
  });
  expect(connected.status, connected.text).toBe(200);
}, 180_000);

afterAll(async () => {
  if (existsSync(holdFile)) rmSync(holdFile);
  expect(await runtime?.stop()).toBe(0);
  await standin?.close();
});

describe('test-mode renewals choose the gateway as a sale does', () => {
  it('renews through Stripe with stripe_test, and through the built-in gateway without it', async () => {
    const viaStripe = await subscribe(test, 'stripe-test@example.test', token('pm_card_visa'));
    const forwarded = await api(`${base}subscriptions/${viaStripe.id}/fast_forward`, { method: 'POST', token: test });
    expect(forwarded.status, forwarded.text).toBe(200);
    expect(forwarded.body).toMatchObject({ billing_count: 2, in_grace_period: false });
    const [, renewal] = await paymentsOf(test, viaStripe.id);
    expect(renewal).toMatchObject({ status: 'completed', total: 10 });
    const [intent, ...more] = renewalIntents(viaStripe.id);
    expect(more).toEqual([]);
    expect(intent!.account).toBe(TEST_KEY.slice(-6));
    expect(intent!.idempotencyKey).toBe(`cartwheel-${renewal.payment_id}`);
    expect(intent!.params).toMatchObject({ off_session: 'true', payment_method: 'pm_card_visa', metadata: { account_id: account, payment_id: renewal.payment_id, subscription_id: viaStripe.id } });
    expect((await ledger()).some((entry) => entry.payment_id === renewal.payment_id)).toBe(false);

    const builtIn = await subscribe(other.tokens.test_secret, 'built-in@example.test', rawCard);
    const before = standin.requests.length;
    const again = await api(`${base}subscriptions/${builtIn.id}/fast_forward`, { method: 'POST', token: other.tokens.test_secret });
    expect(again.status, again.text).toBe(200);
    expect(again.body.billing_count).toBe(2);
    const [, builtInRenewal] = await paymentsOf(other.tokens.test_secret, builtIn.id);
    expect(builtInRenewal.status).toBe('completed');
    expect((await ledger()).filter((entry) => entry.payment_id === builtInRenewal.payment_id).map((entry) => entry.outcome)).toEqual(['approved']);
    expect(standin.requests.length).toBe(before);

    // Neither renews again below.
    for (const [secret, id] of [[test, viaStripe.id], [other.tokens.test_secret, builtIn.id]] as const) {
      expect((await api(`${base}subscriptions/${id}/cancel`, { method: 'POST', token: secret, body: { cancel_at_current_period_end: false } })).status).toBe(200);
    }
  }, 120_000);
});

describe('a renewal charge Stripe has not settled', () => {
  it('records nothing while it is processing or unanswered, and once when a later run asks again under the same key', async () => {
    const slow = await subscribe(test, 'slow@example.test', token('pm_card_visa'));
    const checkout = standin.requests.find((request) => request.path === '/v1/payment_intents' && (request.params.metadata as Record<string, string>).payment_id === slow.payment.payment_id)!;
    const customer = String(checkout.params.customer);
    const behave = async (as: string | null) => expect((await api(`${standin.url}/_standin/customers/${customer}/payment_methods/pm_card_visa/behave`, { method: 'POST', body: { as } })).status).toBe(200);
    const forward = async () => {
      const answer = await api(`${base}subscriptions/${slow.id}/fast_forward`, { method: 'POST', token: test });
      expect(answer.status, answer.text).toBe(200);
      return answer.body;
    };

    // Processing: nothing recorded, the subscription as it was; the bank settles it; the next run finds it succeeded.
    await behave('pm_card_standin_processing');
    expect(await forward()).toMatchObject({ billing_count: 1, in_grace_period: false, status: 'active' });
    expect(await paymentsOf(test, slow.id)).toHaveLength(1);
    const [processing] = renewalIntents(slow.id);
    const intentId = await intentOf(processing!.idempotencyKey!);
    expect((await api(`${standin.url}/_standin/payment_intents/${intentId}/settle`, { method: 'POST', body: { outcome: 'succeeded' } })).status).toBe(200);
    await behave(null);
    expect(await forward()).toMatchObject({ billing_count: 2, in_grace_period: false });
    const afterProcessing = await paymentsOf(test, slow.id);
    expect(afterProcessing.map((payment) => payment.status)).toEqual(['completed', 'completed']);
    expect(renewalIntents(slow.id).map((intent) => intent.idempotencyKey)).toEqual(Array(2).fill(`cartwheel-${afterProcessing[1].payment_id}`));

    // No answer (Stripe made the charge, the answer never came): nothing recorded; the next run gets Stripe's first answer back.
    await behave('pm_card_standin_hang');
    expect(await forward()).toMatchObject({ billing_count: 2, in_grace_period: false });
    expect(await paymentsOf(test, slow.id)).toHaveLength(2);
    expect(await forward()).toMatchObject({ billing_count: 3, in_grace_period: false });
    const payments = await paymentsOf(test, slow.id);
    expect(payments.map((payment) => payment.status)).toEqual(['completed', 'completed', 'completed']);
    expect(renewalIntents(slow.id).slice(2).map((intent) => intent.idempotencyKey)).toEqual(Array(2).fill(`cartwheel-${payments[2].payment_id}`));
    expect(await ordersOf(test, slow.id)).toHaveLength(3);

    // requires_action answered off-session: nobody can authenticate, so the PaymentIntent is cancelled at Stripe and the renewal fails.
    await behave('pm_card_standin_action_off_session');
    expect(await forward()).toMatchObject({ billing_count: 3, in_grace_period: true, status: 'active' });
    const [, , , failed] = await paymentsOf(test, slow.id);
    expect(failed).toMatchObject({ status: 'failed', error_code: 'payment_declined', response_data: { message: expect.stringMatching(/authentication/i) } });
    const actionIntent = await intentOf(`cartwheel-${failed.payment_id}`);
    expect(standin.requests.some((request) => request.method === 'POST' && request.path === `/v1/payment_intents/${actionIntent}/cancel`)).toBe(true);
    await behave(null);
    expect((await api(`${base}subscriptions/${slow.id}/cancel`, { method: 'POST', token: test, body: { cancel_at_current_period_end: false } })).status).toBe(200);
  }, 120_000);
});

describe('a renewal charge that loses the race to a cancellation', () => {
  const secret = () => other.tokens.test_secret;

  /** Moves the clock past `subscription`'s next billing with the built-in gateway's charges held once made; runs `meanwhile` while its renewal charge is held, then releases it. */
  async function raceRenewal(subscription: { date_next_billing: string }, meanwhile: () => Promise<void>): Promise<void> {
    writeFileSync(holdFile, 'hold');
    try {
      await setClock(Date.parse(subscription.date_next_billing) + 1000);
      // The renewal took the money at the gateway and waits before recording it.
      await until('the renewal charge made and held', async () => (await api(`${origin}/_local/gateway/held`)).body, (held) => held.held_charged === 1);
      await meanwhile();
    } finally {
      rmSync(holdFile);
    }
  }

  /** Each payment of the subscription was charged exactly once at the built-in gateway, approved. */
  async function chargedOnce(id: string): Promise<void> {
    const charges = (await ledger()).filter((entry) => entry.kind === 'charge');
    for (const payment of await paymentsOf(secret(), id)) expect(charges.filter((entry) => entry.payment_id === payment.payment_id).map((entry) => entry.outcome)).toEqual(['approved']);
  }

  it('cancelled at once: the charge is recorded once (payment and order of that period), and the cancellation stands', async () => {
    const now = await subscribe(secret(), 'cancel-now@example.test', rawCard);
    await raceRenewal(now.subscription, async () => {
      const cancelled = await api(`${base}subscriptions/${now.id}/cancel`, { method: 'POST', token: secret(), body: { cancel_at_current_period_end: false, cancellation_reason: 'changed my mind' } });
      expect(cancelled.status, cancelled.text).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', billing_count: 1 });
    });
    const recorded = await until('the held charge recorded on the cancelled subscription', () => paymentsOf(secret(), now.id), (data) => data.length === 2);
    expect(recorded.map((payment) => payment.status)).toEqual(['completed', 'completed']);
    expect(await readSubscription(secret(), now.id)).toMatchObject({ status: 'cancelled', cancellation_reason: 'changed my mind', billing_count: 2, date_next_billing: null });
    const orders = await ordersOf(secret(), now.id);
    expect(orders).toHaveLength(2);
    expect(orders[1]).toMatchObject({ payment_status: 'completed', total: 10 });
    expect(orders[1].payment.split('/').pop()).toBe(recorded[1].payment_id);
    await chargedOnce(now.id);
  }, 120_000);

  it('cancelled at the period end: the paid period is kept, and its end ends the subscription', async () => {
    const atEnd = await subscribe(secret(), 'cancel-at-end@example.test', rawCard);
    await raceRenewal(atEnd.subscription, async () => {
      const pending = await api(`${base}subscriptions/${atEnd.id}/cancel`, { method: 'POST', token: secret(), body: { cancellation_reason: 'moving' } });
      expect(pending.status, pending.text).toBe(200);
      expect(pending.body).toMatchObject({ status: 'active', cancel_at_current_period_end: true, billing_count: 1 });
    });
    const paidFor = await until('the held charge recorded on the subscription cancelling at its period end', () => readSubscription(secret(), atEnd.id), (each) => each.billing_count === 2);
    expect(paidFor).toMatchObject({ status: 'active', cancel_at_current_period_end: true, cancellation_reason: 'moving', date_next_billing: null, date_current_period_start: atEnd.subscription.date_current_period_end });
    expect(await ordersOf(secret(), atEnd.id)).toHaveLength(2);
    await chargedOnce(atEnd.id);
    await setClock(Date.parse(paidFor.date_current_period_end) + 1000);
    expect(await until('the period-end cancellation', () => readSubscription(secret(), atEnd.id), (each) => each.status === 'cancelled')).toMatchObject({ billing_count: 2, date_ended: paidFor.date_current_period_end });
    expect(await paymentsOf(secret(), atEnd.id)).toHaveLength(2);
  }, 120_000);
});

describe('live renewals through Stripe', () => {
  let bought: Awaited<ReturnType<typeof subscribe>>;
  let customer: string;

  it('keeps the card of a subscription bought with a pm_ token at Stripe', async () => {
    bought = await subscribe(live, 'live@example.test', token('pm_card_visa'));
    const checkout = standin.requests.filter((request) => request.path === '/v1/payment_intents' && (request.params.metadata as Record<string, string>).payment_id === bought.payment.payment_id);
    expect(checkout).toHaveLength(1);
    expect(checkout[0]!.params).toMatchObject({ setup_future_usage: 'off_session', payment_method: 'pm_card_visa' });
    expect(checkout[0]!.params.off_session).toBeUndefined();
    customer = String(checkout[0]!.params.customer);
    expect(customer).toMatch(/^cus_/);
    // The subscription charges the card saved on the customer (its Stripe references are checked by the renewal below).
    const methodId = bought.payment.payment_method.payment_method_id;
    expect(methodId).toBeTruthy();
    expect(bought.subscription.payment_method).toBe(`${bought.order.customer}/payment_methods/${methodId}`);
    expect((await api(bought.subscription.payment_method, { token: live })).body).toMatchObject({ data: { last4: '4242' } });
  }, 60_000);

  it('renews off-session with the saved customer and PaymentMethod: one payment and one order per period', async () => {
    for (const billing of [2, 3]) {
      const current = await readSubscription(live, bought.id);
      await setClock(Date.parse(current.date_next_billing) + 1000);
      await until(`renewal ${billing}`, () => readSubscription(live, bought.id), (each) => each.billing_count === billing);
    }
    const payments = await paymentsOf(live, bought.id);
    const orders = await ordersOf(live, bought.id);
    expect(payments.map((payment) => payment.status)).toEqual(['completed', 'completed', 'completed']);
    expect(orders).toHaveLength(3);
    expect(new Set(orders.map((order) => order.payment.split('/').pop()))).toEqual(new Set(payments.map((payment) => payment.payment_id)));
    const intents = renewalIntents(bought.id);
    expect(intents).toHaveLength(2);
    for (const [index, intent] of intents.entries()) {
      const payment = payments[index + 1];
      expect(intent.account).toBe(LIVE_KEY.slice(-6));
      expect(intent.idempotencyKey).toBe(`cartwheel-${payment.payment_id}`);
      expect(intent.params).toMatchObject({ amount: '1000', currency: 'usd', confirm: 'true', off_session: 'true', customer, payment_method: 'pm_card_visa', metadata: { account_id: account, payment_id: payment.payment_id, subscription_id: bought.id } });
      expect(intent.params.setup_future_usage).toBeUndefined();
    }
  }, 120_000);

  it('goes into grace when the card needs authentication, retries on the retry days, and cancels with payment_failure', async () => {
    const behave = await api(`${standin.url}/_standin/customers/${customer}/payment_methods/pm_card_visa/behave`, { method: 'POST', body: { as: 'pm_card_authenticationRequired' } });
    expect(behave.status, behave.text).toBe(200);
    const current = await readSubscription(live, bought.id);
    const periodEnd = Date.parse(current.date_next_billing);
    await setClock(periodEnd + 1000);
    const graced = await until('the failed renewal', () => readSubscription(live, bought.id), (each) => each.in_grace_period === true);
    expect(graced).toMatchObject({ status: 'active', billing_count: 3, date_next_billing: new Date(periodEnd + DAY).toISOString().replace('.000', '') });
    const [failed] = (await paymentsOf(live, bought.id)).filter((payment) => payment.status === 'failed');
    expect(failed).toMatchObject({ error_code: 'payment_declined', response_data: { message: expect.stringMatching(/authentication/i) } });

    for (const [index, days] of [1, 3, 5].entries()) {
      await setClock(periodEnd + days * DAY + 1000);
      await until(`the retry on day ${days}`, () => paymentsOf(live, bought.id), (data) => data.filter((payment) => payment.status === 'failed').length === index + 2);
    }
    const dropped = await until('the cancellation for payment failure', () => readSubscription(live, bought.id), (each) => each.status === 'cancelled');
    expect(dropped).toMatchObject({ cancellation_reason: 'payment_failure', in_grace_period: false, date_next_billing: null, billing_count: 3 });
    const payments = await paymentsOf(live, bought.id);
    expect(payments.map((payment) => [payment.status, payment.error_code])).toEqual([...Array(3).fill(['completed', null]), ...Array(4).fill(['failed', 'payment_declined'])]);
    // Four off-session attempts after the two renewals, each a new PaymentIntent under its own payment's key.
    const attempts = renewalIntents(bought.id).slice(2);
    expect(attempts.map((intent) => intent.idempotencyKey)).toEqual(payments.slice(3).map((payment) => `cartwheel-${payment.payment_id}`));
    expect(attempts.every((intent) => intent.params.off_session === 'true' && intent.params.customer === customer)).toBe(true);
    expect(await ordersOf(live, bought.id)).toHaveLength(3);
  }, 180_000);

  it('looks up what Stripe made under the payment before creating a PaymentIntent when the renewal runs over 12 hours late', async () => {
    const late = await subscribe(live, 'late@example.test', token('pm_card_visa'));
    await setClock(Date.parse(late.subscription.date_next_billing) + 13 * 60 * 60_000);
    await until('the late renewal', () => readSubscription(live, late.id), (each) => each.billing_count === 2);
    const [, renewal] = await paymentsOf(live, late.id);
    const seen = standin.requests.map((request) => `${request.method} ${request.path} ${request.method === 'GET' ? String(request.params.query ?? '') : String((request.params.metadata as Record<string, string> | undefined)?.payment_id ?? '')}`);
    const search = seen.indexOf(`GET /v1/payment_intents/search metadata['payment_id']:'${renewal.payment_id}'`);
    const create = seen.indexOf(`POST /v1/payment_intents ${renewal.payment_id}`);
    expect(search).toBeGreaterThanOrEqual(0);
    expect(create).toBeGreaterThan(search);
    expect(renewalIntents(late.id)).toHaveLength(1);
    expect((await api(`${base}subscriptions/${late.id}/cancel`, { method: 'POST', token: live, body: { cancel_at_current_period_end: false } })).status).toBe(200);
  }, 120_000);

  it('fails a live renewal with a clear message when the Stripe connection is gone', async () => {
    const unplugged = await subscribe(live, 'unplugged@example.test', token('pm_card_visa'));
    const disconnected = await api(`${base}settings/payment`, { method: 'POST', token: live, body: { stripe_live: null } });
    expect(disconnected.status, disconnected.text).toBe(200);
    const before = renewalIntents(unplugged.id).length;
    await setClock(Date.parse(unplugged.subscription.date_next_billing) + 1000);
    const graced = await until('the renewal without Stripe', () => readSubscription(live, unplugged.id), (each) => each.in_grace_period === true);
    expect(graced).toMatchObject({ status: 'active', billing_count: 1 });
    const [failed] = (await paymentsOf(live, unplugged.id)).filter((payment) => payment.status === 'failed');
    expect(failed).toMatchObject({ error_code: 'payment_declined', response_data: { message: expect.stringContaining('stripe_live') } });
    expect(renewalIntents(unplugged.id).length).toBe(before);
  }, 120_000);

  it('sent Stripe nothing its OpenAPI description refuses', async () => {
    expect(standin.invalid).toEqual([]);
  });
});
