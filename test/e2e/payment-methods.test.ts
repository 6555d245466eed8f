/**
 * Saved payment methods over HTTP (commerce.md §6.1, §4.2): add, list, change and delete a
 * customer's cards; pay a linked cart with one; save a card at checkout. No response ever
 * holds the full number.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let secret: string;

const cardData = (number: string, extra: Record<string, unknown> = {}) => ({ number, exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee', ...extra });
const buyer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };

async function newCustomer(): Promise<string> {
  const created = await api(`${base}customers`, { method: 'POST', token: secret, body: { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } } });
  expect(created.status, created.text).toBe(201);
  return created.body.customer_id;
}

async function addCard(customerId: string, number: string, extra: Record<string, unknown> = {}) {
  return api(`${base}customers/${customerId}/payment_methods`, { method: 'POST', token: secret, body: { type: 'credit_card', data: cardData(number), ...extra } });
}

async function linkedCart(customerId: string | null): Promise<string> {
  const cart = await api(`${base}carts`, { method: 'POST', token: secret, body: { items: [{ product_id: 'ebook', quantity: 1 }], customer: buyer, ...(customerId ? { customer_id: customerId } : {}) } });
  expect(cart.status, cart.text).toBe(201);
  return cart.body.cart_id;
}

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  secret = runtime.bootstrap.tokens.test_secret;
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
  const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
  expect(product.status, product.text).toBe(201);
});
afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

describe('customer payment methods', () => {
  it('adds, lists, changes and deletes cards without ever showing the number', async () => {
    const customerId = await newCustomer();
    const added = await addCard(customerId, '4242424242424242');
    expect(added.status, added.text).toBe(201);
    const id = added.body.payment_method_id;
    expect(added.body).toMatchObject({
      object: 'payment_method',
      url: `${base}customers/${customerId}/payment_methods/${id}`,
      customer: `${base}customers/${customerId}`,
      type: 'credit_card',
      is_default: true,
      data: { type: 'Visa', mask: '************4242', last4: '4242', exp_month: 12, exp_year: 2031, cardholder_name: 'Ada Lee', label: 'Visa 4242' },
    });
    expect(added.headers.get('location')).toBe(added.body.url);
    expect(added.text).not.toContain('4242424242424242');
    expect(added.text).not.toContain('"cvv"');

    const declined = await addCard(customerId, '4000000000000002');
    expect(declined.status, declined.text).toBe(402);
    expect(declined.body.error.code).toBe('payment_declined');
    expect((await addCard(customerId, '4242424242424242', { data: cardData('4242424242424242', { cvv: '000' }) })).body.error.code).toBe('invalid_cvv');

    const second = await addCard(customerId, '5555555555554444', { is_default: false });
    expect(second.status, second.text).toBe(201);
    expect(second.body.is_default).toBe(false);

    const list = await api(`${base}customers/${customerId}/payment_methods`, { token: secret });
    expect(list.status, list.text).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', total_items: 2 });
    expect(list.body.data.map((m: { payment_method_id: string }) => m.payment_method_id)).toEqual([id, second.body.payment_method_id]);
    expect(list.text).not.toContain('5555555555554444');

    const madeDefault = await api(second.body.url, { method: 'POST', token: secret, body: { is_default: true, data: { exp_month: 3, exp_year: 2033, label: 'Work card' } } });
    expect(madeDefault.status, madeDefault.text).toBe(200);
    expect(madeDefault.body).toMatchObject({ is_default: true, data: { exp_month: 3, exp_year: 2033, label: 'Work card', last4: '4444' } });
    expect((await api(added.body.url, { token: secret })).body.is_default).toBe(false);
    expect((await api(second.body.url, { method: 'POST', token: secret, body: { data: { number: '4242424242424242' } } })).status).toBe(400);

    const deleted = await api(second.body.url, { method: 'DELETE', token: secret });
    expect(deleted.status).toBe(204);
    expect((await api(second.body.url, { token: secret })).status).toBe(404);
    expect((await api(`${base}customers/${customerId}/payment_methods`, { token: secret })).body.total_items).toBe(1);
    expect((await api(`${base}customers/NOPE/payment_methods`, { token: secret })).status).toBe(404);
  });

  it('pays a linked cart with a saved method, and refuses another customer’s', async () => {
    const customerId = await newCustomer();
    const method = (await addCard(customerId, '4242424242424242')).body;
    const paid = await api(`${base}carts/${await linkedCart(customerId)}/payments`, { method: 'POST', token: secret, body: { payment_method: { payment_method_id: method.payment_method_id } } });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({
      status: 'completed',
      customer: `${base}customers/${customerId}`,
      payment_method: { payment_method_id: method.payment_method_id, url: method.url, type: 'credit_card', data: { last4: '4242' } },
    });

    const other = await newCustomer();
    const refused = await api(`${base}carts/${await linkedCart(other)}/payments`, { method: 'POST', token: secret, body: { payment_method: { payment_method_id: method.payment_method_id } } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_input' });
    expect(refused.text).toContain('not_found');
    const guest = await api(`${base}carts/${await linkedCart(null)}/payments`, { method: 'POST', token: secret, body: { payment_method: { payment_method_id: method.payment_method_id } } });
    expect(guest.status, guest.text).toBe(400);
  });

  it('validates bodies before anything is verified or stored: strict booleans and strings, plain decimal expiries, read-only numbers', async () => {
    const customerId = await newCustomer();
    const list = async () => (await api(`${base}customers/${customerId}/payment_methods`, { token: secret })).body.total_items;
    const refusals: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ data: cardData('4242424242424242'), is_default: 'yes' }, { property: 'is_default', reason: 'invalid' }],
      [{ type: 'paypal', data: cardData('4242424242424242') }, { property: 'type', reason: 'invalid' }],
      [{ type: 'credit_card' }, { property: 'data', reason: 'required' }],
      [{ data: cardData('4242424242424242', { exp_month: '1e1' }) }, { property: 'data.exp_month', reason: 'invalid' }],
      [{ data: cardData('4242424242424242', { cvv: 123 }) }, { property: 'data.cvv', reason: 'invalid' }],
      [{ data: cardData('4242424242424241') }, { property: 'data.number', reason: 'invalid' }],
      [{ data: cardData('4242424242424242', { exp_year: 2020 }) }, { property: 'data.exp_year', reason: 'expired' }],
    ];
    for (const [body, meta] of refusals) {
      const refused = await api(`${base}customers/${customerId}/payment_methods`, { method: 'POST', token: secret, body });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta });
    }
    expect(await list()).toBe(0);

    const added = await addCard(customerId, '4242424242424242', { data: cardData('4242424242424242', { exp_month: '07', exp_year: '31', billing_address: { postal_code: 94107 } }) });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data).toMatchObject({ exp_month: 7, exp_year: 2031, billing_address: { postal_code: '94107' } });
    const changes: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ data: { number: '4242424242424242' } }, { property: 'data.number', reason: 'read_only' }],
      [{ data: { cvv: '123' } }, { property: 'data.cvv', reason: 'read_only' }],
      [{ is_default: 'true' }, { property: 'is_default', reason: 'invalid' }],
      [{ exp_month: 'July' }, { property: 'exp_month', reason: 'invalid' }],
      [{ data: { exp_month: 1, exp_year: 2020 } }, { property: 'data.exp_year', reason: 'expired' }],
    ];
    for (const [body, meta] of changes) {
      const refused = await api(added.body.url, { method: 'POST', token: secret, body });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta });
    }
    expect((await api(added.body.url, { token: secret })).body).toEqual(added.body);
    // A method posted back as read (masked data, brand as data.type) is accepted; strings convert.
    const echoed = await api(added.body.url, { method: 'POST', token: secret, body: { ...added.body, data: { ...added.body.data, exp_month: '8' } } });
    expect(echoed.status, echoed.text).toBe(200);
    expect(echoed.body.data).toMatchObject({ exp_month: 8, exp_year: 2031, last4: '4242' });
  });

  it('stores nothing when the card is declined', async () => {
    const customerId = await newCustomer();
    expect((await addCard(customerId, '4000000000000002')).status).toBe(402);
    expect((await api(`${base}customers/${customerId}/payment_methods`, { token: secret })).body.total_items).toBe(0);
  });

  it('saves the card on the new customer when a checkout asks to', async () => {
    const paid = await api(`${base}carts/${await linkedCart(null)}/payments`, {
      method: 'POST',
      token: secret,
      body: { payment_method: { type: 'credit_card', save: true, data: cardData('4444555566661111') } },
    });
    expect(paid.status, paid.text).toBe(201);
    const methodId = paid.body.payment_method.payment_method_id;
    expect(methodId).toEqual(expect.any(String));
    expect(paid.body.payment_method.url).toBe(`${paid.body.customer}/payment_methods/${methodId}`);
    const list = await api(`${paid.body.customer}/payment_methods`, { token: secret });
    expect(list.body).toMatchObject({ total_items: 1, data: [{ payment_method_id: methodId, is_default: true, data: { last4: '1111' } }] });
    expect(list.text).not.toContain('4444555566661111');

    const again = await api(`${base}carts/${await linkedCart(null)}/payments`, { method: 'POST', token: secret, body: { payment_method: { type: 'credit_card', data: cardData('4444555566661111') } } });
    expect(again.body.payment_method.payment_method_id).toBeNull();
  });
});
