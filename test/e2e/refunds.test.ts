/**
 * Refunds over HTTP against a real local runtime (commerce.md §7, issue 25 item 1): half an
 * order by items, the rest by amount, then nothing left (422); payment `refunded` and order
 * `payment_status` `refunded` at the full amount; the remainder of rounding on the final refund;
 * reads (cursor list and filters, one refund, the sub-collections under payments, orders and
 * customers, expansion); events; 30 concurrent refunds of 1.00 against a 10.00 payment (exactly
 * 10 succeed, the gateway's ledger shows 10); and isolation: another account, the other mode,
 * another shopper's limited token and the customer-scope token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeWithSecondAccount, type RuntimeProcess } from '../support/runtime-process';

const RATES = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };

let runtime: RuntimeProcess;
let base: string;
let account: string;
let secret: string;
let live: string;
let other: { account_id: string; tokens: { live_secret: string; test_secret: string } };

const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } };
const buyer = (email = 'ada@example.test') => ({ name: 'Ada Lee', email, billing_address: { country: 'US', postal_code: '94107' } });

async function shopper(): Promise<string> {
  const minted = await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.token;
}

/** A paid order of `items` made by a fresh shopper: the shopper's token, the payment and the order. */
async function paidOrder(items: Array<{ product_id: string; quantity: number }>, customer: Record<string, unknown> = buyer()) {
  const token = await shopper();
  const cart = await api(`${base}carts`, { method: 'POST', token, body: { items, customer } });
  expect(cart.status, cart.text).toBe(201);
  const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order`, { method: 'POST', token, body: card });
  expect(paid.status, paid.text).toBe(201);
  return { token, payment: paid.body, order: paid.body.order };
}

async function directPayment(total: number): Promise<any> {
  const paid = await api(`${base}payments`, { method: 'POST', token: secret, body: { currency: 'USD', total, customer: buyer('direct@example.test'), ...card } });
  expect(paid.status, paid.text).toBe(201);
  return paid.body;
}

const refund = (path: string, body: unknown, token = secret) => api(`${base}${path}`, { method: 'POST', token, body });

beforeAll(async () => {
  // A second account, made by the operator command while the runtime is stopped (as apps.test.ts does).
  ({ runtime, other: other } = await startRuntimeWithSecondAccount({ env: RATES }));
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  live = runtime.bootstrap.tokens.live_secret;
  const setup: Array<[string, unknown]> = [
    ['settings/tax', { rules: [{ country: 'US', state_prov: null, rate: 0.1 }] }],
    ['settings/payment', { duplicate_payment_timeout: 0 }],
    ['products', { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] }],
    ['products', { product_id: 'odd', name: 'Odd price', type: 'digital', prices: [{ currency: 'USD', price: 3.33 }] }],
    ['event_subscriptions', { event_type: 'refund:created_success', method: 'email', destination: 'refunds@example.test' }],
  ];
  for (const [path, body] of setup) {
    const answer = await api(`${base}${path}`, { method: 'POST', token: secret, body });
    expect(answer.status, `${path}: ${answer.text}`).toBeLessThan(300);
  }
}, 180_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

describe('refunding an order', () => {
  it('refunds half by items, then the rest by amount, then answers 422 once nothing is refundable', async () => {
    const { token, payment, order } = await paidOrder([{ product_id: 'ebook', quantity: 2 }]);
    expect(order).toMatchObject({ total: 41.8, tax: 3.8, payment_status: 'completed', total_refunded: 0 });

    const half = await refund(`orders/${order.order_id}/refunds`, { items: [{ item_id: 'ebook', quantity: 1 }], reason: 'Damaged', meta: { ticket: 7 } });
    expect(half.status, half.text).toBe(201);
    expect(half.headers.get('location')).toBe(half.body.url);
    expect(half.body).toMatchObject({
      object: 'refund', status: 'completed', success: true, reason: 'Damaged', is_chargeback: false, currency: 'USD',
      subtotal: 19, shipping: 0, tax: 1.9, total: 20.9, settlement_currency: 'USD', settlement_total: 20.9,
      items: [{ item_id: 'ebook', product_id: 'ebook', name: 'E-book', quantity: 1, subtotal: 19, tax: 1.9, total: 20.9 }],
      payment: payment.url, order: order.url, meta: { ticket: 7 }, test: true, account_id: account,
    });
    expect((await api(order.url, { token: secret })).body).toMatchObject({ payment_status: 'completed', total_refunded: 20.9 });
    expect((await api(payment.url, { token: secret })).body).toMatchObject({ status: 'completed', success: true, total_refunded: 20.9 });
    // The refunded unit is gone from what items may refund.
    const tooMany = await refund(`orders/${order.order_id}/refunds`, { items: [{ item_id: 'ebook', quantity: 2 }] });
    expect(tooMany.status, tooMany.text).toBe(400);
    expect(tooMany.body.error.meta).toMatchObject({ property: 'items[0].quantity', reason: 'out_of_range' });
    const above = await refund(`orders/${order.order_id}/refunds`, { total: 20.91 });
    expect(above.status).toBe(400);
    expect(above.body.error.meta).toMatchObject({ property: 'total', reason: 'out_of_range' });

    const rest = await refund(`orders/${order.order_id}/refunds`, { total: 20.9 });
    expect(rest.status, rest.text).toBe(201);
    expect(rest.body).toMatchObject({ status: 'completed', total: 20.9, subtotal: 19, tax: 1.9, items: [] });
    expect((await api(order.url, { token: secret })).body).toMatchObject({ payment_status: 'refunded', total_refunded: 41.8 });
    expect((await api(payment.url, { token: secret })).body).toMatchObject({ status: 'refunded', success: true, total_refunded: 41.8 });

    for (const body of [{}, { total: 1 }, { items: [{ item_id: 'ebook', quantity: 1 }] }]) {
      const again = await refund(`orders/${order.order_id}/refunds`, body);
      expect(again.status, again.text).toBe(422);
      expect(again.body.error.code).toBe('invalid_state');
    }
    const viaPayment = await refund(`payments/${payment.payment_id}/refunds`, {});
    expect(viaPayment.status).toBe(422);

    // Reads: the list and its filters, one refund, the sub-collections, expansion.
    const listed = await api(`${base}refunds?order_id=${order.order_id}`, { token: secret });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((r: any) => r.refund_id)).toEqual([half.body.refund_id, rest.body.refund_id]);
    expect(listed.body).toMatchObject({ object: 'list', next_page_after_item: null });
    expect((await api(`${base}refunds?payment_id=${payment.payment_id}&desc=true&limit=1`, { token: secret })).body).toMatchObject({ data: [{ refund_id: rest.body.refund_id }], next_page_after_item: rest.body.refund_id });
    expect((await api(`${base}refunds?customer_id=nobody`, { token: secret })).body.data).toEqual([]);
    expect((await api(`${base}refunds/${half.body.refund_id}?expand=order,payment`, { token: secret })).body).toMatchObject({ order: { object: 'order', payment_status: 'refunded' }, payment: { object: 'payment', status: 'refunded' } });
    const customerId = String(order.customer).split('/').pop();
    for (const path of [`orders/${order.order_id}/refunds`, `payments/${payment.payment_id}/refunds`, `customers/${customerId}/refunds`]) {
      const sub = await api(`${base}${path}`, { token: secret });
      expect(sub.status, `${path}: ${sub.text}`).toBe(200);
      expect(sub.body).toMatchObject({ object: 'list', total_items: 2, current_page: 1 });
      expect(sub.body.data.map((r: any) => r.refund_id)).toEqual([half.body.refund_id, rest.body.refund_id]);
    }
    for (const path of [`orders/${order.order_id}`, `payments/${payment.payment_id}`, `customers/${customerId}`]) {
      const expanded = await api(`${base}${path}?expand=refunds`, { token: secret });
      expect(expanded.body.refunds, path).toMatchObject({ object: 'list', total_items: 2 });
    }

    // The shopper who paid reads the order's refunds (receipt pages) and may not refund.
    expect((await api(`${base}orders/${order.order_id}/refunds`, { token })).body.total_items).toBe(2);
    expect((await api(`${base}refunds/${half.body.refund_id}`, { token })).status).toBe(200);
    expect((await api(`${order.url}?expand=refunds`, { token })).body.refunds).toMatchObject({ total_items: 2 });
    expect((await refund(`orders/${order.order_id}/refunds`, {}, token)).status).toBe(403);
    expect((await api(`${base}refunds`, { token })).status).toBe(403);

    // Each refund is an event (the subscription makes one per occurrence).
    await expect.poll(async () => (await api(`${base}events?type=refund:created_success&limit=100`, { token: secret })).body.data.filter((e: any) => e.data?.order === order.url || e.data?.refund_id === half.body.refund_id || e.data?.refund_id === rest.body.refund_id).length, { timeout: 30_000 }).toBe(2);
  });

  it('puts the rounding remainder on the final refund, by items and by amount', async () => {
    // 3 × 3.33 = 9.99, tax 0.999 → 1.00: 10.99 for three units, 3.663… each.
    const { order } = await paidOrder([{ product_id: 'odd', quantity: 3 }]);
    expect(order).toMatchObject({ subtotal: 9.99, tax: 1, total: 10.99 });
    const totals: number[] = [];
    for (let unit = 0; unit < 3; unit++) {
      const one = await refund(`orders/${order.order_id}/refunds`, { items: [{ item_id: 'odd', quantity: 1 }] });
      expect(one.status, one.text).toBe(201);
      totals.push(one.body.total);
      expect(Math.round((one.body.subtotal + one.body.tax) * 100)).toBe(Math.round(one.body.total * 100));
    }
    expect(totals).toEqual([3.66, 3.66, 3.67]);
    expect((await api(order.url, { token: secret })).body).toMatchObject({ payment_status: 'refunded', total_refunded: 10.99 });

    const byAmount = await paidOrder([{ product_id: 'odd', quantity: 3 }]);
    const parts: any[] = [];
    for (const total of [3, 3, 3]) {
      const part = await refund(`orders/${byAmount.order.order_id}/refunds`, { total });
      expect(part.status, part.text).toBe(201);
      parts.push(part.body);
    }
    const last = await refund(`orders/${byAmount.order.order_id}/refunds`, {});
    expect(last.status, last.text).toBe(201);
    parts.push(last.body);
    expect(parts.map((p) => p.total)).toEqual([3, 3, 3, 1.99]);
    const sum = (name: string) => Math.round(parts.reduce((total, p) => total + p[name] * 100, 0));
    expect([sum('subtotal'), sum('tax'), sum('total')]).toEqual([999, 100, 1099]);
  });

  it('refuses items on a payment, both forms at once, a total of 0 or with too many decimals', async () => {
    const { payment, order } = await paidOrder([{ product_id: 'ebook', quantity: 1 }]);
    const cases: Array<[string, unknown, string, string?]> = [
      [`payments/${payment.payment_id}/refunds`, { items: [{ item_id: 'ebook', quantity: 1 }] }, 'items', 'not_allowed'],
      [`orders/${order.order_id}/refunds`, { items: [{ item_id: 'ebook', quantity: 1 }], total: 1 }, 'total', 'conflict'],
      [`orders/${order.order_id}/refunds`, { total: 0 }, 'total', 'out_of_range'],
      [`orders/${order.order_id}/refunds`, { total: 1.001 }, 'total', 'precision'],
      [`orders/${order.order_id}/refunds`, { items: [{ item_id: 'nope', quantity: 1 }] }, 'items[0].item_id', 'not_found'],
    ];
    for (const [path, body, property, reason] of cases) {
      const answer = await refund(path, body);
      expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).toBe(400);
      expect(answer.body.error.meta).toMatchObject({ property, ...(reason ? { reason } : {}) });
    }
    expect((await api(order.url, { token: secret })).body.total_refunded).toBe(0);
  });
});

describe('refunding a direct payment', () => {
  it('refunds by amount, then in full; the payment becomes refunded', async () => {
    const payment = await directPayment(10);
    const part = await refund(`payments/${payment.payment_id}/refunds`, { total: 4 });
    expect(part.status, part.text).toBe(201);
    expect(part.body).toMatchObject({ total: 4, subtotal: 4, order: null, payment: payment.url });
    const full = await refund(`payments/${payment.payment_id}/refunds`, {});
    expect(full.body).toMatchObject({ total: 6 });
    expect((await api(payment.url, { token: secret })).body).toMatchObject({ status: 'refunded', total_refunded: 10 });
  });

  it('lets exactly 10 of 30 concurrent refunds of 1.00 against a 10.00 payment succeed', async () => {
    const payment = await directPayment(10);
    const answers = await Promise.all(Array.from({ length: 30 }, () => refund(`payments/${payment.payment_id}/refunds`, { total: 1 })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201), answers.filter((a) => a.status !== 201 && a.status !== 422).map((a) => a.text).join('\n')).toHaveLength(10);
    expect(statuses.filter((status) => status === 422)).toHaveLength(20);
    for (const answer of answers.filter((a) => a.status === 422)) expect(answer.body.error.code).toBe('invalid_state');
    expect((await api(payment.url, { token: secret })).body).toMatchObject({ status: 'refunded', total_refunded: 10 });
    const ledger = await api(`${runtime.url}/_local/gateway/charges`);
    const refunds = ledger.body.data.filter((entry: any) => entry.kind === 'refund' && entry.payment_id === payment.payment_id);
    expect(refunds).toHaveLength(10);
    expect(refunds.every((entry: any) => entry.outcome === 'refunded' && entry.amount === 1)).toBe(true);
    expect((await api(`${base}payments/${payment.payment_id}/refunds`, { token: secret })).body.total_items).toBe(10);
  }, 120_000);
});

describe('isolation', () => {
  it("keeps refunds to their account, mode, shopper and customer", async () => {
    const { order, payment } = await paidOrder([{ product_id: 'ebook', quantity: 1 }], buyer('iso@example.test'));
    const made = await refund(`orders/${order.order_id}/refunds`, { total: 5 });
    expect(made.status, made.text).toBe(201);
    const refundId = made.body.refund_id;
    const reads = [`refunds/${refundId}`, `orders/${order.order_id}/refunds`, `payments/${payment.payment_id}/refunds`];

    // Another account: nothing exists.
    for (const token of [other.tokens.test_secret, other.tokens.live_secret]) {
      for (const path of reads) expect((await api(`${base}${path}`, { token })).status, path).toBe(404);
      expect((await api(`${base}refunds`, { token })).body.data.map((r: any) => r.refund_id)).not.toContain(refundId);
      expect((await refund(`orders/${order.order_id}/refunds`, {}, token)).status).toBe(404);
      expect((await refund(`payments/${payment.payment_id}/refunds`, {}, token)).status).toBe(404);
    }
    // The other mode: named as such, never read or refunded.
    for (const path of reads) {
      const answer = await api(`${base}${path}`, { token: live });
      expect(answer.status, `${path}: ${answer.text}`).toBe(400);
      expect(answer.body.error.code).toBe('token_type_mismatch');
    }
    expect((await refund(`orders/${order.order_id}/refunds`, {}, live)).body.error.code).toBe('token_type_mismatch');
    expect((await api(`${base}refunds`, { token: live })).body.data).toEqual([]);

    // Another shopper's limited token: 404 for every read, 403 for creating and listing.
    const stranger = await shopper();
    for (const path of reads) expect((await api(`${base}${path}`, { token: stranger })).status, path).toBe(404);
    expect((await refund(`orders/${order.order_id}/refunds`, {}, stranger)).status).toBe(403);
    expect((await api(`${base}refunds`, { token: stranger })).status).toBe(403);

    // A customer-scope token reads its own refunds, and not another customer's.
    const customerId = String(order.customer).split('/').pop();
    expect((await api(`${base}customers/${customerId}`, { method: 'POST', token: secret, body: { username: 'iso', password: 'portal password' } })).status).toBe(200);
    const signedIn = await api(`${base}customers/login?account_id=${account}&test=true&expand=auth`, { method: 'POST', body: { username: 'iso', password: 'portal password' } });
    expect(signedIn.status, signedIn.text).toBe(200);
    const portal = signedIn.body.auth.token;
    const mine = await api(`${base}customers/me/refunds`, { token: portal });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data.map((r: any) => r.refund_id)).toEqual([refundId]);
    expect((await api(`${base}refunds/${refundId}`, { token: portal })).status).toBe(200);
    const others = await paidOrder([{ product_id: 'ebook', quantity: 1 }], buyer('someone@example.test'));
    const theirs = await refund(`orders/${others.order.order_id}/refunds`, { total: 1 });
    expect((await api(`${base}refunds/${theirs.body.refund_id}`, { token: portal })).status).toBe(404);
    expect((await api(`${base}orders/${others.order.order_id}/refunds`, { token: portal })).status).toBe(404);
  });
});
