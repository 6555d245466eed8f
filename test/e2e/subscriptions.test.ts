/**
 * Subscriptions over HTTP against a real local runtime on the manual clock (commerce.md §10,
 * issue 26): a monthly subscription bought on 31 January 2028 renews on 29 February, 31 March
 * and 30 April (the anchor day kept, clamped); a card that expires after the purchase (the
 * built-in gateway declines an expired saved card, §4.4) puts its subscription in grace,
 * retries 1, 3 and 5 days after the period end and then cancels it with `payment_failure`;
 * one cancelled at the period end ends then; test-mode `fast_forward` renews at once and is
 * 409 in live mode. Each clock move happens only once the work awaited before it is recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeWithSecondAccount, type RuntimeProcess } from '../support/runtime-process';
import { startReceiver, type Receiver } from '../support/receiver';

const RATES = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
const START = '2028-01-31T12:00:00.000Z';
const DAY = 86_400_000;

let runtime: RuntimeProcess;
let receiver: Receiver;
const EVENT_TYPES = ['subscription:created', 'subscription:renewal_success', 'subscription:renewal_failure', 'subscription:cancelled'] as const;
let base: string;
let origin: string;
let account: string;
let secret: string;
let live: string;
let other: { account_id: string; tokens: { live_secret: string; test_secret: string } };

const card = (exp_month = 12, exp_year = 2031) => ({ payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month, exp_year, cvv: '123', cardholder_name: 'Ada Lee' } } });
const buyer = (email: string) => ({ name: 'Ada Lee', email, billing_address: { country: 'US', postal_code: '94107' } });

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

async function setClock(iso: string): Promise<void> {
  const moved = await api(`${origin}/_local/clock`, { method: 'POST', body: { set: iso } });
  expect(moved.status, moved.text).toBe(200);
}

const subscription = async (id: string) => (await api(`${base}subscriptions/${id}`, { token: secret })).body;

/** Buys `product_id` as a fresh shopper; answers the shopper's token, payment (with its order) and the subscription. */
async function subscribe(productId: string, email: string, payment = card()) {
  const token = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token;
  const cart = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: productId, quantity: 1 }], customer: buyer(email) } });
  expect(cart.status, cart.text).toBe(201);
  const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order`, { method: 'POST', token, body: payment });
  expect(paid.status, paid.text).toBe(201);
  const item = paid.body.order.items[0];
  expect(item.subscription).toMatch(/\/subscriptions\/[A-Z0-9]+$/);
  const id = item.subscription.split('/').pop();
  return { token, payment: paid.body, order: paid.body.order, id, subscription: await subscription(id) };
}

const ledger = async () => (await api(`${origin}/_local/gateway/charges`)).body.data as Array<{ kind: string; payment_id: string; outcome: string; amount: number }>;

beforeAll(async () => {
  receiver = await startReceiver(() => 200);
  ({ runtime, other } = await startRuntimeWithSecondAccount({ env: { ...RATES, CARTWHEEL_CLOCK: 'manual' } }));
  base = runtime.bootstrap.api_url;
  origin = runtime.url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  live = runtime.bootstrap.tokens.live_secret;
  await setClock(START);
  for (const [path, body] of [
    ['settings/tax', { rules: [{ country: 'US', state_prov: null, rate: 0.1 }] }],
    ['settings/payment', { duplicate_payment_timeout: 0 }],
    ['products', { product_id: 'monthly', name: 'Monthly box', type: 'service', prices: [{ currency: 'USD', price: 10 }], subscription_plan: { billing_interval: 1, billing_interval_unit: 'month', end_at_billing_count: null } }],
    ...EVENT_TYPES.map((type) => ['event_subscriptions', { method: 'http', event_type: type, destination: `${receiver.url}/${type.replace(':', '-')}` }] as const),
  ] as const) {
    const made = await api(`${base}${path}`, { method: 'POST', token: secret, body });
    expect(made.status, made.text).toBeLessThan(300);
  }
}, 180_000);

afterAll(async () => {
  await runtime?.stop();
  await receiver?.close();
});

describe('subscriptions on the driven clock', () => {
  let calendar: Awaited<ReturnType<typeof subscribe>>;
  let declining: Awaited<ReturnType<typeof subscribe>>;
  let ending: Awaited<ReturnType<typeof subscribe>>;

  it('starts one subscription per planned line at completion, with the saved card and every field', async () => {
    calendar = await subscribe('monthly', 'calendar@example.test');
    const { subscription: made, order, payment } = calendar;
    expect(made).toMatchObject({
      object: 'subscription',
      status: 'active',
      test: true,
      account_id: account,
      customer: order.customer,
      order: order.url,
      currency: 'USD',
      reference_price: 10,
      reference_currency: 'USD',
      billing_interval: 1,
      billing_interval_unit: 'month',
      end_at_billing_count: null,
      billing_count: 1,
      date_current_period_start: START.replace('.000', ''),
      date_current_period_end: '2028-02-29T12:00:00Z',
      date_next_billing: '2028-02-29T12:00:00Z',
      cancel_at_current_period_end: false,
      cancellation_reason: null,
      date_cancelled: null,
      date_ended: null,
      in_grace_period: false,
      meta: null,
    });
    expect(made.items).toEqual([expect.objectContaining({ item_id: 'monthly', product_id: 'monthly', quantity: 1, price: 10 })]);
    // The card was saved on the customer (§4.2: always, for a subscription sale) and is the one charged.
    expect(payment.payment_method.payment_method_id).toBeTruthy();
    expect(made.payment_method).toBe(`${order.customer}/payment_methods/${payment.payment_method.payment_method_id}`);
    expect((await api(`${order.customer}/payment_methods`, { token: secret })).body.data).toHaveLength(1);
    // The customer's link resolves, and the shopper's token reads it (receipt page).
    const listed = await api(`${order.customer}/subscriptions`, { token: secret });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((each: any) => each.subscription_id)).toEqual([calendar.id]);
    expect((await api(`${base}subscriptions/${calendar.id}`, { token: calendar.token })).status).toBe(200);
    expect((await api(`${base}subscriptions/${calendar.id}/orders`, { token: secret })).body.data.map((each: any) => each.order_id)).toEqual([order.order_id]);

    declining = await subscribe('monthly', 'declining@example.test', card(1, 2028));
    ending = await subscribe('monthly', 'ending@example.test');
    const cancelled = await api(`${base}subscriptions/${ending.id}/cancel`, { method: 'POST', token: secret, body: { cancellation_reason: 'moving' } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'active', cancel_at_current_period_end: true, cancellation_reason: 'moving', date_cancelled: START.replace('.000', ''), date_ended: null });
  }, 120_000);

  it('fast_forward renews at once in test mode and is 409 in live mode', async () => {
    const quick = await subscribe('monthly', 'quick@example.test');
    const forwarded = await api(`${base}subscriptions/${quick.id}/fast_forward`, { method: 'POST', token: secret });
    expect(forwarded.status, forwarded.text).toBe(200);
    expect(forwarded.body).toMatchObject({ billing_count: 2, date_current_period_start: '2028-02-29T12:00:00Z', date_current_period_end: '2028-03-31T12:00:00Z', in_grace_period: false });
    const orders = (await api(`${base}subscriptions/${quick.id}/orders`, { token: secret })).body.data;
    expect(orders).toHaveLength(2);
    expect(orders[1]).toMatchObject({ subscription: forwarded.body.url, cart: null, total: 11, tax: 1, payment_status: 'completed' });
    const payments = (await api(`${base}subscriptions/${quick.id}/payments`, { token: secret })).body.data;
    expect(payments[1]).toMatchObject({ status: 'completed', subscription: forwarded.body.url, total: 11 });
    expect((await ledger()).filter((entry) => entry.payment_id === payments[1].payment_id)).toHaveLength(1);
    // Live mode: 409 whichever subscription is named.
    const liveForward = await api(`${base}subscriptions/${quick.id}/fast_forward`, { method: 'POST', token: live });
    expect(liveForward.status, liveForward.text).toBe(409);
    expect(liveForward.body.error.code).toBe('feature_not_enabled');
    // It ends now, so the calendar below is not its business.
    expect((await api(`${base}subscriptions/${quick.id}/cancel`, { method: 'POST', token: secret, body: { cancel_at_current_period_end: false } })).body).toMatchObject({ status: 'cancelled', date_ended: START.replace('.000', '') });
  }, 120_000);

  it('renews on 29 February, 31 March and 30 April; declines into grace and cancels after the retries; ends a period-end cancellation', async () => {
    await setClock('2028-02-29T12:00:01Z');
    const renewed = await until('the February renewal', () => subscription(calendar.id), (each) => each.billing_count === 2);
    expect(renewed).toMatchObject({ date_current_period_start: '2028-02-29T12:00:00Z', date_current_period_end: '2028-03-31T12:00:00Z', date_next_billing: '2028-03-31T12:00:00Z', in_grace_period: false });
    const graced = await until('the declined renewal', () => subscription(declining.id), (each) => each.in_grace_period === true);
    expect(graced).toMatchObject({ status: 'active', billing_count: 1, date_next_billing: '2028-03-01T12:00:00Z', date_current_period_end: '2028-02-29T12:00:00Z' });
    const ended = await until('the period-end cancellation', () => subscription(ending.id), (each) => each.status === 'cancelled');
    expect(ended).toMatchObject({ date_ended: '2028-02-29T12:00:00Z', cancellation_reason: 'moving', billing_count: 1, date_next_billing: null });

    // Retries 1, 3 and 5 days after the period end; each failure is one failed payment.
    const periodEnd = Date.parse('2028-02-29T12:00:00Z');
    for (const [index, days] of [1, 3, 5].entries()) {
      await setClock(new Date(periodEnd + days * DAY + 1000).toISOString());
      const failedPayments = () => api(`${base}subscriptions/${declining.id}/payments`, { token: secret }).then((reply) => reply.body.data.filter((each: any) => each.status === 'failed'));
      await until(`retry on day ${days}`, failedPayments, (data) => data.length === index + 2);
    }
    const dropped = await until('the cancellation for payment failure', () => subscription(declining.id), (each) => each.status === 'cancelled');
    expect(dropped).toMatchObject({ cancellation_reason: 'payment_failure', in_grace_period: false, date_next_billing: null, billing_count: 1 });
    const declinedPayments = (await api(`${base}subscriptions/${declining.id}/payments`, { token: secret })).body.data;
    expect(declinedPayments.map((each: any) => [each.status, each.error_code])).toEqual([['completed', null], ...Array(4).fill(['failed', 'payment_declined'])]);

    await setClock('2028-03-31T12:00:01Z');
    expect(await until('the March renewal', () => subscription(calendar.id), (each) => each.billing_count === 3)).toMatchObject({ date_current_period_start: '2028-03-31T12:00:00Z', date_current_period_end: '2028-04-30T12:00:00Z' });
    await setClock('2028-04-30T12:00:01Z');
    expect(await until('the April renewal', () => subscription(calendar.id), (each) => each.billing_count === 4)).toMatchObject({ date_current_period_start: '2028-04-30T12:00:00Z', date_current_period_end: '2028-05-31T12:00:00Z' });

    // Four charges, four orders, each renewal order naming the subscription with the item's meta copied.
    const orders = (await api(`${base}subscriptions/${calendar.id}/orders`, { token: secret })).body;
    expect(orders.total_items ?? orders.data.length).toBe(4);
    expect(orders.data.slice(1).map((each: any) => each.date_created)).toEqual(['2028-02-29T12:00:01Z', '2028-03-31T12:00:01Z', '2028-04-30T12:00:01Z']);
    const payments = (await api(`${base}subscriptions/${calendar.id}/payments`, { token: secret })).body.data;
    const charges = (await ledger()).filter((entry) => payments.some((each: any) => each.payment_id === entry.payment_id));
    expect(charges.map((entry) => entry.outcome)).toEqual(['approved', 'approved', 'approved', 'approved']);
    // Every subscription event was delivered, each with the subscription as its data.
    for (const type of EVENT_TYPES) {
      const [first] = await receiver.receivedAt(`/${type.replace(':', '-')}`, 1);
      expect(JSON.parse(String(first!.body))).toMatchObject({ type, data: { object: 'subscription' } });
    }
  }, 240_000);
});

describe('subscription endpoints refuse what the contract refuses', () => {
  it('keeps another account, the other mode and other shoppers out; customers cancel only when allowed', async () => {
    const mine = await subscribe('monthly', 'scoped@example.test');
    expect((await api(`${base}subscriptions/${mine.id}`, { token: other.tokens.test_secret })).status).toBe(404);
    expect((await api(`${base}subscriptions/${mine.id}`, { token: live })).status).toBe(400);
    const stranger = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token;
    expect((await api(`${base}subscriptions/${mine.id}`, { token: stranger })).status).toBe(404);
    expect((await api(`${base}subscriptions`, { token: stranger })).status).toBe(403);
    // The paying shopper reads it but cannot cancel it (no customer scope).
    expect((await api(`${base}subscriptions/${mine.id}/cancel`, { method: 'POST', token: mine.token, body: {} })).status).toBe(403);
    // The update takes only the customer's own saved methods.
    const foreign = await api(`${base}subscriptions/${mine.id}`, { method: 'POST', token: secret, body: { payment_method_id: 'NOPE12345678' } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.meta).toMatchObject({ property: 'payment_method_id', reason: 'not_found' });
    const meta = await api(`${base}subscriptions/${mine.id}`, { method: 'POST', token: secret, body: { meta: { box: 'blue' } } });
    expect(meta.body.meta).toEqual({ box: 'blue' });
    expect((await api(`${base}subscriptions/${mine.id}/uncancel`, { method: 'POST', token: secret })).status).toBe(422);
    expect((await api(`${base}subscriptions/${mine.id}/cancel`, { method: 'POST', token: secret, body: {} })).body.cancel_at_current_period_end).toBe(true);
    expect((await api(`${base}subscriptions/${mine.id}/uncancel`, { method: 'POST', token: secret })).body).toMatchObject({ cancel_at_current_period_end: false, date_cancelled: null });
    expect((await api(`${base}subscriptions?status=bogus`, { token: secret })).status).toBe(400);
    const active = (await api(`${base}subscriptions?status=active&in_grace_period=false`, { token: secret })).body.data as any[];
    expect(active.map((each) => each.subscription_id)).toContain(mine.id);
    expect(active.every((each) => each.status === 'active' && each.in_grace_period === false)).toBe(true);
  }, 120_000);
});

/** A test-mode customer with a login, its subscription (a cart linked to it, paid by the secret token) and its customer-scope token. */
async function customerWithSubscription(id: string) {
  const created = await api(`${base}customers`, { method: 'POST', token: secret, body: { customer_id: id, username: `${id}-user`, password: 'open sesame', name: id, email: `${id}@example.test`, billing_address: { country: 'US', postal_code: '94107' } } });
  expect(created.status, created.text).toBe(201);
  const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: 'monthly', quantity: 1 }], customer_id: id, customer: { name: id, email: `${id}@example.test`, billing_address: { country: 'US', postal_code: '94107' } } } });
  const paid = await api(`${cart.body.url}/payments?expand=order`, { method: 'POST', token: secret, body: card() });
  expect(paid.status, paid.text).toBe(201);
  const signedIn = await api(`${base}customers/login?account_id=${account}&test=true&expand=auth`, { method: 'POST', body: { username: `${id}-user`, password: 'open sesame' } });
  expect(signedIn.status, signedIn.text).toBe(200);
  return { subscriptionId: paid.body.order.items[0].subscription.split('/').pop() as string, token: signedIn.body.auth.token as string };
}

describe('customer scope and isolation (probes)', () => {
  it('lets a customer read, cancel and un-cancel its own subscription while the settings allow it', async () => {
    const cy = await customerWithSubscription('CY');
    const dee = await customerWithSubscription('DEE');
    const mine = await api(`${base}customers/me/subscriptions`, { token: cy.token });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data.map((each: any) => each.subscription_id)).toEqual([cy.subscriptionId]);
    expect((await api(`${base}subscriptions/${cy.subscriptionId}`, { token: cy.token })).status).toBe(200);
    expect((await api(`${base}subscriptions/${cy.subscriptionId}/payments`, { token: cy.token })).status).toBe(200);
    expect((await api(`${base}subscriptions/${dee.subscriptionId}`, { token: cy.token })).status).toBe(404);
    expect((await api(`${base}subscriptions/${dee.subscriptionId}/cancel`, { method: 'POST', token: cy.token, body: {} })).status).toBe(404);
    expect((await api(`${base}subscriptions/${cy.subscriptionId}/cancel`, { method: 'POST', token: cy.token, body: {} })).body).toMatchObject({ cancel_at_current_period_end: true });
    expect((await api(`${base}subscriptions/${cy.subscriptionId}/uncancel`, { method: 'POST', token: cy.token })).body).toMatchObject({ cancel_at_current_period_end: false });
    // Customer scope never updates (only cancels and un-cancels).
    expect((await api(`${base}subscriptions/${cy.subscriptionId}`, { method: 'POST', token: cy.token, body: { meta: 1 } })).status).toBe(403);
    expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { allow_customer_subscription_cancel: false } })).status).toBe(200);
    try {
      const refused = await api(`${base}subscriptions/${cy.subscriptionId}/cancel`, { method: 'POST', token: cy.token, body: {} });
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_permissions');
      expect((await subscription(cy.subscriptionId)).cancel_at_current_period_end).toBe(false);
    } finally {
      await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { allow_customer_subscription_cancel: true } });
    }
  }, 120_000);

  it('answers every subscription endpoint for another account, the other mode and a stranger without revealing or changing anything', async () => {
    const target = await subscribe('monthly', 'probe@example.test');
    const stranger = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token;
    const routes: Array<{ label: string; method: 'GET' | 'POST'; path: string; body?: unknown; limited: number; live: number }> = [
      { label: 'GET one', method: 'GET', path: `subscriptions/${target.id}`, limited: 404, live: 400 },
      { label: 'update', method: 'POST', path: `subscriptions/${target.id}`, body: { meta: 'x' }, limited: 403, live: 400 },
      { label: 'cancel', method: 'POST', path: `subscriptions/${target.id}/cancel`, body: { cancel_at_current_period_end: false }, limited: 404, live: 400 },
      { label: 'uncancel', method: 'POST', path: `subscriptions/${target.id}/uncancel`, limited: 404, live: 400 },
      { label: 'fast_forward', method: 'POST', path: `subscriptions/${target.id}/fast_forward`, limited: 403, live: 409 },
      { label: 'orders', method: 'GET', path: `subscriptions/${target.id}/orders`, limited: 404, live: 400 },
      { label: 'payments', method: 'GET', path: `subscriptions/${target.id}/payments`, limited: 404, live: 400 },
      { label: "the customer's subscriptions", method: 'GET', path: `customers/${target.order.customer.split('/').pop()}/subscriptions`, limited: 404, live: 400 },
    ];
    const callers = [
      { label: 'another account', token: other.tokens.test_secret, status: () => 404 },
      { label: "another account's live token", token: other.tokens.live_secret, status: (route: (typeof routes)[number]) => (route.label === 'fast_forward' ? 409 : 404) },
      { label: 'the live secret token', token: live, status: (route: (typeof routes)[number]) => route.live },
      { label: 'a stranger limited token', token: stranger, status: (route: (typeof routes)[number]) => route.limited },
    ];
    const before = (await api(`${base}subscriptions/${target.id}`, { token: secret })).text;
    for (const route of routes) {
      for (const caller of callers) {
        const answer = await api(`${base}${route.path}`, { method: route.method, token: caller.token, ...(route.body === undefined ? {} : { body: route.body }) });
        expect(answer.status, `${route.label} by ${caller.label}: ${answer.text}`).toBe(caller.status(route));
        expect(answer.text).not.toContain(target.payment.payment_id);
      }
    }
    expect((await api(`${base}subscriptions/${target.id}`, { token: secret })).text).toBe(before);
    // Another account's lists and reports show nothing of this one.
    expect((await api(`${base}subscriptions`, { token: other.tokens.test_secret })).body.data).toEqual([]);
    const theirReport = await api(`${base}reports/sales?date_start=2028-01-01&date_end=2028-06-30&group_by=month`, { token: other.tokens.test_secret });
    expect(theirReport.status, theirReport.text).toBe(200);
    expect(theirReport.body.summary.order_count).toBe(0);
    const ourReport = await api(`${base}reports/sales?date_start=2028-01-01&date_end=2028-06-30&group_by=month`, { token: secret });
    expect(ourReport.body.summary.order_count).toBeGreaterThan(0);
    expect((await api(`${base}reports/sales`, { token: stranger })).status).toBe(403);
  }, 120_000);
});
