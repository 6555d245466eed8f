/**
 * Renewals are charged exactly once per period even when the runtime dies in the middle of them
 * (issue 26): 20 daily subscriptions through 6 periods on the manual clock. In the third period
 * the runtime holds every charge of the built-in test gateway AFTER its ledger recorded it and
 * before it answers (CARTWHEEL_GATEWAY_CHARGED_HOLD_FILE, infra/local/gateway-hold.ts), so the
 * kill -9 lands where money is taken and nothing is recorded. After the restart the clock moves
 * past the renewal lease and the sweep finishes it from the gateway's answer to the same key.
 * At the end: every period charged exactly once (counted in the gateway's ledger), one order
 * per charge, none skipped. A second test kills a renewal the same way and cancels the
 * subscription before the next run: the charge the dead run made is still recorded, once.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { api, startRuntime, tempDataDir, type RuntimeProcess } from '../support/runtime-process';

const START = Date.parse('2027-03-01T09:00:00Z');
const DAY = 86_400_000;
const SUBSCRIPTIONS = 20;
const PERIODS = 6;
const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } };

/** Polls `read` until `done` holds (or `timeoutMs` passes), answering the last value. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const by = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined as T);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > by) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('charges each of 20 subscriptions exactly once per period through 6 periods and a kill -9 mid-renewal', async () => {
  const dataDir = tempDataDir();
  const holdFile = join(dataDir, '..', `charged-hold-${process.pid}-${Date.now()}`);
  const env = { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_GATEWAY_CHARGED_HOLD_FILE: holdFile, CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
  let runtime: RuntimeProcess = await startRuntime({ dataDir, env });
  const { api_url: base, account_id: account, tokens } = runtime.bootstrap;
  const secret = tokens.test_secret;
  const origin = runtime.url;
  const setClock = async (ms: number) => expect((await api(`${origin}/_local/clock`, { method: 'POST', body: { set: new Date(ms).toISOString() } })).status).toBe(200);
  const all = async () => {
    const listed = await api(`${base}subscriptions?limit=100`, { token: secret });
    return listed.body.data as any[];
  };
  try {
    await setClock(START);
    expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'daily', name: 'Daily', type: 'service', prices: [{ currency: 'USD', price: 3 }], subscription_plan: { billing_interval: 1, billing_interval_unit: 'day', end_at_billing_count: null } } });
    expect(product.status, product.text).toBe(201);
    for (let n = 0; n < SUBSCRIPTIONS; n++) {
      const token = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token;
      const cart = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'daily', quantity: 1 }], customer: { name: `Buyer ${n}`, email: `buyer${n}@example.test`, billing_address: { country: 'US', postal_code: '94107' } } } });
      const paid = await api(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token, body: card });
      expect(paid.status, paid.text).toBe(201);
    }
    expect(await all()).toHaveLength(SUBSCRIPTIONS);

    for (let period = 1; period <= PERIODS; period++) {
      const due = START + period * DAY + 1000;
      if (period === 3) {
        // Hold charges once the ledger has them, move the clock, and kill the runtime there.
        writeFileSync(holdFile, 'hold');
        await setClock(due);
        await until('a renewal charged and not yet recorded', async () => (await api(`${origin}/_local/gateway/held`)).body, (held) => held.held_charged >= 1);
        await runtime.kill9();
        rmSync(holdFile);
        runtime = await runtime.restart();
        // Past the renewal's lease (2 minutes), well inside the period.
        await setClock(due + 3 * 60_000);
      } else {
        await setClock(due);
      }
      await until(`period ${period} renewed`, all, (data) => data.length === SUBSCRIPTIONS && data.every((each) => each.billing_count === period + 1));
    }

    const ledger = ((await api(`${origin}/_local/gateway/charges`)).body.data as any[]).filter((entry) => entry.kind === 'charge');
    const chargesByPayment = new Map<string, any[]>();
    for (const entry of ledger) chargesByPayment.set(entry.payment_id, [...(chargesByPayment.get(entry.payment_id) ?? []), entry]);
    let renewalCharges = 0;
    for (const subscription of await all()) {
      expect(subscription).toMatchObject({ status: 'active', in_grace_period: false, billing_count: PERIODS + 1 });
      // Periods follow each other without a gap: the current one is the 7th day-step from the anchor.
      expect(Date.parse(subscription.date_current_period_end) - Date.parse(subscription.date_created)).toBe((PERIODS + 1) * DAY);
      const payments = (await api(`${subscription.payments}?limit=100`, { token: secret })).body.data as any[];
      const orders = (await api(`${subscription.orders}?limit=100`, { token: secret })).body.data as any[];
      expect(payments.map((payment) => payment.status)).toEqual(Array(PERIODS + 1).fill('completed'));
      expect(orders).toHaveLength(PERIODS + 1);
      expect(new Set(orders.map((order) => order.payment.split('/').pop()))).toEqual(new Set(payments.map((payment) => payment.payment_id)));
      for (const payment of payments) {
        const charged = chargesByPayment.get(payment.payment_id) ?? [];
        expect(charged.map((entry) => entry.outcome), payment.payment_id).toEqual(['approved']);
      }
      renewalCharges += payments.length - 1;
    }
    expect(renewalCharges).toBe(SUBSCRIPTIONS * PERIODS);
    // Nothing else was charged: the sales plus the renewals are the whole ledger.
    expect(ledger).toHaveLength(SUBSCRIPTIONS * (PERIODS + 1));
  } finally {
    if (existsSync(holdFile)) rmSync(holdFile);
    await runtime.stop();
  }
}, 600_000);

it('records a renewal charge whose run was killed after taking the money even when the subscription is cancelled before the next run', async () => {
  const dataDir = tempDataDir();
  const holdFile = join(dataDir, '..', `charged-hold-cancel-${process.pid}-${Date.now()}`);
  const env = { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_GATEWAY_CHARGED_HOLD_FILE: holdFile, CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
  let runtime: RuntimeProcess = await startRuntime({ dataDir, env });
  const { api_url: base, account_id: account, tokens } = runtime.bootstrap;
  const secret = tokens.test_secret;
  const setClock = async (ms: number) => expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { set: new Date(ms).toISOString() } })).status).toBe(200);
  try {
    await setClock(START);
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'daily', name: 'Daily', type: 'service', prices: [{ currency: 'USD', price: 3 }], subscription_plan: { billing_interval: 1, billing_interval_unit: 'day', end_at_billing_count: null } } });
    expect(product.status, product.text).toBe(201);
    const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: 'daily', quantity: 1 }], customer: { name: 'Buyer', email: 'buyer@example.test', billing_address: { country: 'US', postal_code: '94107' } } } });
    const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order`, { method: 'POST', token: secret, body: card });
    expect(paid.status, paid.text).toBe(201);
    const id = String(paid.body.order.items[0].subscription).split('/').pop();
    const due = START + DAY + 1000;

    // The renewal takes the money; the runtime dies before recording it.
    writeFileSync(holdFile, 'hold');
    await setClock(due);
    await until('the renewal charged and not yet recorded', async () => (await api(`${runtime.url}/_local/gateway/held`)).body, (held) => held.held_charged === 1);
    await runtime.kill9();
    rmSync(holdFile);
    runtime = await runtime.restart();
    await setClock(due);
    // Cancelled at once while the dead run's lease is still on the record.
    const cancelled = await api(`${base}subscriptions/${id}/cancel`, { method: 'POST', token: secret, body: { cancel_at_current_period_end: false } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', billing_count: 1 });
    // Past the lease: the next run finds the charge at the gateway and records it once; the cancellation stands.
    await setClock(due + 3 * 60_000);
    const payments = await until('the dead run\'s charge recorded', async () => (await api(`${base}subscriptions/${id}/payments`, { token: secret })).body.data as any[], (data) => data.length === 2);
    expect(payments.map((payment) => payment.status)).toEqual(['completed', 'completed']);
    expect((await api(`${base}subscriptions/${id}/orders`, { token: secret })).body.data).toHaveLength(2);
    expect((await api(`${base}subscriptions/${id}`, { token: secret })).body).toMatchObject({ status: 'cancelled', billing_count: 2, date_next_billing: null });
    const ledger = ((await api(`${runtime.url}/_local/gateway/charges`)).body.data as any[]).filter((entry) => entry.kind === 'charge');
    for (const payment of payments) expect(ledger.filter((entry) => entry.payment_id === payment.payment_id).map((entry) => entry.outcome)).toEqual(['approved']);
    expect(ledger).toHaveLength(2);
  } finally {
    if (existsSync(holdFile)) rmSync(holdFile);
    await runtime.stop();
  }
}, 300_000);
