/**
 * A refund survives `kill -9` between the gateway's refund and its record (issue 25 item 1).
 * The runtime holds every refund of the built-in test gateway AFTER its ledger recorded it and
 * before it answers (CARTWHEEL_GATEWAY_REFUND_HOLD_FILE, infra/local/gateway-hold.ts), so the
 * kill lands there deterministically: money refunded at the gateway, the refund still `pending`
 * in the platform. After the restart the manual clock moves past the recovery delay and the
 * sweep settles it: exactly one refund recorded (completed), exactly one in the ledger, the
 * payment's and order's totals grown once, and the rest of the sale still refundable once.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { api, startRuntime, tempDataDir, type RuntimeProcess } from '../support/runtime-process';

const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } };
const buyer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };

/** Polls `read` until `done` holds (or `timeoutMs` passes), answering the last value. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const by = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined as T);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > by) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('records exactly one refund, refunded once at the gateway, when the runtime dies between the two', async () => {
  const dataDir = tempDataDir();
  const holdFile = join(dataDir, '..', `refund-hold-${process.pid}-${Date.now()}`);
  const env = { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_GATEWAY_REFUND_HOLD_FILE: holdFile, CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
  let runtime: RuntimeProcess = await startRuntime({ dataDir, env });
  const { api_url: base, account_id: account, tokens } = runtime.bootstrap;
  const secret = tokens.test_secret;
  const origin = runtime.url;
  try {
    expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
    expect((await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 10 }] } })).status).toBe(201);
    const shopper = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token;
    const cart = await api(`${base}carts`, { method: 'POST', token: shopper, body: { items: [{ product_id: 'ebook', quantity: 1 }], customer: buyer } });
    const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order`, { method: 'POST', token: shopper, body: card });
    expect(paid.status, paid.text).toBe(201);
    const order = paid.body.order;
    const paymentId = paid.body.payment_id;
    const ledgerRefunds = async () => ((await api(`${origin}/_local/gateway/charges`)).body.data as any[]).filter((entry) => entry.kind === 'refund' && entry.payment_id === paymentId);

    // Hold the refund once the gateway made it, then kill the runtime there.
    writeFileSync(holdFile, 'hold');
    const lost = api(`${base}orders/${order.order_id}/refunds`, { method: 'POST', token: secret, body: { total: 4, reason: 'crash' } }).catch((error: Error) => error);
    await until('the refund held in the gateway', async () => (await api(`${origin}/_local/gateway/held`)).body, (held) => held.held_refunds === 1);
    expect(await ledgerRefunds()).toHaveLength(1);
    // Refunded at the gateway, still pending here: no read shows it yet.
    expect((await api(`${base}refunds`, { token: secret })).body.data).toEqual([]);
    await runtime.kill9();
    expect(await lost).toBeInstanceOf(Error);
    rmSync(holdFile);

    runtime = await runtime.restart();
    // Nothing settles it before its delay has passed.
    expect((await api(`${base}refunds`, { token: secret })).body.data).toEqual([]);
    const moved = await api(`${origin}/_local/clock`, { method: 'POST', body: { advance_seconds: 300 } });
    expect(moved.status, moved.text).toBe(200);

    const refunds = await until('the recovered refund', async () => (await api(`${base}refunds?order_id=${order.order_id}`, { token: secret })).body.data as any[], (data) => data.length > 0);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ status: 'completed', total: 4, reason: 'crash' });
    expect(await ledgerRefunds()).toHaveLength(1);
    expect((await api(order.url, { token: secret })).body).toMatchObject({ payment_status: 'completed', total_refunded: 4 });
    expect((await api(`${base}payments/${paymentId}`, { token: secret })).body).toMatchObject({ status: 'completed', total_refunded: 4 });

    // The rest is refundable exactly once more.
    const rest = await api(`${base}orders/${order.order_id}/refunds`, { method: 'POST', token: secret, body: {} });
    expect(rest.status, rest.text).toBe(201);
    expect(rest.body.total).toBe(6);
    expect(await ledgerRefunds()).toHaveLength(2);
    expect((await api(order.url, { token: secret })).body).toMatchObject({ payment_status: 'refunded', total_refunded: 10 });
    expect((await api(`${base}orders/${order.order_id}/refunds`, { method: 'POST', token: secret, body: {} })).status).toBe(422);
  } finally {
    if (existsSync(holdFile)) rmSync(holdFile);
    await runtime.stop();
  }
}, 180_000);
