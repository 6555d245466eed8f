/**
 * Invoice payments survive `kill -9` (commerce.md §9; the cart payment's recovery, with the
 * invoice in the cart's place). Two runs against a runtime with the manual clock:
 *
 * - deterministic: the test gateway holds the charge (CARTWHEEL_GATEWAY_HOLD_FILE) while the
 *   invoice is locked by its `initiated` payment, and the runtime is killed there. After the
 *   restart the invoice is still locked (409 to another attempt); once the clock passes the
 *   recovery window the sweep voids the charge's key and fails the payment, the invoice is open
 *   again, and it is then paid once: one charge, one order.
 * - random: payers pay published invoices with their links' tokens while the runtime is killed
 *   three times at random moments and restarted on the same data; a payer retries a step whose
 *   connection failed (so an invoice may be paid twice: 409 and 422 are fine answers). After the
 *   clock moves an hour: no payment `initiated`, no payment charged twice, every approved charge
 *   has exactly one order, and every invoice with an order is paid and names it.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CrashRun, pause, settle } from '../support/crash-run';
import { api, listAll, startRuntime, tempDataDir, type RuntimeProcess } from '../support/runtime-process';

const RATES = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } };

/** Polls `read` until `done` holds (or `timeoutMs` passes), answering the last value. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const by = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined as T);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > by) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)?.slice(0, 500)}`);
    await pause(50);
  }
}

/** Sets the account up (a product, no duplicate window) and answers a function that publishes an invoice and mints its link. */
async function setUp(base: string, secret: string) {
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
  expect((await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } })).status).toBe(201);
  return async (n: number): Promise<{ invoiceId: string; token: string }> => {
    const customer = { name: `Payer ${n}`, email: `payer${n}@example.test`, billing_address: { country: 'US', postal_code: '94107' } };
    const invoice = await api(`${base}invoices`, { method: 'POST', token: secret, body: { items: [{ product_id: 'ebook' }], customer, draft: false, meta: { n } } });
    if (invoice.status !== 201) throw new Error(`invoice → ${invoice.status} ${invoice.text}`);
    const link = await api(`${base}invoices/${invoice.body.invoice_id}/links`, { method: 'POST', token: secret });
    if (link.status !== 201) throw new Error(`link → ${link.status} ${link.text}`);
    return { invoiceId: invoice.body.invoice_id, token: link.body.token };
  };
}

it('settles an invoice payment whose runtime died before the charge: voided, failed, the invoice open and paid once afterwards', async () => {
  const dataDir = tempDataDir();
  const holdFile = join(dataDir, '..', `invoice-hold-${process.pid}-${Date.now()}`);
  let runtime: RuntimeProcess = await startRuntime({ dataDir, env: { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_GATEWAY_HOLD_FILE: holdFile, ...RATES } });
  const { api_url: base, tokens } = runtime.bootstrap;
  const secret = tokens.test_secret;
  const origin = runtime.url;
  try {
    const publish = await setUp(base, secret);
    const { invoiceId, token } = await publish(1);
    const charges = async () => ((await api(`${origin}/_local/gateway/charges`)).body.data as any[]).filter((charge) => charge.outcome === 'approved');

    writeFileSync(holdFile, 'hold');
    const lost = api(`${base}invoices/${invoiceId}/payments`, { method: 'POST', token, body: card }).catch((error: Error) => error);
    await until('the charge held in the gateway', async () => (await api(`${origin}/_local/gateway/held`)).body, (held) => held.held === 1);
    await runtime.kill9();
    expect(await lost).toBeInstanceOf(Error);
    rmSync(holdFile);
    runtime = await runtime.restart();

    // The payment holds the invoice until its lock lapses: another attempt is 409, nothing charged.
    const payments = (await api(`${base}invoices/${invoiceId}/payments`, { token: secret })).body.data;
    expect(payments.map((payment: any) => payment.status)).toEqual(['initiated']);
    const blocked = await api(`${base}invoices/${invoiceId}/payments`, { method: 'POST', token, body: card });
    expect(blocked.status, blocked.text).toBe(409);
    expect(await charges()).toEqual([]);

    // Past the recovery window the sweep fails it (the key voided) and frees the invoice.
    expect((await api(`${origin}/_local/clock`, { method: 'POST', body: { advance_seconds: 180 } })).status).toBe(200);
    await until('the payment failed by recovery', async () => (await api(`${base}invoices/${invoiceId}/payments`, { token: secret })).body.data, (data: any[]) => data[0]?.status === 'failed');
    expect((await api(`${base}invoices/${invoiceId}`, { token: secret })).body).toMatchObject({ open: true, payment_status: 'unpaid', total_payments: 0, order: null });

    const paid = await api(`${base}invoices/${invoiceId}/payments?expand=order`, { method: 'POST', token, body: card });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.order.meta).toEqual({ n: 1 });
    expect((await charges()).map((charge) => charge.payment_id)).toEqual([paid.body.payment_id]);
    const orders = await listAll(`${base}orders?limit=100`, secret);
    expect(orders.map((order) => order.order_id)).toEqual([paid.body.order.order_id]);
  } finally {
    rmSync(holdFile, { force: true });
    await runtime.stop();
  }
}, 240_000);

it('leaves exactly one order per charged invoice payment across random kill -9 restarts', async () => {
  const run = new CrashRun(await startRuntime({ env: { CARTWHEEL_CLOCK: 'manual', ...RATES } }));
  const { api_url: base, tokens } = run.runtime.bootstrap;
  const secret = tokens.test_secret;
  const origin = run.runtime.url;
  const PAYERS = 3;
  const KILLS = 3;
  try {
    const publish = await setUp(base, secret);
    const { counts, unexpected } = run;
    const payer = async (n: number) => {
      let round = 0;
      while (run.running) {
        let invoice: { invoiceId: string; token: string };
        try {
          invoice = await publish(n * 1000 + round++);
        } catch {
          // The runtime died while the merchant published: try the next one.
          if (!run.running) return;
          counts.connectionRetries++;
          await pause(20);
          continue;
        }
        counts.attempted++;
        const paid = await run.step(`${base}invoices/${invoice.invoiceId}/payments`, { method: 'POST', token: invoice.token, body: card });
        if (!paid) return;
        run.countPayment(paid);
      }
    };

    const payers = Array.from({ length: PAYERS }, (_, n) => payer(n));
    await run.killAndRestart(KILLS, 400, 1500);
    await run.stop(payers);
    expect((await api(`${origin}/_local/clock`, { method: 'POST', body: { advance_seconds: 3600 } })).status).toBe(200);

    let facts = { payments: [] as any[], orders: [] as any[], invoices: [] as any[], charges: [] as any[] };
    const violations = await settle(20_000, async () => {
      const [payments, orders, invoices, ledger] = await Promise.all([
        listAll(`${base}payments?limit=100`, secret),
        listAll(`${base}orders?limit=100`, secret),
        listAll(`${base}invoices?limit=100`, secret),
        api(`${origin}/_local/gateway/charges`),
      ]);
      const charges = ledger.body.data as any[];
      facts = { payments, orders, invoices, charges };
      const violations: string[] = [];
      for (const payment of payments.filter((p) => p.status === 'initiated')) violations.push(`payment ${payment.payment_id} is still initiated`);
      const seen = new Map<string, number>();
      for (const charge of charges) seen.set(charge.payment_id, (seen.get(charge.payment_id) ?? 0) + 1);
      for (const [paymentId, times] of seen) if (times > 1) violations.push(`payment ${paymentId} was charged ${times} times`);
      for (const charge of charges.filter((c) => c.outcome === 'approved')) {
        const ordersOf = orders.filter((o) => String(o.payment).endsWith(`/${charge.payment_id}`)).length;
        if (ordersOf !== 1) violations.push(`approved charge of payment ${charge.payment_id} has ${ordersOf} orders`);
      }
      for (const invoice of invoices) {
        const ordersOf = orders.filter((o) => o.invoice === invoice.url);
        if (ordersOf.length > 1) violations.push(`invoice ${invoice.invoice_id} has ${ordersOf.length} orders`);
        if (ordersOf.length === 1 && (invoice.payment_status !== 'completed' || invoice.order !== ordersOf[0].url)) violations.push(`invoice ${invoice.invoice_id} has an order but is ${invoice.payment_status}`);
        if (ordersOf.length === 0 && invoice.payment_status !== 'unpaid') violations.push(`invoice ${invoice.invoice_id} is ${invoice.payment_status} without an order`);
      }
      for (const answer of unexpected) violations.push(`a payer got an unexpected answer: ${answer}`);
      return violations;
    });
    console.log(
      `crash invoices: ${counts.kills} kills, ${counts.attempted} invoice payments attempted, ${counts.completed} completed (201), ${counts.inUse} answered 409, ${counts.alreadyPaid} answered 422; ` +
        `${facts.payments.length} payments, ${facts.orders.length} orders, ${facts.charges.filter((c) => c.outcome === 'approved').length} approved charges, ` +
        `${facts.invoices.filter((i) => i.payment_status === 'completed').length} of ${facts.invoices.length} invoices paid`,
    );
    expect(counts.kills).toBe(KILLS);
    expect(counts.completed, 'no invoice was paid: the test exercised nothing').toBeGreaterThan(0);
    expect(violations).toEqual([]);
  } finally {
    await run.runtime.stop();
  }
}, 240_000);
