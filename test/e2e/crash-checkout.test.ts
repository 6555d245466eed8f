/**
 * Checkouts survive `kill -9` (commerce issue item 8). Shoppers run full checkouts (limited
 * token, cart with a customer, card 4242424242424242) against a runtime with the manual clock
 * while the test kills it with SIGKILL three times at random moments and restarts it on the
 * same data directory and port; shoppers retry a step whose connection failed, as a real
 * client does (so a cart's payment may be POSTed again: 409 and 422 are fine answers). Then
 * the clock moves past every recovery window (one hour) and, read back over HTTP (payments,
 * orders, the outbox and the test gateway's ledger of charges), the outcome must be:
 *   - no payment stays `initiated`;
 *   - every charge the gateway approved has exactly one order and one confirmation email;
 *   - no payment id was charged twice;
 *   - every completed payment has an approved charge behind it.
 * The counts are printed. The ledger page is `GET /_local/gateway/charges`
 * (`{data:[{account_id, mode, payment_id, outcome, amount, currency, date}]}`).
 */
import { expect, it } from 'vitest';
import { CrashRun, settle } from '../support/crash-run';
import { api, listAll, startRuntime } from '../support/runtime-process';

const SHOPPERS = 4;
const KILLS = 3;
/** How long, after the clock moved, recovery may take before the invariants must hold. */
const SETTLE_MS = 20_000;

const env = { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } };

interface Charge {
  account_id: string;
  mode: string;
  payment_id: string;
  outcome: string;
  amount: number;
  currency: string;
  date: string;
}

/** An order's payment id (`payment_id`, or the last segment of its `payment` URL). */
const paymentOf = (order: any): string => order.payment_id ?? String(order.payment).split('/').pop();

it('leaves exactly one order and one email per charged payment across kill -9 restarts', async () => {
  const run = new CrashRun(await startRuntime({ env }));
  const { api_url: base, account_id: account, tokens } = run.runtime.bootstrap;
  const secret = tokens.test_secret;
  const origin = run.runtime.url;
  try {
    expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
    expect(product.status, product.text).toBe(201);

    const { counts, unexpected } = run;
    const shopper = async (n: number) => {
      while (run.running) {
        const minted = await run.step(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret });
        if (!minted) return;
        if (minted.status !== 201) {
          unexpected.push(`mint → ${minted.status} ${minted.text}`);
          continue;
        }
        const token = minted.body.token as string;
        const customer = { name: `Shopper ${n}`, email: `shopper${n}@example.test`, billing_address: { country: 'US', postal_code: '94107' } };
        const cart = await run.step(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'ebook', quantity: 1 }], customer } });
        if (!cart) return;
        if (cart.status !== 201) {
          unexpected.push(`cart → ${cart.status} ${cart.text}`);
          continue;
        }
        counts.attempted++;
        const paid = await run.step(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token, body: card });
        if (!paid) return;
        // A re-POST after a lost connection: the first attempt holds the cart's lock (409) or paid it (422).
        run.countPayment(paid);
      }
    };

    const shoppers = Array.from({ length: SHOPPERS }, (_, n) => shopper(n));
    await run.killAndRestart(KILLS, 300, 1500, (runtime) => expect(runtime.bootstrap.api_url).toBe(base));
    // Let the shoppers finish a few checkouts on the last runtime before stopping them.
    await run.stop(shoppers);

    const moved = await api(`${origin}/_local/clock`, { method: 'POST', body: { advance_seconds: 3600 } });
    expect(moved.status, moved.text).toBe(200);

    // Poll until recovery made the facts consistent, or the settle time is over.
    let facts = { payments: [] as any[], orders: [] as any[], emails: [] as any[], charges: [] as Charge[], ledger: 'not read' };
    const violations = await settle(SETTLE_MS, async () => {
      const [payments, orders, outbox, ledger] = await Promise.all([
        listAll(`${base}payments?limit=100`, secret),
        listAll(`${base}orders?limit=100`, secret),
        api(`${origin}/_local/outbox`),
        api(`${origin}/_local/gateway/charges`),
      ]);
      const emails = (outbox.body?.data ?? []).filter((m: any) => m.kind === 'order_confirmation');
      const ledgerOk = ledger.status === 200 && Array.isArray(ledger.body?.data);
      const charges: Charge[] = ledgerOk ? ledger.body.data.filter((c: Charge) => c.account_id === account) : [];
      facts = { payments, orders, emails, charges, ledger: ledgerOk ? 'ok' : `GET /_local/gateway/charges answered ${ledger.status}: ${ledger.text.slice(0, 200)}` };

      const violations: string[] = [];
      if (!ledgerOk) violations.push(`the test gateway's ledger cannot be read (${facts.ledger}), so no charge can be checked`);
      for (const payment of payments.filter((p) => p.status === 'initiated')) violations.push(`payment ${payment.payment_id} is still initiated`);
      const seen = new Map<string, number>();
      for (const charge of charges) seen.set(charge.payment_id, (seen.get(charge.payment_id) ?? 0) + 1);
      for (const [paymentId, times] of seen) if (times > 1) violations.push(`payment ${paymentId} was charged ${times} times`);
      for (const charge of charges.filter((c) => c.outcome === 'approved')) {
        const ordersOf = orders.filter((o) => paymentOf(o) === charge.payment_id).length;
        if (ordersOf !== 1) violations.push(`approved charge of payment ${charge.payment_id} has ${ordersOf} orders`);
      }
      // What can be checked without the ledger: one order per payment, one email per order.
      const ordersByPayment = new Map<string, number>();
      for (const order of orders) ordersByPayment.set(paymentOf(order), (ordersByPayment.get(paymentOf(order)) ?? 0) + 1);
      for (const [paymentId, count] of ordersByPayment) if (count > 1) violations.push(`payment ${paymentId} has ${count} orders`);
      for (const order of orders) {
        const sent = emails.filter((m: any) => m.order_id === order.order_id).length;
        if (sent !== 1) violations.push(`order ${order.order_id} (payment ${paymentOf(order)}) has ${sent} confirmation emails`);
      }
      if (ledgerOk) {
        const approved = new Set(charges.filter((c) => c.outcome === 'approved').map((c) => c.payment_id));
        for (const payment of payments.filter((p) => p.status === 'completed' && !approved.has(p.payment_id))) {
          violations.push(`completed payment ${payment.payment_id} has no approved charge in the ledger`);
        }
      }
      for (const answer of unexpected) violations.push(`a shopper got an unexpected answer: ${answer}`);
      return violations;
    });

    const byStatus = (status: string) => facts.payments.filter((p) => p.status === status).length;
    console.log(
      [
        `crash checkout: ${counts.kills} kills, ${counts.attempted} checkouts attempted, ${counts.completed} completed for the shopper (201)`,
        `  shoppers: ${counts.connectionRetries} steps retried after a lost connection, ${counts.inUse} re-POSTs answered 409, ${counts.alreadyPaid} answered 422`,
        `  payments: ${facts.payments.length} (${byStatus('completed')} completed, ${byStatus('failed')} failed, ` +
          `${facts.payments.filter((p) => p.status === 'failed' && p.error_code === 'bank_network_timeout').length} failed by recovery, ${byStatus('initiated')} initiated)`,
        `  orders: ${facts.orders.length}, confirmation emails: ${facts.emails.length}, ledger: ${facts.ledger === 'ok' ? `${facts.charges.length} charges (${facts.charges.filter((c) => c.outcome === 'approved').length} approved)` : facts.ledger}`,
        ...(violations.length ? [`  violations (${violations.length}):`, ...violations.slice(0, 20).map((v) => `    ${v}`)] : []),
      ].join('\n'),
    );
    expect(counts.kills).toBe(KILLS);
    expect(counts.completed, 'no checkout completed: the test exercised nothing').toBeGreaterThan(0);
    expect(violations, `invariants still broken ${SETTLE_MS / 1000} s after the clock moved one hour`).toEqual([]);
  } finally {
    await run.runtime.stop();
  }
}, 240_000); // the body takes ~50 s alone; a loaded 2-core CI machine can double it
