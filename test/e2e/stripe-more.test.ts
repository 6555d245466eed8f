/**
 * More of live payments through Stripe (commerce.md §4.7, §4.6, §6.1, §9), over HTTP against a
 * runtime whose Stripe adapter points at the stand-in (test/support/stripe-runtime.ts): a
 * shopper's limited token reaching what a 3-D Secure payment completed by the webhook or its
 * own commit made, cards saved through `POST /customers/{id}/payment_methods` and charged
 * again, invoices paid through Stripe, and the 24-hour cancel of a payment stuck in 3-D Secure
 * (last: it moves the manual clock a day on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/runtime-process';
import { authenticate, startStripeRuntime, until, type StripeRuntime } from '../support/stripe-runtime';

let stripe: StripeRuntime;
let base: string;
let live: string;

const buyer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };
const token = (pm: string) => ({ payment_method: { type: 'credit_card', data: { token: pm } } });

/** A new live limited token (a shopper's). */
async function shopperToken(): Promise<string> {
  const minted = await api(`${base}auths/limited?account_id=${stripe.account}`, { method: 'POST' });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.token;
}

async function liveCart(as = live): Promise<string> {
  const cart = await api(`${base}carts`, { method: 'POST', token: as, body: { items: [{ product_id: 'ebook', quantity: 1 }], customer: buyer } });
  expect(cart.status, cart.text).toBe(201);
  return cart.body.cart_id;
}

const pay = (cartId: string, body: unknown, as = live) => api(`${base}carts/${cartId}/payments`, { method: 'POST', token: as, body });
const payment = (paymentId: string) => api(`${base}payments/${paymentId}`, { token: live });
const idOf = (url: string) => url.split('/').pop()!;

/** Every live order (all pages). */
async function allOrders(): Promise<any[]> {
  const orders: any[] = [];
  let url: string | null = `${base}orders?limit=100`;
  while (url) {
    const page: any = await api(url, { token: live });
    orders.push(...page.body.data);
    url = page.body.next_page_url;
  }
  return orders;
}

const intentRequests = (intentId: string, suffix = '') => stripe.standin.requests.filter((request) => request.path === `/v1/payment_intents/${intentId}${suffix}`);

beforeAll(async () => {
  stripe = await startStripeRuntime();
  base = stripe.base;
  live = stripe.live;
  const product = await api(`${base}products`, { method: 'POST', token: live, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
  expect(product.status, product.text).toBe(201);
}, 120_000);

afterAll(async () => {
  await stripe?.stop();
});

describe("3-D Secure completed outside the shopper's paying request", () => {
  /** What the shopper's token reaches of a completed payment: the order, the payment, the customer. */
  async function expectShopperReach(shopper: string, cartId: string, paymentId: string) {
    const cart = await api(`${base}carts/${cartId}`, { token: shopper });
    expect(cart.status, cart.text).toBe(200);
    expect(cart.body.order).toBeTruthy();
    const order = await api(`${base}orders/${idOf(cart.body.order)}`, { token: shopper });
    expect(order.status, order.text).toBe(200);
    expect(order.body.payment_status).toBe('completed');
    const paid = await api(`${base}payments/${paymentId}`, { token: shopper });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.status).toBe('completed');
    const customer = await api(`${base}customers/${idOf(paid.body.customer)}`, { token: shopper });
    expect(customer.status, customer.text).toBe(200);
    // Another shopper reaches none of it.
    const stranger = await shopperToken();
    expect((await api(`${base}orders/${idOf(cart.body.order)}`, { token: stranger })).status).toBe(404);
  }

  it("completed by Stripe's webhook: the shopper's limited token reads the order, payment and customer", async () => {
    const shopper = await shopperToken();
    const cartId = await liveCart(shopper);
    const answer = await pay(cartId, token('pm_card_threeDSecure2Required'), shopper);
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.status).toBe('initiated');
    // The shopper's token reads the payment it started while it waits on 3-D Secure.
    expect((await api(`${base}payments/${answer.body.payment_id}`, { token: shopper })).body.status).toBe('initiated');
    // The 3-D Secure step succeeds in the browser; Stripe sends the webhook itself.
    await authenticate(stripe.standin, answer.body.gateway_transaction_id, 'succeeded', true);
    await until('the webhook to complete the payment', () => payment(answer.body.payment_id), (read) => read.body.status === 'completed');
    await expectShopperReach(shopper, cartId, answer.body.payment_id);
  });

  it("completed by the shopper's own commit after 3-D Secure: the same reach", async () => {
    const shopper = await shopperToken();
    const cartId = await liveCart(shopper);
    const answer = await pay(cartId, token('pm_card_authenticationRequired'), shopper);
    expect(answer.status, answer.text).toBe(201);
    await authenticate(stripe.standin, answer.body.gateway_transaction_id, 'succeeded', false);
    const committed = await api(`${base}payments/${answer.body.payment_id}/commit?expand=order`, { method: 'POST', token: shopper });
    expect(committed.status, committed.text).toBe(200);
    expect(committed.body.status).toBe('completed');
    expect(committed.body.order).toMatchObject({ payment_status: 'completed' });
    await expectShopperReach(shopper, cartId, answer.body.payment_id);
  });

  it('a failed 3-D Secure step: the payment fails through the webhook, no order, and the cart is payable again', async () => {
    const shopper = await shopperToken();
    const cartId = await liveCart(shopper);
    const answer = await pay(cartId, token('pm_card_threeDSecure2Required'), shopper);
    await authenticate(stripe.standin, answer.body.gateway_transaction_id, 'failed', true);
    await until('the webhook to fail the payment', () => payment(answer.body.payment_id), (read) => read.body.status === 'failed');
    expect((await api(`${base}carts/${cartId}`, { token: shopper })).body.order ?? null).toBeNull();
    const again = await pay(cartId, token('pm_card_visa'), shopper);
    expect(again.status, again.text).toBe(201);
    expect(again.body.status).toBe('completed');
  });
});

describe('invoices paid through Stripe in live mode', () => {
  async function openInvoice(): Promise<string> {
    const invoice = await api(`${base}invoices`, { method: 'POST', token: live, body: { draft: false, currency: 'USD', customer: buyer, items: [{ product_id: 'ebook', quantity: 2 }] } });
    expect(invoice.status, invoice.text).toBe(201);
    return invoice.body.invoice_id;
  }

  it('a pm_ token completes the invoice through Stripe with one order', async () => {
    const invoiceId = await openInvoice();
    const ordersBefore = (await allOrders()).length;
    const paid = await api(`${base}invoices/${invoiceId}/payments?expand=order`, { method: 'POST', token: live, body: token('pm_card_visa') });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({ status: 'completed', total: 38, test: false });
    expect(paid.body.gateway_transaction_id).toMatch(/^pi_/);
    expect(paid.body.order).toMatchObject({ payment_status: 'completed' });
    const create = stripe.standin.requests.filter((request) => request.path === '/v1/payment_intents' && request.method === 'POST').at(-1)!;
    expect(create.idempotencyKey).toBe(`cartwheel-${paid.body.payment_id}`);
    expect(create.params).toMatchObject({ amount: '3800', currency: 'usd', payment_method: 'pm_card_visa', metadata: { account_id: stripe.account, payment_id: paid.body.payment_id, invoice_id: invoiceId } });
    const invoice = await api(`${base}invoices/${invoiceId}`, { token: live });
    expect(invoice.body).toMatchObject({ payment_status: 'completed', open: false, total_payments: 38, total_remaining: 0 });
    expect(idOf(invoice.body.order)).toBe(paid.body.order.order_id);
    expect((await allOrders()).length).toBe(ordersBefore + 1);
  });

  it('a 3-D Secure card: initiated, then the webhook completes the invoice with one order', async () => {
    const invoiceId = await openInvoice();
    const ordersBefore = (await allOrders()).length;
    const answer = await api(`${base}invoices/${invoiceId}/payments`, { method: 'POST', token: live, body: token('pm_card_threeDSecure2Required') });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.status).toBe('initiated');
    expect(answer.body.response_data.client_secret).toMatch(/^pi_.+_secret_/);
    expect((await api(`${base}invoices/${invoiceId}`, { token: live })).body.payment_status).toBe('unpaid');
    const payload = await authenticate(stripe.standin, answer.body.gateway_transaction_id, 'succeeded', false);
    const delivered = await stripe.sendWebhook(payload);
    expect(delivered.status, delivered.text).toBe(200);
    const completed = await until('the webhook to complete the invoice payment', () => payment(answer.body.payment_id), (read) => read.body.status === 'completed');
    const invoice = await api(`${base}invoices/${invoiceId}`, { token: live });
    expect(invoice.body).toMatchObject({ payment_status: 'completed', total_remaining: 0 });
    expect(idOf(invoice.body.order)).toBe(idOf(completed.body.order));
    const orders = await allOrders();
    expect(orders.length).toBe(ordersBefore + 1);
    expect(orders.filter((order) => order.order_id === idOf(completed.body.order)).length).toBe(1);
    // The same event again changes nothing.
    expect((await stripe.sendWebhook(payload)).body.duplicate).toBe(true);
    expect((await allOrders()).length).toBe(ordersBefore + 1);
  });
});

describe('cards saved through Stripe with POST /customers/{id}/payment_methods', () => {
  let customerId: string;
  let visaMethodId: string;
  const methods = (id = customerId) => api(`${base}customers/${id}/payment_methods`, { token: live });
  const save = (body: unknown, id = customerId) => api(`${base}customers/${id}/payment_methods`, { method: 'POST', token: live, body });
  const seen = (path: string) => stripe.standin.requests.filter((request) => request.path === path && request.method === 'POST');

  beforeAll(async () => {
    const customer = await api(`${base}customers`, { method: 'POST', token: live, body: { ...buyer } });
    expect(customer.status, customer.text).toBe(201);
    customerId = customer.body.customer_id;
  });

  it('keeps a pm_ token at Stripe for off-session use: one Stripe customer made, the card shown as Stripe reports it, no Stripe ids shown', async () => {
    const customersBefore = seen('/v1/customers').length;
    const saved = await save({ type: 'credit_card', is_default: true, data: { token: 'pm_card_visa', cardholder_name: 'Ada Lee' } });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ object: 'payment_method', type: 'credit_card', is_default: true, data: { type: 'Visa', last4: '4242', label: 'Visa 4242', mask: '************4242', cardholder_name: 'Ada Lee' } });
    expect(saved.text).not.toMatch(/cus_|pm_card|seti_/);
    visaMethodId = saved.body.payment_method_id;
    expect(seen('/v1/customers').length).toBe(customersBefore + 1);
    const setup = seen('/v1/setup_intents').at(-1)!;
    expect(setup.params).toMatchObject({ confirm: 'true', usage: 'off_session', payment_method: 'pm_card_visa', metadata: { customer_id: customerId, payment_method_id: visaMethodId } });
    expect(String(setup.params.customer)).toMatch(/^cus_/);
    expect(setup.idempotencyKey).toBe(`cartwheel-${visaMethodId}`);
  });

  it('reuses the Stripe customer for the next card', async () => {
    const customersBefore = seen('/v1/customers').length;
    const first = seen('/v1/setup_intents').at(-1)!;
    const saved = await save({ type: 'credit_card', data: { token: 'pm_card_mastercard' } });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ is_default: false, data: { type: 'Mastercard' } });
    expect(seen('/v1/customers').length).toBe(customersBefore);
    expect(seen('/v1/setup_intents').at(-1)!.params.customer).toBe(first.params.customer);
    expect((await methods()).body.data.length).toBe(2);
  });

  it('declines are 402 as §4.4 says, and nothing is saved', async () => {
    const before = (await methods()).body.data.length;
    for (const [pm, code] of [['pm_card_chargeDeclined', 'payment_declined'], ['pm_card_chargeDeclinedIncorrectCvc', 'invalid_cvv'], ['pm_card_avsZipFail', 'invalid_avs'], ['pm_card_threeDSecure2Required', 'payment_declined']] as const) {
      const refused = await save({ type: 'credit_card', data: { token: pm } });
      expect(refused.status, `${pm}: ${refused.text}`).toBe(402);
      expect(refused.body.error.code).toBe(code);
    }
    const unavailable = await save({ type: 'credit_card', data: { token: 'pm_card_standin_api_error' } });
    expect(unavailable.status, unavailable.text).toBe(502);
    expect((await methods()).body.data.length).toBe(before);
  });

  it('a live cart paid with the saved payment_method_id charges it through Stripe', async () => {
    const setup = seen('/v1/setup_intents').find((request) => (request.params.metadata as Record<string, string>).payment_method_id === visaMethodId)!;
    const cart = await api(`${base}carts`, { method: 'POST', token: live, body: { items: [{ product_id: 'ebook', quantity: 1 }], customer_id: customerId } });
    expect(cart.status, cart.text).toBe(201);
    const paid = await pay(cart.body.cart_id, { payment_method: { payment_method_id: visaMethodId } });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({ status: 'completed', payment_method: { payment_method_id: visaMethodId, data: { last4: '4242' } } });
    expect(seen('/v1/payment_intents').at(-1)!.params).toMatchObject({ customer: setup.params.customer, payment_method: 'pm_card_visa', amount: '1900' });
  });

  it('a raw number is 400 tokenization_required unless the account allows raw card data; then it is saved at Stripe and charged again, never stored', async () => {
    const raw = { type: 'credit_card', data: { number: '4000000000000002', exp_month: 11, exp_year: 2032, cvv: '123' } };
    const refused = await save(raw);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta: { property: 'data.number', reason: 'tokenization_required' } });
    expect((await api(`${base}settings/payment`, { method: 'POST', token: live, body: { allow_raw_card_data: true } })).status).toBe(200);
    try {
      const declined = await save(raw);
      expect(declined.status, declined.text).toBe(402);
      const saved = await save({ type: 'credit_card', data: { number: '5555 5555 5555 4444', exp_month: 11, exp_year: 2032, cvv: '123', cardholder_name: 'Ada Lee' } });
      expect(saved.status, saved.text).toBe(201);
      expect(saved.body.data).toMatchObject({ type: 'Mastercard', last4: '4444', exp_month: 11, exp_year: 2032 });
      const setup = seen('/v1/setup_intents').at(-1)!;
      expect(JSON.stringify(setup.params)).not.toContain('5555555555554444');
      const cart = await api(`${base}carts`, { method: 'POST', token: live, body: { items: [{ product_id: 'ebook', quantity: 1 }], customer_id: customerId } });
      const paid = await pay(cart.body.cart_id, { payment_method: { payment_method_id: saved.body.payment_method_id } });
      expect(paid.status, paid.text).toBe(201);
      expect(String(seen('/v1/payment_intents').at(-1)!.params.payment_method)).toMatch(/^pm_/);
    } finally {
      expect((await api(`${base}settings/payment`, { method: 'POST', token: live, body: { allow_raw_card_data: false } })).status).toBe(200);
    }
  });

  it('test mode without a Stripe test connection: a token is 400 not_allowed; raw cards keep the built-in gateway', async () => {
    const customer = await api(`${base}customers`, { method: 'POST', token: stripe.test, body: { ...buyer } });
    expect(customer.status, customer.text).toBe(201);
    const id = customer.body.customer_id;
    const refused = await api(`${base}customers/${id}/payment_methods`, { method: 'POST', token: stripe.test, body: { type: 'credit_card', data: { token: 'pm_card_visa' } } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.meta).toMatchObject({ property: 'data.token', reason: 'not_allowed' });
    const setupsBefore = seen('/v1/setup_intents').length;
    const saved = await api(`${base}customers/${id}/payment_methods`, { method: 'POST', token: stripe.test, body: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } });
    expect(saved.status, saved.text).toBe(201);
    expect(seen('/v1/setup_intents').length).toBe(setupsBefore);
  });
});

describe('a new attempt on a sale whose payment waits on 3-D Secure', () => {
  it('abandons the waiting payment once its lock lapsed: cancelled at Stripe and failed, and the new attempt completes with one order', async () => {
    const cartId = await liveCart();
    const waiting = await pay(cartId, token('pm_card_threeDSecure2Required'));
    expect(waiting.status, waiting.text).toBe(201);
    // While the paying request's lock holds, the cart is busy.
    expect((await pay(cartId, token('pm_card_visa'))).status).toBe(409);
    await stripe.advance(120);
    const again = await pay(cartId, token('pm_card_visa'));
    expect(again.status, again.text).toBe(201);
    expect(again.body.status).toBe('completed');
    expect(intentRequests(waiting.body.gateway_transaction_id, '/cancel').length).toBe(1);
    expect((await payment(waiting.body.payment_id)).body).toMatchObject({ status: 'failed', order: null });
    // A late webhook of the cancelled intent changes nothing.
    expect((await allOrders()).filter((order) => String(order.cart ?? '').endsWith(cartId)).length).toBe(1);
  });

  it('a 3-D Secure step finished meanwhile: the waiting payment completes instead, and the new attempt is refused as the cart is paid', async () => {
    const cartId = await liveCart();
    const waiting = await pay(cartId, token('pm_card_threeDSecure2Required'));
    await authenticate(stripe.standin, waiting.body.gateway_transaction_id, 'succeeded', false);
    await stripe.advance(120);
    await until('the sweep or the next attempt to complete it', () => payment(waiting.body.payment_id), (read) => read.body.status === 'completed');
    const again = await pay(cartId, token('pm_card_visa'));
    expect(again.status, again.text).toBe(422);
    expect(again.body.error.code).toBe('invalid_state');
  });
});

describe('a payment stuck in 3-D Secure for 24 hours (runs last: it moves the clock a day on)', () => {
  it('is left initiated by the sweep before 24 hours, then cancelled at Stripe and failed; no order; the cart is payable again', async () => {
    const cartId = await liveCart();
    const answer = await pay(cartId, token('pm_card_threeDSecure2Required'));
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.status).toBe('initiated');
    expect(answer.body.response_data.client_secret).toMatch(/^pi_.+_secret_/);
    const paymentId = answer.body.payment_id;
    const intentId = answer.body.gateway_transaction_id;

    // Past the cart lock: the sweep asks Stripe, which still reports requires_action; the payment stays initiated.
    const asked = intentRequests(intentId).length;
    await stripe.advance(120);
    await until('the sweep to look the PaymentIntent up', async () => intentRequests(intentId).length, (count) => count > asked);
    // Hours later (but within the day), still waiting: looked up again, never cancelled.
    const askedAgain = intentRequests(intentId).length;
    await stripe.advance(20 * 3600);
    await until('the sweep to look the PaymentIntent up again', async () => intentRequests(intentId).length, (count) => count > askedAgain);
    expect(intentRequests(intentId, '/cancel')).toEqual([]);
    expect((await payment(paymentId)).body.status).toBe('initiated');

    // Past 24 hours: cancelled at Stripe, then failed.
    await stripe.advance(5 * 3600);
    await until('the PaymentIntent cancel', async () => intentRequests(intentId, '/cancel').length, (count) => count >= 1);
    expect(intentRequests(intentId, '/cancel')[0]!.method).toBe('POST');
    const failed = await until('the payment to fail', () => payment(paymentId), (read) => read.body.status === 'failed');
    expect(failed.body.error_code).toBe('payment_declined');
    expect(failed.body.order).toBeNull();
    const cart = await api(`${base}carts/${cartId}`, { token: live });
    expect(cart.body).toMatchObject({ open: true, payment_status: 'unpaid', order: null });
    expect((await allOrders()).filter((order) => String(order.cart ?? '').endsWith(cartId)).length).toBe(0);
    // §3.5: a failed payment leaves the cart open: it is payable again.
    const again = await pay(cartId, token('pm_card_visa'));
    expect(again.status, again.text).toBe(201);
    expect(again.body.status).toBe('completed');
  }, 120_000);
});

describe('what the adapter sent', () => {
  it('every request to Stripe matched the OpenAPI description', () => {
    expect(stripe.standin.invalid).toEqual([]);
  });
});
