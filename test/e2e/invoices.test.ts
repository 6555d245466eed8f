/**
 * Invoices end to end over HTTP against a real local runtime (commerce.md §9, §4.3, §5.1, §5.2,
 * §14; auth.md §3.3): a merchant drafts an invoice with product and custom lines, a price
 * override and a promotion code, publishes it (the invoice email lands in the outbox with its pay
 * link), mints a pay link, and the link's limited token reads it, changes what it may, and pays
 * it: the order exists with the invoice's meta and lines, the invoice is paid (`total_payments`,
 * `total_remaining`, `order`), the code's use is counted, the events are delivered, and paying
 * again is 422 with nothing charged. The §9.2 state rules (publish, cancel, delete, updates) hold
 * and refused writes change nothing; another account, the other mode and another shopper's
 * limited token reach nothing, while the invoice's customer reads it in customer scope.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, startRuntimeWithSecondAccount, type RuntimeProcess } from '../support/runtime-process';

const RATES = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };

let runtime: RuntimeProcess;
let receiver: Receiver;
let base: string;
let account: string;
let secret: string;
let live: string;
let other: { account_id: string; tokens: { live_secret: string; test_secret: string } };

const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } };
const buyer = (email = 'ada@example.test') => ({ name: 'Ada Lee', email, billing_address: { country: 'US', postal_code: '94107' } });

/** A PDF's text, read back with poppler's pdftotext. */
function pdfText(pdf: Buffer): string {
  const folder = mkdtempSync(join(tmpdir(), 'cartwheel-invoice-pdf-'));
  try {
    writeFileSync(join(folder, 'invoice.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', join(folder, 'invoice.pdf'), '-'], { encoding: 'utf8' });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const post = (path: string, body: unknown = {}, token = secret) => api(`${base}${path}`, { method: 'POST', token, body });
const get = (path: string, token = secret) => api(`${base}${path}`, { token });

/** A new draft invoice with one e-book line for `email`. */
async function draft(body: Record<string, unknown> = {}, email = 'ada@example.test') {
  const made = await post('invoices', { items: [{ product_id: 'ebook', quantity: 1 }], customer: buyer(email), ...body });
  expect(made.status, made.text).toBe(201);
  return made.body;
}

/** A published invoice and a pay link's token for it. */
async function published(body: Record<string, unknown> = {}, email?: string) {
  const invoice = await draft({ ...body, draft: false }, email);
  expect(invoice.open).toBe(true);
  const link = await post(`invoices/${invoice.invoice_id}/links`);
  expect(link.status, link.text).toBe(201);
  return { invoice, token: link.body.token as string };
}

/** The messages of the outbox sent to `to`. */
async function outboxFor(to: string): Promise<Array<{ message_id: string; kind: string; subject: string; to: string }>> {
  return (await api(`${runtime.url}/_local/outbox`)).body.data.filter((message: { to: string }) => message.to === to);
}

/** The test gateway's charges. */
async function chargeCount(): Promise<number> {
  const charges = await api(`${runtime.url}/_local/gateway/charges`);
  return charges.body.data.length;
}

beforeAll(async () => {
  receiver = await startReceiver();
  ({ runtime, other } = await startRuntimeWithSecondAccount({ env: RATES }));
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  live = runtime.bootstrap.tokens.live_secret;
  expect((await post('settings/tax', { rules: [{ country: 'US', state_prov: null, rate: 0.1 }] })).status).toBe(200);
  expect((await post('settings/payment', { duplicate_payment_timeout: 0, currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.5 } })).status).toBe(200);
  expect((await post('settings/technical', { invoice_payment_url: 'https://shop.example.test/pay?invoice={{invoice_id}}&token={{token}}' })).status).toBe(200);
  for (const [product_id, price] of [['ebook', 20], ['course', 100]] as const) {
    const created = await post('products', { product_id, name: `The ${product_id}`, type: 'digital', prices: [{ currency: 'USD', price }] });
    expect(created.status, created.text).toBe(201);
  }
  const promotion = await post('promotions', { promotion_id: 'tenoff', name: 'Ten off', code: 'TENOFF', discount_type: 'percent', discount_percent: 0.1 });
  expect(promotion.status, promotion.text).toBe(201);
  for (const type of ['invoice:created', 'invoice:paid', 'order:created']) {
    const subscribed = await post('event_subscriptions', { event_type: type, method: 'http', destination: `${receiver.url}/${type.replace(':', '-')}`, signature_key: 'invoices-signing-key-0123' });
    expect(subscribed.status, subscribed.text).toBe(201);
  }
}, 180_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
  await receiver.close();
});

describe('an invoice from draft to paid', () => {
  it('is drafted with product and custom lines, an override and a code, published with its email, and paid with the link token', async () => {
    const made = await post('invoices?expand=items.product', {
      items: [
        { product_id: 'ebook', quantity: 2, meta: { edition: 'signed' } },
        { product_id: 'course', quantity: 1, price: 80 },
        { name: 'Setup call', type: 'service', price: 50, quantity: 1, meta: { hours: 1 } },
      ],
      customer: buyer('payer@example.test'),
      promotion_code: 'tenoff',
      date_due: '2026-12-31',
      meta: { po_number: 'PO-77' },
    });
    expect(made.status, made.text).toBe(201);
    const invoice = made.body;
    expect(invoice).toMatchObject({ object: 'invoice', draft: true, open: false, payment_status: 'unpaid', date_published: null, promotion_code: 'TENOFF', currency: 'USD', total_payments: 0 });
    expect(invoice.date_due).toBe('2026-12-31T23:59:59Z');
    const [ebook, course, custom] = invoice.items;
    // The code takes 10 % of the product lines only; the override is the course's price, shown as its reference.
    expect(ebook).toMatchObject({ item_id: 'ebook', product_id: 'ebook', quantity: 2, price_original: 20, subtotal_original: 40, discount: 4, subtotal: 36, reference_price: null, meta: { edition: 'signed' } });
    expect(ebook.product).toMatchObject({ object: 'product', product_id: 'ebook' });
    expect(course).toMatchObject({ product_id: 'course', price_original: 80, discount: 8, subtotal: 72, reference_price: 80, reference_currency: 'USD' });
    expect(custom).toMatchObject({ product_id: null, product: null, name: 'Setup call', type: 'service', price_original: 50, discount: 0, subtotal: 50 });
    expect(custom.item_id).toMatch(/^[0-9A-Z]{12}$/);
    expect(invoice).toMatchObject({ subtotal: 158, discount: 12, tax: 15.8, total: 173.8, total_remaining: 173.8, items_count: 3 });

    // A draft cannot be paid, and publishing needs it to be a draft.
    const early = await post(`invoices/${invoice.invoice_id}/payments`, card);
    expect(early.status, early.text).toBe(422);
    expect(early.body.error.code).toBe('invalid_state');
    const publishedNow = await post(`invoices/${invoice.invoice_id}/publish`);
    expect(publishedNow.status, publishedNow.text).toBe(200);
    expect(publishedNow.body).toMatchObject({ draft: false, open: true, payment_status: 'unpaid' });
    expect(publishedNow.body.date_published).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await post(`invoices/${invoice.invoice_id}/publish`)).body.error.code).toBe('invalid_state');

    // The invoice email, once, with a pay link that works.
    await expect.poll(async () => (await outboxFor('payer@example.test')).length, { timeout: 15_000 }).toBe(1);
    const [email] = await outboxFor('payer@example.test');
    expect(email).toMatchObject({ kind: 'invoice' });
    expect(email!.subject).toContain(invoice.invoice_id);
    const text = (await api(`${runtime.url}/_local/outbox/${email!.message_id}.txt`)).text;
    expect(text).toContain('Setup call');
    expect(text).toContain('$173.80');
    const emailedToken = /token=([^&\s]+)/.exec(text)?.[1];
    expect(emailedToken).toMatch(/^lt\.test\./);
    expect((await get(`invoices/${invoice.invoice_id}`, decodeURIComponent(emailedToken!))).status).toBe(200);

    // The link: a limited token bound to the invoice, and the filled template.
    const link = await post(`invoices/${invoice.invoice_id}/links`);
    expect(link.status, link.text).toBe(201);
    expect(link.body).toMatchObject({ object: 'invoice_link', invoice_id: invoice.invoice_id, expires_in_seconds: 1209600 });
    expect(link.body.link_url).toBe(`https://shop.example.test/pay?invoice=${invoice.invoice_id}&token=${encodeURIComponent(link.body.token)}`);
    const token: string = link.body.token;
    const auth = await get('auths/me', token);
    expect(auth.body).toMatchObject({ type: 'limited', bindings_count: 1 });

    // The link's token reads the invoice and changes only what it may.
    expect((await get(`invoices/${invoice.invoice_id}`, token)).body.total).toBe(173.8);
    const changed = await post(`invoices/${invoice.invoice_id}`, { meta: { po_number: 'PO-77', note: 'paid by card' }, customer: { phone: '555-0100' } }, token);
    expect(changed.status, changed.text).toBe(200);
    const refused = await post(`invoices/${invoice.invoice_id}`, { items: [{ product_id: 'ebook', quantity: 9 }] }, token);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_permissions');
    expect((await post(`invoices/${invoice.invoice_id}/cancel`, {}, token)).status).toBe(403);

    // Paid with the link's token: one charge, the order with the invoice's meta and lines.
    const chargesBefore = await chargeCount();
    const paid = await post(`invoices/${invoice.invoice_id}/payments?expand=order,invoice`, card, token);
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({ status: 'completed', total: 173.8, cart: null });
    const order = paid.body.order;
    expect(order).toMatchObject({ payment_status: 'completed', total: 173.8, discount: 12, promotion_code: 'TENOFF', cart: null, invoice: `${base}invoices/${invoice.invoice_id}`, meta: { po_number: 'PO-77', note: 'paid by card' } });
    expect(order.items.map((item: { product_id: string | null; meta: unknown; reference_price: number | null; product: string | null }) => [item.product_id, item.meta, item.reference_price, item.product === null])).toEqual([
      ['ebook', { edition: 'signed' }, null, false],
      ['course', null, 80, false],
      [null, { hours: 1 }, null, true],
    ]);
    expect(paid.body.invoice).toMatchObject({ open: false, payment_status: 'completed', total_payments: 173.8, total_remaining: 0, order: `${base}orders/${order.order_id}` });
    expect(await chargeCount()).toBe(chargesBefore + 1);
    // The payer reads its order and payment; the invoice lists the payment.
    expect((await get(`orders/${order.order_id}`, token)).status).toBe(200);
    expect((await get(`payments/${paid.body.payment_id}`, token)).body.invoice).toBe(`${base}invoices/${invoice.invoice_id}`);
    const payments = await get(`invoices/${invoice.invoice_id}/payments`, token);
    expect(payments.body).toMatchObject({ object: 'list', total_items: 1 });
    expect((await get('promotions/tenoff')).body.uses).toBe(1);

    // Paying again is 422, and charges nothing.
    const again = await post(`invoices/${invoice.invoice_id}/payments`, card, token);
    expect(again.status, again.text).toBe(422);
    expect(again.body.error.code).toBe('invalid_state');
    expect(await chargeCount()).toBe(chargesBefore + 1);
    // A paid invoice is final.
    for (const [path, body] of [[`invoices/${invoice.invoice_id}`, { meta: null }], [`invoices/${invoice.invoice_id}/cancel`, {}]] as const) {
      expect((await post(path, body)).body.error.code, path).toBe('invalid_state');
    }
    expect((await api(`${base}invoices/${invoice.invoice_id}`, { method: 'DELETE', token: secret })).status).toBe(422);

    // The printable invoice (Accept: application/pdf), readable with the pay link's token: the
    // lines, the code, the totals, the payment and nothing left to pay.
    for (const reader of [secret, token]) {
      const pdf = await fetch(`${base}invoices/${invoice.invoice_id}`, { headers: { Authorization: `Bearer ${reader}`, Accept: 'application/pdf' } });
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      const text = pdfText(Buffer.from(await pdf.arrayBuffer()));
      for (const expected of ['Invoice', invoice.invoice_id, 'Paid', 'TENOFF', '173.80', 'Remaining']) expect(text, expected).toContain(expected);
    }
    expect((await get(`invoices/${invoice.invoice_id}`, token)).headers.get('content-type')).toContain('application/json');

    // The order confirmation goes to the invoice's customer too.
    await expect.poll(async () => (await outboxFor('payer@example.test')).filter((message) => message.kind === 'order_confirmation').length, { timeout: 15_000 }).toBe(1);

    // Events: invoice:created, invoice:paid, order:created.
    const [created] = await receiver.receivedAt('/invoice-created', 1, 20_000);
    expect(JSON.parse(created!.body.toString('utf8')).data).toMatchObject({ object: 'invoice', invoice_id: invoice.invoice_id, draft: true });
    const paidEvents = await receiver.receivedAt('/invoice-paid', 1, 20_000);
    expect(JSON.parse(paidEvents[0]!.body.toString('utf8')).data).toMatchObject({ invoice_id: invoice.invoice_id, payment_status: 'completed', total_remaining: 0 });
    const orders = (await receiver.receivedAt('/order-created', 1, 20_000)).map((request) => JSON.parse(request.body.toString('utf8')).data);
    expect(orders.map((data) => data.order_id)).toContain(order.order_id);
  });

  it('refuses a declined card and leaves the invoice open to pay again', async () => {
    const { invoice, token } = await published({}, 'declined@example.test');
    const declined = await post(`invoices/${invoice.invoice_id}/payments`, { payment_method: { ...card.payment_method, data: { ...card.payment_method.data, number: '4000000000000002' } } }, token);
    expect(declined.status, declined.text).toBe(402);
    expect(declined.body.error.meta.payment).toMatchObject({ status: 'failed', invoice: `${base}invoices/${invoice.invoice_id}` });
    expect((await get(`invoices/${invoice.invoice_id}`)).body).toMatchObject({ open: true, payment_status: 'unpaid', total_payments: 0 });
    const paid = await post(`invoices/${invoice.invoice_id}/payments`, card, token);
    expect(paid.status, paid.text).toBe(201);
    expect((await get(`invoices/${invoice.invoice_id}/payments`)).body.total_items).toBe(2);
    const expanded = await get(`invoices/${invoice.invoice_id}?expand=payments,order`);
    expect(expanded.body.payments.data.map((p: { status: string }) => p.status)).toEqual(['failed', 'completed']);
    expect(expanded.body.order).toMatchObject({ object: 'order', invoice: `${base}invoices/${invoice.invoice_id}` });
  });

  it('checks a promotion code when it is applied and again at payment', async () => {
    const unknown = await post('invoices', { items: [{ product_id: 'ebook' }], promotion_code: 'NOPE' });
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_promotion_code', meta: { property: 'promotion_code', reason: 'not_found' } });
    const customOnly = await post('invoices', { items: [{ name: 'Consulting', type: 'service', price: 10 }], promotion_code: 'TENOFF' });
    expect(customOnly.body.error).toMatchObject({ code: 'invalid_promotion_code', meta: { reason: 'not_applicable' } });

    const limited = await post('promotions', { promotion_id: 'once', name: 'Once', code: 'ONCE', discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 5 }], max_uses: 1 });
    expect(limited.status, limited.text).toBe(201);
    const first = await published({ promotion_code: 'once' }, 'once-1@example.test');
    const second = await published({ promotion_code: 'once' }, 'once-2@example.test');
    expect(first.invoice).toMatchObject({ discount: 5, total: 16.5 });
    expect((await post(`invoices/${first.invoice.invoice_id}/payments`, card, first.token)).status).toBe(201);
    const used = await post(`invoices/${second.invoice.invoice_id}/payments`, card, second.token);
    expect(used.status, used.text).toBe(400);
    expect(used.body.error).toMatchObject({ code: 'invalid_promotion_code', meta: { reason: 'max_uses_reached' } });
    expect((await get(`invoices/${second.invoice.invoice_id}`)).body).toMatchObject({ open: true, payment_status: 'unpaid' });
    // Without the code it is paid at the full price.
    expect((await post(`invoices/${second.invoice.invoice_id}`, { promotion_code: null })).body.total).toBe(22);
    const paid = await post(`invoices/${second.invoice.invoice_id}/payments`, card, second.token);
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.total).toBe(22);
  });

  it('re-prices on a currency change, converting overrides and custom prices', async () => {
    const { invoice, token } = await published({ items: [{ product_id: 'ebook', price: 30 }, { item_id: 'fee', name: 'Fee', type: 'service', price: 4 }] }, 'euro@example.test');
    expect(invoice.items.map((item: { item_id: string }) => item.item_id)).toEqual(['ebook', 'fee']);
    const euros = await post(`invoices/${invoice.invoice_id}`, { currency: 'eur' }, token);
    expect(euros.status, euros.text).toBe(200);
    expect(euros.body.currency).toBe('EUR');
    expect(euros.body.items.map((item: { price_original: number }) => item.price_original)).toEqual([15, 2]);
    expect(euros.body.items[0]).toMatchObject({ reference_price: 30, reference_currency: 'USD' });
  });
});

describe('invoice states (§9.2)', () => {
  it('publishes, cancels and deletes only from the states that allow it', async () => {
    // Publishing needs items and a customer email (400, nothing changes).
    const empty = await post('invoices', {});
    expect(empty.status, empty.text).toBe(201);
    const noItems = await post(`invoices/${empty.body.invoice_id}/publish`);
    expect(noItems.status).toBe(400);
    expect(noItems.body.error.meta).toMatchObject({ property: 'items', reason: 'required' });
    const noEmail = await post('invoices', { items: [{ product_id: 'ebook' }], draft: false });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body.error.meta).toMatchObject({ property: 'customer.email' });
    expect((await get(`invoices/${empty.body.invoice_id}`)).body).toMatchObject({ draft: true, date_published: null });

    // A draft: cancel is 422; delete is 204 and it is gone.
    const drafted = await draft({}, 'states@example.test');
    expect((await post(`invoices/${drafted.invoice_id}/cancel`)).body.error.code).toBe('invalid_state');
    expect((await api(`${base}invoices/${drafted.invoice_id}`, { method: 'DELETE', token: secret })).status).toBe(204);
    expect((await get(`invoices/${drafted.invoice_id}`)).status).toBe(404);

    // Published by an update with draft: false; open: every field for the merchant, no delete, no way back to draft.
    const open = await draft({}, 'states@example.test');
    const publishedByUpdate = await post(`invoices/${open.invoice_id}`, { draft: false, items: [{ product_id: 'ebook', quantity: 3 }] });
    expect(publishedByUpdate.status, publishedByUpdate.text).toBe(200);
    expect(publishedByUpdate.body).toMatchObject({ draft: false, open: true, items_quantity: 3 });
    expect((await post(`invoices/${open.invoice_id}`, { draft: true })).body.error.code).toBe('invalid_state');
    expect((await api(`${base}invoices/${open.invoice_id}`, { method: 'DELETE', token: secret })).body.error.code).toBe('invalid_state');
    await expect.poll(async () => (await outboxFor('states@example.test')).filter((message) => message.kind === 'invoice').length, { timeout: 15_000 }).toBe(1);

    // Cancelled: final. Not paid, not changed, not deleted, not cancelled again.
    const cancelled = await post(`invoices/${open.invoice_id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ draft: false, open: false, payment_status: 'cancelled' });
    const before = (await get(`invoices/${open.invoice_id}`)).text;
    expect((await post(`invoices/${open.invoice_id}/cancel`)).body.error.code).toBe('invalid_state');
    expect((await post(`invoices/${open.invoice_id}`, { meta: { late: true } })).body.error.code).toBe('invalid_state');
    expect((await post(`invoices/${open.invoice_id}/payments`, card)).body.error.code).toBe('invalid_state');
    expect((await api(`${base}invoices/${open.invoice_id}`, { method: 'DELETE', token: secret })).status).toBe(422);
    expect((await get(`invoices/${open.invoice_id}`)).text).toBe(before);

    // The list filters by state.
    const cancelledList = await get('invoices?payment_status=cancelled');
    expect(cancelledList.body.data.map((listed: { invoice_id: string }) => listed.invoice_id)).toContain(open.invoice_id);
    const drafts = await get('invoices?draft=true&limit=100');
    expect(drafts.body.data.every((listed: { draft: boolean }) => listed.draft)).toBe(true);
    expect((await get('invoices?payment_status=late')).status).toBe(400);
  });
});

describe('isolation', () => {
  it('keeps invoices to their account, mode, link token and customer', async () => {
    const { invoice, token } = await published({}, 'iso@example.test');
    const id = invoice.invoice_id;
    const reads = [`invoices/${id}`, `invoices/${id}/payments`];

    // Another account: nothing exists, nothing is paid.
    for (const otherToken of [other.tokens.test_secret, other.tokens.live_secret]) {
      for (const path of reads) expect((await get(path, otherToken)).status, path).toBe(404);
      expect((await post(`invoices/${id}`, { meta: { x: 1 } }, otherToken)).status).toBe(404);
      expect((await post(`invoices/${id}/payments`, card, otherToken)).status).toBe(404);
      expect((await post(`invoices/${id}/links`, {}, otherToken)).status).toBe(404);
      expect((await get('invoices', otherToken)).body.data.map((listed: { invoice_id: string }) => listed.invoice_id)).not.toContain(id);
    }
    // The other mode: named as such.
    for (const path of reads) {
      const answer = await get(path, live);
      expect(answer.status, `${path}: ${answer.text}`).toBe(400);
      expect(answer.body.error.code).toBe('token_type_mismatch');
    }
    expect((await post(`invoices/${id}/payments`, card, live)).body.error.code).toBe('token_type_mismatch');
    expect((await post(`invoices/${id}/cancel`, {}, live)).body.error.code).toBe('token_type_mismatch');

    // Another shopper's limited token, and another invoice's link: 404 for this invoice, 403 for what no limited token does.
    const stranger = (await post(`auths/limited?account_id=${account}&test=true`)).body.token as string;
    const otherLink = (await published({}, 'iso-other@example.test')).token;
    for (const outsider of [stranger, otherLink]) {
      for (const path of reads) expect((await get(path, outsider)).status, path).toBe(404);
      expect((await post(`invoices/${id}`, { meta: { x: 1 } }, outsider)).status).toBe(404);
      expect((await post(`invoices/${id}/payments`, card, outsider)).status).toBe(404);
      expect((await get('invoices', outsider)).status).toBe(403);
      expect((await post('invoices', {}, outsider)).status).toBe(403);
      expect((await post(`invoices/${id}/publish`, {}, outsider)).status).toBe(403);
      expect((await post(`invoices/${id}/links`, {}, outsider)).status).toBe(403);
    }
    expect((await get(`invoices/${id}`)).body).toMatchObject({ open: true, payment_status: 'unpaid', meta: null });

    // Paid by its own link; then its customer signs in and reads it (customer scope), not another's.
    const paid = await post(`invoices/${id}/payments?expand=order`, card, token);
    expect(paid.status, paid.text).toBe(201);
    const customerId = String(paid.body.order.customer).split('/').pop();
    const linked = await draft({ customer_id: customerId }, 'iso@example.test');
    expect(linked.customer_id).toBe(customerId);
    expect((await post(`customers/${customerId}`, { username: 'iso-invoices', password: 'portal password' })).status).toBe(200);
    const signedIn = await api(`${base}customers/login?account_id=${account}&test=true&expand=auth`, { method: 'POST', body: { username: 'iso-invoices', password: 'portal password' } });
    expect(signedIn.status, signedIn.text).toBe(200);
    const portal = signedIn.body.auth.token;
    expect((await get(`invoices/${linked.invoice_id}`, portal)).status).toBe(200);
    const mine = await get('customers/me/invoices', portal);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data.map((listed: { invoice_id: string }) => listed.invoice_id)).toEqual([linked.invoice_id]);
    expect((await get(`invoices/${id}`, portal)).status).toBe(404);
  });
});
