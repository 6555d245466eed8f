/**
 * Clients post back whole objects they previously received (conventions.md §15): every
 * writable resource, read with `formatted=true` and its expansions, posted back to its own URL,
 * is accepted (read-only and unknown properties are discarded by the body schemas) and leaves
 * the resource as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let secret: string;
let shopper: string;
let cartId: string;
let orderId: string;
let paymentId: string;
let listServiceId: string;
let remoteServiceId: string;

const buyer = { name: 'Ada Lee', email: 'ada@example.test', phone: 5550100, billing_address: { country: 'US', postal_code: 94107 } };
const card = { type: 'credit_card', data: { number: '4242424242424242', exp_month: '12', exp_year: '2031', cvv: '123', cardholder_name: 'Ada Lee' } };

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  const setup: Array<[string, unknown]> = [
    ['settings/payment', { duplicate_payment_timeout: '0' }],
    ['products', { product_id: 'book', name: 'Book', type: 'physical', prices: [{ currency: 'USD', price: '12.50' }], meta: { shelf: 3 } }],
    ['customers', { customer_id: 'ada', name: 'Ada', email: 'ada@example.test', billing_address: { country: 'US' }, meta: ['a'] }],
    ['promotions', { promotion_id: 'ten', name: 'Ten', code: 'TEN', discount_type: 'percent', discount_percent: '0.1', max_uses: '5' }],
    ['shipping_methods', { shipping_method_id: 'post', name: 'Post', prices: [{ currency: 'USD', price: '4' }] }],
  ];
  for (const [path, body] of setup) {
    const answer = await api(`${base}${path}`, { method: 'POST', token: secret, body });
    expect(answer.status, `${path}: ${answer.text}`).toBeLessThan(300);
  }
  const services: Array<[string, Record<string, unknown>]> = [
    ['list', { name: 'Codes', type: 'list', instructions: '<p>Paste <b>it</b></p>', configuration: { licenses: ['K-1', 'K-2'], per_quantity: true, notify_at_count: '1' } }],
    ['remote', { name: 'Keys', type: 'remote_url', configuration: { url: 'https://keys.example.test/issue', http_authorization_username: 'u', http_authorization_password: 'p', custom_header_name: 'X-Pool', custom_header_value: 'v' } }],
  ];
  for (const [kind, body] of services) {
    const answer = await api(`${base}license_services`, { method: 'POST', token: secret, body });
    expect(answer.status, answer.text).toBe(201);
    if (kind === 'list') listServiceId = answer.body.license_service_id;
    else remoteServiceId = answer.body.license_service_id;
  }
  const fonts = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'fonts', name: 'Fonts', type: 'digital', prices: [{ currency: 'USD', price: 5 }], license_service_id: listServiceId } });
  expect(fonts.status, fonts.text).toBe(201);
  shopper = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token;
  const paidCart = await api(`${base}carts`, { method: 'POST', token: shopper, body: { items: [{ product_id: 'book', quantity: '2' }], customer: buyer, promotion_code: 'TEN' } });
  expect(paidCart.status, paidCart.text).toBe(201);
  const paid = await api(`${base}carts/${paidCart.body.cart_id}/payments`, { method: 'POST', token: shopper, body: { payment_method: card, meta: { from: 'receipt' } } });
  expect(paid.status, paid.text).toBe(201);
  orderId = paid.body.order.split('/').pop();
  paymentId = paid.body.payment_id;
  const open = await api(`${base}carts`, { method: 'POST', token: shopper, body: { items: [{ product_id: 'book' }], customer: buyer, meta: { gift: true } } });
  cartId = open.body.cart_id;
}, 60_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

/** The resource without what a write may change on its own: modification dates, at any depth (order lines carry the order's). */
const settled = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(settled);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([name]) => name !== 'date_modified' && name !== 'formatted').map(([name, child]) => [name, settled(child)]));
};

describe('a whole object posted back to its own URL', () => {
  it.each([
    ['product', (): string => 'products/book', '?formatted=true', 'secret'],
    ['customer', (): string => 'customers/ada', '?formatted=true&expand=payment_methods', 'secret'],
    ['cart', (): string => `carts/${cartId}`, '?formatted=true&expand=items.product,options', 'shopper'],
    ['order', (): string => `orders/${orderId}`, '?formatted=true&expand=items.product,customer', 'secret'],
    ['payment', (): string => `payments/${paymentId}`, '?formatted=true&expand=order,cart', 'secret'],
    ['promotion', (): string => 'promotions/ten', '?formatted=true', 'secret'],
    ['shipping method', (): string => 'shipping_methods/post', '?formatted=true', 'secret'],
    ['product with a license service', (): string => 'products/fonts', '?formatted=true&expand=license_service', 'secret'],
    ['list license service', (): string => `license_services/${listServiceId}`, '?formatted=true', 'secret'],
    ['remote license service', (): string => `license_services/${remoteServiceId}`, '?formatted=true', 'secret'],
  ] as const)('a %s is accepted and left as it was', async (_name, path, query, who) => {
    const caller = who === 'secret' ? secret : shopper;
    const read = await api(`${base}${path()}${query}`, { token: caller });
    expect(read.status, read.text).toBe(200);
    const before = await api(`${base}${path()}`, { token: caller });
    const posted = await api(`${base}${path()}`, { method: 'POST', token: caller, body: read.body });
    expect(posted.status, posted.text).toBe(200);
    const after = await api(`${base}${path()}`, { token: caller });
    expect(settled(after.body)).toEqual(settled(before.body));
    expect(after.body.date_created).toBe(before.body.date_created);
  });
});
