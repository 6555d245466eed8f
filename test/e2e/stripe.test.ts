/**
 * Live payments through the account's own Stripe connection (issue 27, commerce.md §4.7), over
 * HTTP against a runtime whose Stripe adapter points at the stand-in
 * (infra/local/stripe-standin/, `CARTWHEEL_STRIPE_API_BASE`): settings, a live cart paid with a
 * `pm_` token, every row of the §4.7 table, raw card numbers, 3-D Secure settled by the commit
 * and the webhook racing, a hang settled by the sweep, webhooks that must change nothing,
 * refunds, and no full card number anywhere in the runtime's data or output. The stand-in checks
 * every request the adapter sends against Stripe's OpenAPI description; the last test asserts
 * none was invalid.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signature, type StripeStandin } from '../../infra/local/stripe-standin/server';
import { api, listAll, type RuntimeProcess } from '../support/runtime-process';
import { STANDIN_SECRET_KEY as SECRET_KEY, startStripeRuntime, until, type StripeRuntime } from '../support/stripe-runtime';

/** How many 3-D Secure payments race their webhook against the client's commit: 200 (about 25 s alone; STRIPE_RACES overrides). */
const RACES = Number(process.env.STRIPE_RACES ?? 200);

let standin: StripeStandin;
let runtime: RuntimeProcess;
let base: string;
let account: string;
let live: string;
let test: string;
let webhookSecret: string;
let connected: StripeRuntime;
const buyer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };
const token = (pm: string) => ({ payment_method: { type: 'credit_card', data: { token: pm } } });
const raw = (number: string) => ({ payment_method: { type: 'credit_card', data: { number, exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } });

async function liveCart(quantity = 1): Promise<string> {
  const cart = await api(`${base}carts`, { method: 'POST', token: live, body: { items: [{ product_id: 'ebook', quantity }], customer: buyer } });
  expect(cart.status, cart.text).toBe(201);
  return cart.body.cart_id;
}

async function pay(cartId: string, body: unknown) {
  return api(`${base}carts/${cartId}/payments`, { method: 'POST', token: live, body });
}

/** Every live order. */
const allOrders = (): Promise<any[]> => listAll(`${base}orders?limit=100`, live);

async function outbox(): Promise<any[]> {
  return (await api(`${runtime.url}/_local/outbox`)).body.data;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

beforeAll(async () => {
  // The merchant registers the webhook endpoint in "Stripe" and keeps its signing secret (test/support/stripe-runtime.ts).
  connected = await startStripeRuntime({ currencies: ['USD', 'JPY', 'KWD'], exchange_rates: { JPY: 150, KWD: 0.3 } });
  ({ standin, runtime, base, account, live, test, webhookSecret } = connected);
  const product = await api(`${base}products`, { method: 'POST', token: live, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
  expect(product.status, product.text).toBe(201);
}, 120_000);

afterAll(async () => {
  await connected?.stop();
});

describe('the Stripe connection in /settings/payment', () => {
  it('keeps the secrets sealed and answers them only as prefix and last four', async () => {
    const read = await api(`${base}settings/payment`, { token: live });
    expect(read.body.stripe_live).toEqual({ publishable_key: 'pk_live_standinAcct1', secret_key: 'sk_live_…cct1', webhook_secret: `whsec_…${webhookSecret.slice(-4)}` });
    expect(read.body.stripe_test).toBeNull();
    expect(read.body.allow_raw_card_data).toBe(false);
    expect(read.text).not.toContain(SECRET_KEY);
    expect(read.text).not.toContain(webhookSecret);
  });

  it('checks a new key once with Stripe: a refused key is 400 on stripe_live.secret_key and nothing is saved', async () => {
    const checksBefore = standin.requests.filter((request) => request.path === '/v1/balance').length;
    const refused = await api(`${base}settings/payment`, { method: 'POST', token: live, body: { stripe_live: { publishable_key: 'pk_live_other', secret_key: 'sk_live_invalidKey', webhook_secret: 'whsec_other1' } } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'stripe_live.secret_key' } });
    expect(standin.requests.filter((request) => request.path === '/v1/balance').length).toBe(checksBefore + 1);
    const read = await api(`${base}settings/payment`, { token: live });
    expect(read.body.stripe_live.publishable_key).toBe('pk_live_standinAcct1');
  });

  it('refuses malformed keys before asking Stripe', async () => {
    for (const [field, value] of [['publishable_key', 'sk_live_x1234'], ['secret_key', 'pk_live_abcd'], ['webhook_secret', 'secret']] as const) {
      const answer = await api(`${base}settings/payment`, { method: 'POST', token: live, body: { stripe_test: { publishable_key: 'pk_test_abcd', secret_key: 'sk_test_abcd', webhook_secret: 'whsec_abcd', [field]: value } } });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error.meta.property).toBe(`stripe_test.${field}`);
    }
    expect((await api(`${base}settings/payment`, { token: live })).body.stripe_test).toBeNull();
  });

  it('shows the publishable key of the token mode in /payments/options and in the apps account settings', async () => {
    expect((await api(`${base}payments/options`, { token: live })).body.stripe_publishable_key).toBe('pk_live_standinAcct1');
    expect((await api(`${base}payments/options`, { token: test })).body.stripe_publishable_key).toBeNull();
    const liveSettings = await api(`${base}app_installations/public_settings/${account}/live/account.json`);
    expect(liveSettings.body.stripe_publishable_key).toBe('pk_live_standinAcct1');
    const testSettings = await api(`${base}app_installations/public_settings/${account}/test/account.json`);
    expect(testSettings.body.stripe_publishable_key).toBeNull();
  });
});

describe('a live cart paid through Stripe', () => {
  it('completes with a pm_ token: one order, one email, the PaymentIntent id and the card Stripe reports', async () => {
    const ordersBefore = (await allOrders()).length;
    const cartId = await liveCart(2);
    const paid = await api(`${base}carts/${cartId}/payments?expand=order`, { method: 'POST', token: live, body: token('pm_card_visa') });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({ status: 'completed', success: true, total: 38, currency: 'USD', test: false });
    expect(paid.body.gateway_transaction_id).toMatch(/^pi_/);
    expect(paid.body.payment_method.data).toMatchObject({ type: 'Visa', last4: '4242', label: 'Visa 4242' });
    expect(paid.body.response_data.authorization_code).toMatch(/^\d{6}$/);
    expect(paid.body.response_data.cvv_match).toBe(true);
    expect(paid.body.order).toMatchObject({ payment_status: 'completed' });
    expect((await allOrders()).length).toBe(ordersBefore + 1);
    await until('the confirmation email', outbox, (mails) => mails.filter((mail) => mail.order_id === paid.body.order.order_id).length === 1);
    // The PaymentIntent carried the contract's fields and idempotency key.
    const create = standin.requests.filter((request) => request.path === '/v1/payment_intents' && request.method === 'POST').at(-1)!;
    expect(create.idempotencyKey).toBe(`cartwheel-${paid.body.payment_id}`);
    expect(create.params).toMatchObject({ amount: '3800', currency: 'usd', confirm: 'true', payment_method: 'pm_card_visa', metadata: { account_id: account, payment_id: paid.body.payment_id, cart_id: cartId } });
  });

  it('charges zero- and three-decimal currencies in Stripe units, and refuses an amount Stripe cannot represent', async () => {
    const yenPaid = await api(`${base}payments`, { method: 'POST', token: live, body: { currency: 'JPY', total: 2000, ...token('pm_card_visa') } });
    expect(yenPaid.status, yenPaid.text).toBe(201);
    expect(standin.requests.filter((request) => request.path === '/v1/payment_intents').at(-1)!.params).toMatchObject({ amount: '2000', currency: 'jpy' });
    const dinarPaid = await api(`${base}payments`, { method: 'POST', token: live, body: { currency: 'KWD', total: 5.12, ...token('pm_card_visa') } });
    expect(dinarPaid.status, dinarPaid.text).toBe(201);
    expect(standin.requests.filter((request) => request.path === '/v1/payment_intents').at(-1)!.params).toMatchObject({ amount: '5120', currency: 'kwd' });
    const paymentsBefore = (await api(`${base}payments?limit=100`, { token: live })).body.data.length;
    const odd = await api(`${base}payments`, { method: 'POST', token: live, body: { currency: 'KWD', total: 5.125, ...token('pm_card_visa') } });
    expect(odd.status, odd.text).toBe(400);
    expect(odd.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'total' } });
    expect((await api(`${base}payments?limit=100`, { token: live })).body.data.length).toBe(paymentsBefore);
  });
});

describe('cards saved through Stripe', () => {
  it('keeps the Stripe customer and PaymentMethod on the saved method, and charges it again by payment_method_id', async () => {
    const first = await api(`${base}payments`, { method: 'POST', token: live, body: { currency: 'USD', total: 12, customer: buyer, payment_method: { type: 'credit_card', save: true, data: { token: 'pm_card_visa' } } } });
    expect(first.status, first.text).toBe(201);
    const created = standin.requests.filter((request) => request.path === '/v1/payment_intents').at(-1)!;
    expect(created.params).toMatchObject({ setup_future_usage: 'off_session' });
    expect(String(created.params.customer)).toMatch(/^cus_/);
    const methodId = first.body.payment_method.payment_method_id;
    expect(methodId).toBeTruthy();
    const customerId = String(first.body.customer).split('/').pop();
    const again = await api(`${base}payments`, { method: 'POST', token: live, body: { currency: 'USD', total: 13, customer_id: customerId, payment_method: { payment_method_id: methodId } } });
    expect(again.status, again.text).toBe(201);
    expect(again.body.status).toBe('completed');
    expect(standin.requests.filter((request) => request.path === '/v1/payment_intents').at(-1)!.params).toMatchObject({ customer: created.params.customer, payment_method: 'pm_card_visa' });
  });
});

describe('the §4.7 outcome table', () => {
  const rows: Array<[string, number, string | null, string]> = [
    ['pm_card_chargeDeclined', 402, 'payment_declined', 'failed'],
    ['pm_card_chargeDeclinedInsufficientFunds', 402, 'payment_declined', 'failed'],
    ['pm_card_chargeDeclinedProcessingError', 402, 'payment_declined', 'failed'],
    ['pm_card_chargeDeclinedIncorrectCvc', 402, 'invalid_cvv', 'failed'],
    ['pm_card_avsZipFail', 402, 'invalid_avs', 'failed'],
    ['pm_card_standin_api_error', 502, 'bank_network_error', 'failed'],
    ['pm_card_standin_rate_limit', 502, 'bank_network_error', 'failed'],
    ['pm_card_standin_processing', 201, null, 'initiated'],
    ['pm_card_authenticationRequired', 201, null, 'initiated'],
  ];
  for (const [pm, status, code, paymentStatus] of rows) {
    it(`${pm} answers ${status} ${code ?? ''} with the payment ${paymentStatus}`, async () => {
      const cartId = await liveCart();
      const answer = await pay(cartId, token(pm));
      expect(answer.status, answer.text).toBe(status);
      const payment = status === 201 ? answer.body : answer.body.error.meta.payment;
      if (code) expect(answer.body.error).toMatchObject({ code, status, meta: { payment: { status: 'failed', error_code: code } } });
      expect(payment.status).toBe(paymentStatus);
      const cart = await api(`${base}carts/${cartId}`, { token: live });
      expect(cart.body.order ?? null).toBeNull();
    });
  }

  it('retries a 5xx once under the same key', async () => {
    const cartId = await liveCart();
    const answer = await pay(cartId, token('pm_card_standin_api_error'));
    const paymentId = answer.body.error.meta.payment.payment_id;
    const attempts = standin.requests.filter((request) => request.idempotencyKey === `cartwheel-${paymentId}`);
    expect(attempts.length).toBe(2);
  });

  it('3-D Secure: initiated with the client_secret for Stripe.js', async () => {
    const answer = await pay(await liveCart(), token('pm_card_threeDSecure2Required'));
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.status).toBe('initiated');
    expect(answer.body.response_data.client_secret).toMatch(/^pi_.+_secret_/);
    expect(answer.body.gateway_transaction_id).toMatch(/^pi_/);
  });

  it('a hang at Stripe: 504 with the payment initiated, then the sweep completes it with one order and one email', async () => {
    const cartId = await liveCart();
    const answer = await pay(cartId, token('pm_card_standin_hang'));
    expect(answer.status, answer.text).toBe(504);
    expect(answer.body.error).toMatchObject({ code: 'bank_network_timeout', meta: { payment: { status: 'initiated' } } });
    const paymentId = answer.body.error.meta.payment.payment_id;
    expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 180 } })).status).toBe(200);
    const payment = await until('the sweep to complete the payment', () => api(`${base}payments/${paymentId}`, { token: live }), (read) => read.body.status === 'completed');
    expect(payment.body.gateway_transaction_id).toMatch(/^pi_/);
    const orders = (await allOrders()).filter((order) => order.payment_id === paymentId || String(order.payment).endsWith(paymentId));
    expect(orders.length).toBe(1);
    await until('one email', outbox, (mails) => mails.filter((mail) => mail.order_id === orders[0].order_id).length === 1);
  });
});

describe('raw card numbers', () => {
  it('are refused with tokenization_required unless the account allows raw card data, and never stored', async () => {
    const cartId = await liveCart();
    const refused = await pay(cartId, raw('4242424242424242'));
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'payment_method.data.number', reason: 'tokenization_required' } });
    expect((await api(`${base}carts/${cartId}/payments`, { token: live })).body.data.length).toBe(0);

    expect((await api(`${base}settings/payment`, { method: 'POST', token: live, body: { allow_raw_card_data: true } })).status).toBe(200);
    const paid = await pay(cartId, raw('4242424242424242'));
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({ status: 'completed', payment_method: { data: { last4: '4242' } } });
    const declined = await pay(await liveCart(), raw('4000000000000002'));
    expect(declined.status, declined.text).toBe(402);
    expect((await api(`${base}settings/payment`, { method: 'POST', token: live, body: { allow_raw_card_data: false } })).status).toBe(200);
  });

  it('a pm_ token in test mode without a Stripe test connection is refused, and nothing is stored', async () => {
    expect((await api(`${base}products`, { method: 'POST', token: test, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } })).status).toBe(201);
    const cart = await api(`${base}carts`, { method: 'POST', token: test, body: { items: [{ product_id: 'ebook', quantity: 1 }], customer: buyer } });
    expect(cart.status, cart.text).toBe(201);
    const answer = await api(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token: test, body: token('pm_card_visa') });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.error.meta).toMatchObject({ property: 'payment_method.data.token', reason: 'not_allowed' });
    expect((await api(`${base}carts/${cart.body.cart_id}/payments`, { token: test })).body.data.length).toBe(0);
  });
});

describe('3-D Secure completed from two sides at once', () => {
  it(`settles ${RACES} payments whose webhook and commit race in random order: one order and one email each`, async () => {
    const paymentIds: string[] = [];
    for (let index = 0; index < RACES; index++) {
      const answer = await pay(await liveCart(), token('pm_card_authenticationRequired'));
      expect(answer.status, answer.text).toBe(201);
      paymentIds.push(answer.body.payment_id);
    }
    await Promise.all(paymentIds.map(async (paymentId) => {
      const payment = (await api(`${base}payments/${paymentId}`, { token: live })).body;
      const done = await fetch(`${standin.url}/_standin/payment_intents/${payment.gateway_transaction_id}/authenticate`, { method: 'POST', body: JSON.stringify({ outcome: 'succeeded', deliver: false }) });
      const { payload } = (await done.json()) as { payload: string };
      const webhook = () => api(`${base}gateway_events/stripe/${account}/live`, { method: 'POST', rawBody: payload, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature(payload, webhookSecret) } });
      const commit = () => api(`${base}payments/${paymentId}/commit`, { method: 'POST', token: live });
      const calls = [webhook, commit, webhook, commit].sort(() => Math.random() - 0.5);
      const answers = await Promise.all(calls.map((call) => call()));
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    }));
    // Each of the four calls answered 200, but a webhook answers within 2 s and lets a slower
    // completion finish after its answer, and a commit whose look-up at Stripe timed out (2 s here)
    // leaves the payment initiated for the recovery sweep. On a loaded machine some completions
    // therefore land after the answers. Every payment is recorded (initiated, with its recovery
    // record), so while some are still initiated the clock moves past the recovery's wait (every 5 s
    // of real time) for the sweep to settle them through the same completion; then count.
    let lastMove = Date.now();
    const settled = await until('every raced payment to complete', async () => {
      const states = await Promise.all(paymentIds.map(async (paymentId) => (await api(`${base}payments/${paymentId}`, { token: live })).body));
      if (states.some((payment) => payment.status !== 'completed') && Date.now() - lastMove > 5_000) {
        expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 130 } })).status).toBe(200);
        lastMove = Date.now();
      }
      return states;
    }, (states) => states.every((payment) => payment.status === 'completed'), 240_000);
    const orders = await allOrders();
    for (const payment of settled) {
      expect(payment.status).toBe('completed');
      expect(orders.filter((order) => order.order_id === payment.order?.split('/').pop()).length).toBe(1);
    }
    const ofPayments = orders.filter((order) => paymentIds.some((id) => String(order.payment ?? order.payment_id).endsWith(id)));
    expect(ofPayments.length).toBe(RACES);
    // A webhook answers within 2 s and leaves a slower completion's email to due work: every payment is
    // completed (recorded) now, so the clock may move past the emails' 5-minute grace for the sweep to send the rest.
    expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 600 } })).status).toBe(200);
    const mails = await until('one email per order', outbox, (all) => ofPayments.every((order) => all.filter((mail) => mail.order_id === order.order_id).length >= 1), 90_000);
    for (const order of ofPayments) expect(mails.filter((mail) => mail.order_id === order.order_id).length).toBe(1);
  }, 600_000);
});

describe('webhooks that must change nothing', () => {
  let paymentId: string;
  let payload: string;

  beforeAll(async () => {
    const answer = await pay(await liveCart(), token('pm_card_authenticationRequired'));
    paymentId = answer.body.payment_id;
    const done = await fetch(`${standin.url}/_standin/payment_intents/${answer.body.gateway_transaction_id}/authenticate`, { method: 'POST', body: JSON.stringify({ outcome: 'succeeded', deliver: false }) });
    payload = ((await done.json()) as { payload: string }).payload;
  });

  const post = (body: string, header: string | undefined, path = `${account}/live`) =>
    api(`${base}gateway_events/stripe/${path}`, { method: 'POST', rawBody: body, headers: { 'Content-Type': 'application/json', ...(header ? { 'Stripe-Signature': header } : {}) } });
  const status = async () => (await api(`${base}payments/${paymentId}`, { token: live })).body.status;

  it('a bad signature, a missing one, an old timestamp, another account: 400, nothing changes', async () => {
    for (const [header, path] of [
      [signature(payload, 'whsec_wrongsecret'), undefined],
      [undefined, undefined],
      [signature(payload, webhookSecret, Math.floor(Date.now() / 1000) - 301), undefined],
      [signature(payload, webhookSecret), 'AAAAAAAAAAAA/live'],
      [signature(payload, webhookSecret), `${account}/test`],
    ] as const) {
      const answer = await post(payload, header, path);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error.code).toBe('invalid_input');
    }
    expect(await status()).toBe('initiated');
  });

  it('a signed event naming another account in its metadata answers 200 and changes nothing', async () => {
    const event = JSON.parse(payload);
    event.id = `${event.id}x`;
    event.data.object.metadata.account_id = 'OTHERACCOUNT';
    const forged = JSON.stringify(event);
    const answer = await post(forged, signature(forged, webhookSecret));
    expect(answer.status, answer.text).toBe(200);
    expect(await status()).toBe('initiated');
  });

  it('the real event completes it once; a replay of the same event id changes nothing', async () => {
    const first = await post(payload, signature(payload, webhookSecret));
    expect(first.status, first.text).toBe(200);
    expect(first.body.duplicate).toBe(false);
    await until('completion', status, (value) => value === 'completed');
    const replay = await post(payload, signature(payload, webhookSecret));
    expect(replay.status).toBe(200);
    expect(replay.body.duplicate).toBe(true);
  });
});

describe('refunds through Stripe', () => {
  it('refunds part, then the rest, of a Stripe payment with the refund keys', async () => {
    const paid = await pay(await liveCart(2), token('pm_card_visa'));
    expect(paid.status, paid.text).toBe(201);
    const partial = await api(`${base}payments/${paid.body.payment_id}/refunds`, { method: 'POST', token: live, body: { total: 10 } });
    expect(partial.status, partial.text).toBe(201);
    expect(partial.body).toMatchObject({ status: 'completed', total: 10 });
    const first = standin.requests.filter((request) => request.path === '/v1/refunds').at(-1)!;
    expect(first).toMatchObject({ idempotencyKey: `cartwheel-${partial.body.refund_id}`, params: { payment_intent: paid.body.gateway_transaction_id, amount: '1000' } });
    const rest = await api(`${base}payments/${paid.body.payment_id}/refunds`, { method: 'POST', token: live, body: {} });
    expect(rest.status, rest.text).toBe(201);
    expect(rest.body.total).toBe(28);
    expect(standin.requests.filter((request) => request.path === '/v1/refunds').at(-1)!.params).toMatchObject({ amount: '2800' });
    const payment = await api(`${base}payments/${paid.body.payment_id}`, { token: live });
    expect(payment.body).toMatchObject({ status: 'refunded', total_refunded: 38 });
  });
});

describe('what the adapter sent, and what the runtime kept', () => {
  it('every request to Stripe matched the OpenAPI description', () => {
    expect(standin.invalid).toEqual([]);
    expect(standin.requests.length).toBeGreaterThan(20);
  });

  it('no stored item, file or log line holds a full card number', () => {
    const numbers = ['4242424242424242', '4000000000000002'];
    for (const file of filesUnder(runtime.dataDir)) {
      const text = readFileSync(file).toString('latin1');
      for (const number of numbers) expect(text.includes(number), `${file} holds ${number}`).toBe(false);
    }
    for (const number of numbers) expect(runtime.output()).not.toContain(number);
  });
});
