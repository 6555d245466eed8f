/**
 * Hostile input, table-driven, over HTTP against a real local runtime (conventions.md §4, §6,
 * §7, §15, §20): every endpoint that takes a body or an id gets wrong types, magnitudes,
 * depths, sizes, encodings, control characters and ids with `../` and encoded slashes. Each
 * case asserts the status, the error envelope and that nothing changed anywhere: a snapshot of
 * the records the cases aim at, the collections they would grow, the gateway's ledger and the
 * outbox is taken before and after every case.
 *
 * Keep it growing: a new endpoint that takes a body or an id adds its rows here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';
import { trustedTokenFor } from '../support/sign-in';
import { appZip, zipOf } from '../support/zip-writer';

let runtime: RuntimeProcess;
let base: string;
let origin: string;
let account: string;
let secret: string;
let shopper: string;
let cartId: string;
let orderId: string;
let paymentId: string;
let subscriptionId: string;
let listServiceId: string;
let remoteServiceId: string;
let liveServiceId: string;
let appId: string;
let versionId: string;
let functionId: string;
/** An order of a physical item (`phys` ×2) and a digital one (`p1`), and a shipment of one `phys`. */
let shippedOrderId: string;
let shipmentId: string;
/** A subscription (commerce.md §10) the shopper bought. */
let saleSubscriptionId: string;
/** A customer-scope token (signed in as customer `cs1`) and cs1's saved card. */
let portal: string;
let portalMethodId: string;
/** The owner's trusted tokens (live and test) and a secret token that may manage users but nothing else. */
let ownerTrusted: string;
let ownerTrustedTest: string;
let usersOnly: string;
/** OAuth apps (auth.md 6): a confidential one (its client id and secret), a public one, and a token that may manage tokens and apps only. */
let oauthAppId: string;
let oauthClient: { id: string; secret: string };
let publicOauthAppId: string;
let authsOnly: string;
/** Invoices (commerce.md §9): a draft, a draft without items, an open one with its pay link's token, and a paid one. */
let draftInvoiceId: string;
let bareDraftId: string;
let openInvoiceId: string;
let invoiceLink: string;
let paidInvoiceId: string;

const buyer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };
const card = (data: Record<string, unknown> = {}) => ({
  type: 'credit_card',
  data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee', ...data },
});

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  origin = new URL(base).origin;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  const setup: Array<[string, unknown]> = [
    ['settings/payment', { duplicate_payment_timeout: 0 }],
    ['products', { product_id: 'p1', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] }],
    ['products', { product_id: 'big', name: 'Expensive', type: 'digital', prices: [{ currency: 'USD', price: 999_999_999_999 }] }],
    ['customers', { customer_id: 'c1', name: 'Ada Lee', email: 'ada@example.test' }],
    ['customers', { customer_id: 'cs1', name: 'Cy Sign', email: 'cy@example.test', username: 'cy', password: 'portal password' }],
    ['promotions', { promotion_id: 'promo1', name: 'Spring', code: 'SPRING', discount_type: 'percent', discount_percent: 0.1 }],
    ['shipping_methods', { shipping_method_id: 'ship1', name: 'Post', prices: [{ currency: 'USD', price: 4 }] }],
  ];
  for (const [path, body] of setup) {
    const answer = await api(`${base}${path}`, { method: 'POST', token: secret, body });
    expect(answer.status, `${path}: ${answer.text}`).toBeLessThan(300);
  }
  const subscription = await api(`${base}event_subscriptions`, {
    method: 'POST', token: secret,
    body: { event_type: 'order:created', method: 'http', destination: 'https://hooks.example.test/orders', custom_header_name: 'X-Tenant', custom_header_value: 'eu', show: 'order_id' },
  });
  expect(subscription.status, subscription.text).toBe(201);
  subscriptionId = subscription.body.event_subscription_id;
  const listService = await api(`${base}license_services`, { method: 'POST', token: secret, body: { name: 'Codes', type: 'list', configuration: { licenses: ['K-1', 'K-2'], notify_at_count: 1 } } });
  expect(listService.status, listService.text).toBe(201);
  listServiceId = listService.body.license_service_id;
  const remoteService = await api(`${base}license_services`, {
    method: 'POST', token: secret,
    body: { name: 'Keys', type: 'remote_url', configuration: { url: 'https://keys.example.test/issue', custom_header_name: 'X-Pool', custom_header_value: 'p' } },
  });
  expect(remoteService.status, remoteService.text).toBe(201);
  remoteServiceId = remoteService.body.license_service_id;
  const liveService = await api(`${base}license_services`, { method: 'POST', token: runtime.bootstrap.tokens.live_secret, body: { name: 'Live', type: 'list' } });
  liveServiceId = liveService.body.license_service_id;
  const licensed = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'licensed', name: 'Fonts', type: 'digital', prices: [{ currency: 'USD', price: 5 }], license_service_id: listServiceId } });
  expect(licensed.status, licensed.text).toBe(201);
  const app = await api(`${base}apps`, { method: 'POST', token: secret, body: { name: 'Probe', alias: 'probe', settings: { a: 1 } } });
  expect(app.status, app.text).toBe(201);
  appId = app.body.app_id;
  expect((await api(`${base}apps`, { method: 'POST', token: secret, body: { name: 'Taken', alias: 'taken' } })).status).toBe(201);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(appZip())]), 'site.zip');
  const version = await fetch(`${base}apps/${appId}/versions`, { method: 'POST', headers: { Authorization: `Bearer ${secret}` }, body: form });
  expect(version.status).toBe(201);
  versionId = ((await version.json()) as { version_id: string }).version_id;
  const fnForm = new FormData();
  for (const [name, value] of Object.entries({ name: 'Probe', runtime: 'node', handler: 'index.handler', environment_variables: '{"KEEP":"1"}' })) fnForm.append(name, value);
  fnForm.append('file', new Blob([new Uint8Array(zipOf([{ name: 'index.js', data: "exports.handler = async () => ({ body: 'ok' });" }]))], { type: 'application/zip' }), 'fn.zip');
  const hosted = await fetch(`${base}hosted_functions`, { method: 'POST', headers: { Authorization: `Bearer ${secret}` }, body: fnForm });
  expect(hosted.status).toBe(201);
  functionId = ((await hosted.json()) as { hosted_function_id: string }).hosted_function_id;
  shopper = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token;
  const paidCart = await api(`${base}carts`, { method: 'POST', token: shopper, body: { items: [{ product_id: 'p1' }], customer: buyer } });
  const paid = await api(`${base}carts/${paidCart.body.cart_id}/payments`, { method: 'POST', token: shopper, body: { payment_method: card() } });
  expect(paid.status, paid.text).toBe(201);
  orderId = paid.body.order.split('/').pop();
  paymentId = paid.body.payment_id;
  expect((await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'phys', name: 'Mug', type: 'physical', prices: [{ currency: 'USD', price: 9 }] } })).status).toBe(201);
  const physicalCart = await api(`${base}carts`, { method: 'POST', token: shopper, body: { items: [{ product_id: 'phys', quantity: 2 }, { product_id: 'p1' }], customer: buyer } });
  const physicalPaid = await api(`${base}carts/${physicalCart.body.cart_id}/payments`, { method: 'POST', token: shopper, body: { payment_method: card() } });
  expect(physicalPaid.status, physicalPaid.text).toBe(201);
  shippedOrderId = physicalPaid.body.order.split('/').pop();
  const shipment = await api(`${base}orders/${shippedOrderId}/shipments`, { method: 'POST', token: secret, body: { items: [{ item_id: 'phys', quantity: 1 }] } });
  expect(shipment.status, shipment.text).toBe(201);
  shipmentId = shipment.body.shipment_id;
  expect((await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'monthly', name: 'Box', type: 'service', prices: [{ currency: 'USD', price: 7 }], subscription_plan: { billing_interval: 1, billing_interval_unit: 'month', end_at_billing_count: null } } })).status).toBe(201);
  const subscriptionCart = await api(`${base}carts`, { method: 'POST', token: shopper, body: { items: [{ product_id: 'monthly' }], customer: buyer } });
  const subscriptionPaid = await api(`${base}carts/${subscriptionCart.body.cart_id}/payments?expand=order`, { method: 'POST', token: shopper, body: { payment_method: card() } });
  expect(subscriptionPaid.status, subscriptionPaid.text).toBe(201);
  saleSubscriptionId = subscriptionPaid.body.order.items[0].subscription.split('/').pop();
  const open = await api(`${base}carts`, { method: 'POST', token: shopper, body: { items: [{ product_id: 'p1', quantity: 2 }], customer: buyer } });
  cartId = open.body.cart_id;
  const signedIn = await api(`${base}customers/login?account_id=${account}&test=true&expand=auth`, { method: 'POST', body: { username: 'cy', password: 'portal password' } });
  expect(signedIn.status, signedIn.text).toBe(200);
  portal = signedIn.body.auth.token;
  const saved = await api(`${base}customers/me/payment_methods`, { method: 'POST', token: portal, body: card() });
  expect(saved.status, saved.text).toBe(201);
  portalMethodId = saved.body.payment_method_id;
  // Users and trusted tokens (auth.md 5, 9): a registered redirect, the owner signed in, a user to aim at.
  const redirect = 'https://admin.example.test/cb';
  expect((await api(`${base}settings/technical`, { method: 'POST', token: secret, body: { oauth_redirect_uris: [redirect] } })).status).toBe(200);
  ownerTrusted = await trustedTokenFor(runtime.bootstrap.signin_url, 'owner', runtime.bootstrap.owner.password, redirect);
  ownerTrustedTest = await trustedTokenFor(runtime.bootstrap.signin_url, 'owner', runtime.bootstrap.owner.password, redirect, { test: 'true' });
  const user = await api(`${base}users`, { method: 'POST', token: secret, body: { user_id: 'usr1', name: 'User One', email: 'u1@example.test', password: 'user one passphrase', permissions: [{ resource: 'orders', methods: ['read'] }] } });
  expect(user.status, user.text).toBe(201);
  const narrow = await api(`${base}auths/secret`, { method: 'POST', token: secret, body: { permissions: [{ resource: 'users', methods: ['*'] }] } });
  expect(narrow.status, narrow.text).toBe(201);
  usersOnly = narrow.body.token;
  const oauthApp = await api(`${base}oauth_apps`, { method: 'POST', token: secret, body: { name: 'Probe App', redirect_uris: ['https://app.example.test/cb'] } });
  expect(oauthApp.status, oauthApp.text).toBe(201);
  oauthAppId = oauthApp.body.oauth_app_id;
  oauthClient = { id: oauthApp.body.client_id, secret: oauthApp.body.client_secret };
  const publicApp = await api(`${base}oauth_apps`, { method: 'POST', token: secret, body: { name: 'Probe Phone', client_type: 'public', redirect_uris: ['https://app.example.test/cb'] } });
  expect(publicApp.status, publicApp.text).toBe(201);
  publicOauthAppId = publicApp.body.oauth_app_id;
  const appsOnly = await api(`${base}auths/secret`, { method: 'POST', token: secret, body: { permissions: [{ resource: 'auths', methods: ['*'] }] } });
  expect(appsOnly.status, appsOnly.text).toBe(201);
  authsOnly = appsOnly.body.token;
  const invoice = (body: Record<string, unknown>) => api(`${base}invoices`, { method: 'POST', token: secret, body });
  draftInvoiceId = (await invoice({ items: [{ product_id: 'p1' }], customer: buyer })).body.invoice_id;
  bareDraftId = (await invoice({})).body.invoice_id;
  openInvoiceId = (await invoice({ items: [{ product_id: 'p1' }, { item_id: 'fee', name: 'Fee', type: 'service', price: 5 }], customer: buyer, draft: false })).body.invoice_id;
  invoiceLink = (await api(`${base}invoices/${openInvoiceId}/links`, { method: 'POST', token: secret })).body.token;
  paidInvoiceId = (await invoice({ items: [{ product_id: 'p1' }], customer: buyer, draft: false })).body.invoice_id;
  const paidInvoice = await api(`${base}invoices/${paidInvoiceId}/payments`, { method: 'POST', token: secret, body: { payment_method: card() } });
  expect(paidInvoice.status, paidInvoice.text).toBe(201);
}, 90_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

/** Everything a refused request could have changed. */
async function snapshot(): Promise<Record<string, string>> {
  const reads = [
    'products/p1', 'products/big', 'products?limit=100&deleted=true', 'products?limit=1', 'customers/c1', 'customers?limit=100',
    'customers/cs1', 'customers/cs1/payment_methods', 'customers/c1/payment_methods',
    `carts/${cartId}`, 'carts?limit=100', `orders/${orderId}`, `payments/${paymentId}`, 'payments?limit=100', 'promotions/promo1',
    'promotions?limit=100', 'shipping_methods/ship1', 'shipping_methods?limit=100', 'settings/payment', 'settings/technical',
    `event_subscriptions/${subscriptionId}`, 'event_subscriptions?limit=100',
    'products/licensed', `license_services/${listServiceId}`, `license_services/${remoteServiceId}`, 'license_services?limit=100',
    `apps/${appId}`, 'apps?limit=100', `apps/${appId}/versions`, `apps/${appId}/aliases`, `apps/${appId}/deployments`,
    `hosted_functions/${functionId}`, 'hosted_functions?limit=100',
    'refunds?limit=100', `orders/${orderId}/refunds`, `payments/${paymentId}/refunds`,
    `orders/${shippedOrderId}`, `orders/${shippedOrderId}/shipments`, `shipments/${shipmentId}`, 'shipments?limit=100',
    'users?limit=100', 'users/owner', 'users/usr1',
    'oauth_apps?limit=100', `oauth_apps/${oauthAppId}`, `oauth_apps/${publicOauthAppId}`,
    `subscriptions/${saleSubscriptionId}`, 'subscriptions?limit=100', `subscriptions/${saleSubscriptionId}/payments`, `subscriptions/${saleSubscriptionId}/orders`,
    `invoices/${draftInvoiceId}`, `invoices/${bareDraftId}`, `invoices/${openInvoiceId}`, `invoices/${paidInvoiceId}`, 'invoices?limit=100', `invoices/${openInvoiceId}/payments`,
    // Tokens by id, kind, user and rights (not their use times, which reading moves), in both modes.
    'auths?type=all&limit=100&test=true&show=auth_id,type,user,permissions', 'auths?type=all&limit=100&test=false&show=auth_id,type,user,permissions',
  ];
  const answers = await Promise.all(reads.map((path) => api(`${base}${path}`, { token: secret }).then((answer) => [path, answer.text] as const)));
  const ledger = await api(`${origin}/_local/gateway/charges`);
  const outbox = await api(`${origin}/_local/outbox`);
  return { ...Object.fromEntries(answers), ledger: ledger.text, outbox: outbox.text };
}

interface Case {
  /** What the row probes. */
  label: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path under /api/v1/ (ids resolved at run time). */
  path: () => string;
  /** The body, or a function that makes it from ids known only at run time. */
  body?: unknown;
  /** Bytes sent as they are (with `headers`), instead of `body`. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  token?: () => string;
  status: number;
  code: string;
  property?: string;
  /** The expected `meta.reason`, where the row is about one. */
  reason?: string;
  /** The expected `meta.parameter` (a refused query parameter). */
  parameter?: string;
}

const rows: Case[] = [];
const post = (path: () => string, body: unknown, property: string | undefined, label: string, extra: Partial<Case> = {}) =>
  rows.push({ label, method: 'POST', path, body, status: 400, code: 'invalid_input', ...(property === undefined ? {} : { property }), ...extra });

/** Values no numeric field takes (conventions.md §4). */
const NOT_NUMBERS: unknown[] = ['1e3', ' 2', '2 ', 'two', '0x10', 'Infinity', 'NaN', '', '1,5', [], {}, true];
/** Values no boolean field takes. */
const NOT_BOOLEANS: unknown[] = ['yes', 'true', 1, 0, [], {}];
/** Values no text field takes. */
const NOT_TEXTS = (max: number): unknown[] => [123, {}, [], true, 'x'.repeat(max + 1), 'a\u0000b', 'bell\u0007'];

/** `meta` nested `depth` levels deep. */
function nestedMeta(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}
/** JSON text nested `depth` arrays deep, as a raw body. */
const deepBody = (depth: number, property = 'meta') => `{"${property}":${'['.repeat(depth)}${']'.repeat(depth)}}`;

const product = { name: 'N', type: 'digital', prices: [{ currency: 'USD', price: 1 }] };
const products = () => 'products';
// --- POST /products: every field's type, magnitude and text rules
for (const value of NOT_NUMBERS) post(products, { ...product, prices: [{ currency: 'USD', price: value }] }, 'prices[0].price', `product price ${JSON.stringify(value)}`);
for (const value of [-1, 1e12, 1e20, 1e300]) post(products, { ...product, prices: [{ currency: 'USD', price: value }] }, 'prices[0].price', `product price ${value}`);
for (const value of NOT_TEXTS(200)) post(products, { ...product, name: value }, 'name', `product name ${JSON.stringify(value).slice(0, 20)}`);
for (const value of NOT_BOOLEANS) post(products, { ...product, active: value }, 'active', `product active ${JSON.stringify(value)}`);
for (const value of NOT_BOOLEANS.slice(0, 3)) post(products, { ...product, hidden: value }, 'hidden', `product hidden ${JSON.stringify(value)}`);
for (const value of ['ebook', 1, null, '']) post(products, { ...product, type: value }, 'type', `product type ${JSON.stringify(value)}`);
for (const value of ['a b', '-x', '../x', 'a/b', 'x'.repeat(101), 7, 'é']) post(products, { ...product, product_id: value }, 'product_id', `product id ${JSON.stringify(value).slice(0, 20)}`);
for (const value of ['1e3', '0', 366, 1.5, '1.5', 'one']) {
  post(products, { ...product, subscription_plan: { billing_interval: value, billing_interval_unit: 'month' } }, 'subscription_plan.billing_interval', `plan interval ${JSON.stringify(value)}`);
}
post(products, { ...product, meta: nestedMeta(40) }, 'meta', 'product meta 40 deep');
post(products, { ...product, meta: 'q'.repeat(2100) }, 'meta', 'product meta 2100 characters');
post(products, { ...product, meta: true }, 'meta', 'product meta boolean');
post(products, { ...product, prices: 'USD 1' }, 'prices', 'product prices a string');
post(products, { ...product, prices: [] }, 'prices', 'product prices empty');
// --- POST /products/{id}
const p1 = () => 'products/p1';
for (const value of ['1e3', 'two', 1e20]) post(p1, { prices: [{ currency: 'USD', price: value }] }, 'prices[0].price', `product update price ${value}`);
post(p1, { name: null }, 'name', 'product update name null');
post(p1, { active: 'false' }, 'active', 'product update active "false"');
post(p1, { deleted: 'no' }, 'deleted', 'product update deleted "no"');
post(p1, { meta: nestedMeta(33) }, 'meta', 'product update meta 33 deep');

// --- carts (a shopper's own token is enough to send these)
const carts = () => 'carts';
const asShopper = { token: () => shopper };
for (const value of ['1e3', ' 2', 'two', '2 ', -1, 10_000, 1.5, '1.5', [], {}, true]) {
  post(carts, { items: [{ product_id: 'p1', quantity: value }] }, 'items[0].quantity', `cart quantity ${JSON.stringify(value)}`, asShopper);
}
for (const value of [{}, [], true, null]) post(carts, { items: [{ product_id: value }] }, 'items[0].product_id', `cart product_id ${JSON.stringify(value)}`, asShopper);
post(carts, { items: [{ quantity: 1 }] }, 'items[0].product_id', 'cart item without product_id', asShopper);
post(carts, { items: 'p1' }, 'items', 'cart items a string', asShopper);
post(carts, { items: [{ product_id: 'nope' }] }, 'items[0].product_id', 'cart unknown product', asShopper);
post(carts, { items: [{ product_id: 'big', quantity: 9999 }] }, undefined, 'cart total over the money limit', asShopper);
post(carts, { items: [{ product_id: 'p1' }], meta: nestedMeta(40) }, 'meta', 'cart meta 40 deep', asShopper);
post(carts, { items: [{ product_id: 'p1' }], customer: { email: 'not-an-email' } }, 'customer.email', 'cart customer email', asShopper);
post(carts, { items: [{ product_id: 'p1' }], customer: { billing_address: { country: 'USA' } } }, 'customer.billing_address.country', 'cart country', asShopper);
post(carts, { items: [{ product_id: 'p1' }], customer: 'Ada' }, 'customer', 'cart customer a string', asShopper);
post(carts, { items: [{ product_id: 'p1' }], customer: { name: 'x\u0000' } }, 'customer.name', 'cart customer name control character', asShopper);
const cart = () => `carts/${cartId}`;
for (const value of ['1e3', 'two', -3]) post(cart, { items: [{ product_id: 'p1', quantity: value }] }, 'items[0].quantity', `cart update quantity ${JSON.stringify(value)}`, asShopper);
post(cart, { items: [{ product_id: 'big', quantity: 5000 }] }, undefined, 'cart update total over the money limit', asShopper);
post(cart, { referrer: 5 }, 'referrer', 'cart referrer a number', asShopper);
post(cart, { meta: nestedMeta(50) }, 'meta', 'cart update meta 50 deep', asShopper);
const cartItems = () => `carts/${cartId}/items`;
for (const value of ['1e3', 0, 'x', 1.25]) post(cartItems, { product_id: 'p1', quantity: value }, 'quantity', `cart item upsert quantity ${JSON.stringify(value)}`, asShopper);
post(cartItems, { product_id: { id: 'p1' } }, 'product_id', 'cart item upsert product_id an object', asShopper);
const cartItem = () => `carts/${cartId}/items/p1`;
for (const value of ['1e3', 'x', -1]) post(cartItem, { quantity: value }, 'quantity', `cart item update quantity ${JSON.stringify(value)}`, asShopper);
rows.push({ label: 'delete of an item not in the cart', method: 'DELETE', path: () => `carts/${cartId}/items/big`, token: () => shopper, status: 404, code: 'resource_not_found' });
post(() => `carts/${cartId}/login`, { username: 5, password: 'x' }, 'username', 'cart login username a number', asShopper);

// --- payments: nothing is charged on a refused request (the ledger is in the snapshot)
const cartPayments = () => `carts/${cartId}/payments`;
for (const value of ['yes', 1, 'true']) post(cartPayments, { payment_method: card(), allow_duplicate: value }, 'allow_duplicate', `cart payment allow_duplicate ${JSON.stringify(value)}`, asShopper);
post(cartPayments, { payment_method: card({ number: 4242424242424242 }) }, 'payment_method.data.number', 'card number a number', asShopper);
post(cartPayments, { payment_method: card({ exp_month: 13 }) }, 'payment_method.data.exp_month', 'card month 13', asShopper);
post(cartPayments, { payment_method: card({ exp_month: 'x' }) }, 'payment_method.data.exp_month', 'card month "x"', asShopper);
post(cartPayments, { payment_method: card({ exp_year: '1e3' }) }, 'payment_method.data.exp_year', 'card year "1e3"', asShopper);
post(cartPayments, { payment_method: 'card' }, 'payment_method', 'payment method a string', asShopper);
post(cartPayments, { payment_method: card(), meta: nestedMeta(40) }, 'meta', 'payment meta 40 deep', asShopper);
const direct = () => 'payments';
const directBody = { currency: 'USD', total: 10, customer: buyer, payment_method: card() };
for (const value of [1e300, 1e13, '1e3', 'ten', -5, {}]) post(direct, { ...directBody, total: value }, 'total', `direct payment total ${JSON.stringify(value)}`);
post(direct, { ...directBody, allow_duplicate: 'yes' }, 'allow_duplicate', 'direct payment allow_duplicate "yes"');
post(direct, { ...directBody, currency: 5 }, 'currency', 'direct payment currency a number');
post(direct, { ...directBody, reference: { a: 1 } }, 'reference', 'direct payment reference an object');
post(() => `payments/${paymentId}`, { meta: nestedMeta(40) }, 'meta', 'payment update meta 40 deep');
post(() => `payments/${paymentId}`, { description: 7 }, 'description', 'payment update description a number');

// --- refunds: nothing is refunded or reserved on a refused request (the ledger and the refunds are in the snapshot)
const orderRefunds = () => `orders/${orderId}/refunds`;
const paymentRefunds = () => `payments/${paymentId}/refunds`;
for (const value of [...NOT_NUMBERS.slice(0, 6), -5, 1e13, 0, 1.001, 100]) post(orderRefunds, { total: value }, 'total', `order refund total ${JSON.stringify(value)}`);
post(orderRefunds, { items: [{ item_id: 'p1', quantity: 1 }], total: 1 }, 'total', 'order refund with items and total', { reason: 'conflict' });
post(orderRefunds, { items: 'p1' }, 'items', 'order refund items a string');
post(orderRefunds, { items: [{ item_id: 'p1', quantity: 0 }] }, 'items[0].quantity', 'order refund quantity 0');
post(orderRefunds, { items: [{ item_id: 'p1', quantity: 'x' }] }, 'items[0].quantity', 'order refund quantity "x"');
post(orderRefunds, { items: [{ item_id: 'p1', quantity: 2 }] }, 'items[0].quantity', 'order refund quantity above the order', { reason: 'out_of_range' });
post(orderRefunds, { items: [{ quantity: 1 }] }, 'items[0].item_id', 'order refund item without id');
post(orderRefunds, { items: [{ item_id: 'big', quantity: 1 }] }, 'items[0].item_id', 'order refund item not in the order', { reason: 'not_found' });
post(orderRefunds, { shipping: 'yes' }, 'shipping', 'order refund shipping "yes"');
post(orderRefunds, { reason: 'r'.repeat(501) }, 'reason', 'order refund reason 501 characters');
post(orderRefunds, { meta: nestedMeta(40) }, 'meta', 'order refund meta 40 deep');
post(paymentRefunds, { items: [{ item_id: 'p1', quantity: 1 }] }, 'items', 'payment refund by items', { reason: 'not_allowed' });
post(paymentRefunds, { total: 'ten' }, 'total', 'payment refund total "ten"');
rows.push({ label: 'order refund: limited token', method: 'POST', path: orderRefunds, body: {}, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'payment refund: limited token', method: 'POST', path: paymentRefunds, body: {}, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'refund list: limited token', method: 'GET', path: () => 'refunds', token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'refund of an unknown order', method: 'POST', path: () => 'orders/NOSUCHORDER/refunds', body: {}, status: 404, code: 'resource_not_found' });
rows.push({ label: 'refund of an unknown payment', method: 'POST', path: () => 'payments/NOSUCHPAYMENT/refunds', body: {}, status: 404, code: 'resource_not_found' });
rows.push({ label: 'refunds of an unknown customer', method: 'GET', path: () => 'customers/NOSUCHCUSTOMER/refunds', status: 404, code: 'resource_not_found' });
for (const query of ['limit=0', 'limit=x', 'after_item=NOPE', 'date_type=x', 'after_item=A&before_item=B', 'date_start=yesterdayish']) {
  rows.push({ label: `refund list ${query}`, method: 'GET', path: () => `refunds?${query}`, status: 400, code: 'invalid_input' });
}

// --- customers
const customers = () => 'customers';
for (const value of NOT_TEXTS(200)) post(customers, { name: value }, 'name', `customer name ${JSON.stringify(value).slice(0, 20)}`);
for (const value of ['x', 'a@b', 5]) post(customers, { email: value }, 'email', `customer email ${JSON.stringify(value)}`);
post(customers, { password: 'short' }, 'password', 'customer password too short');
post(customers, { billing_address: 'Main St' }, 'billing_address', 'customer address a string');
post(customers, { billing_address: { postal_code: {} } }, 'billing_address.postal_code', 'customer postal code an object');
post(customers, { tax_exempt: 'yes' }, 'tax_exempt', 'customer tax_exempt "yes"');
post(customers, { meta: nestedMeta(40) }, 'meta', 'customer meta 40 deep');
post(customers, { customer_id: 'me' }, 'customer_id', 'customer id "me"');
post(customers, { customer_id: '../c1' }, 'customer_id', 'customer id with ../');
post(() => 'customers/c1', { email: 'nope' }, 'email', 'customer update email');
post(() => 'customers/c1', { meta: nestedMeta(40) }, 'meta', 'customer update meta 40 deep');
post(() => 'customers/c1', { has_payments: 'x', tax_exempt: 1 }, 'tax_exempt', 'customer update tax_exempt 1');
post(() => `customers/login?account_id=${account}&test=true`, { username: {}, password: 'secret12' }, 'username', 'login username an object', { token: () => '' });
post(() => 'customers/c1/payment_methods', { type: 'credit_card', data: { number: '4242424242424242', exp_month: 'May', exp_year: 2031, cvv: '123' } }, 'data.exp_month', 'saved card month "May"');
post(() => 'customers/c1/payment_methods', { type: 'credit_card', data: { exp_month: 12, exp_year: 2031, cvv: '123' } }, 'data.number', 'saved card without number or token', { reason: 'required' });
post(() => 'customers/c1/payment_methods', { type: 'credit_card', data: { token: 'card_123' } }, 'data.token', 'saved card token not a pm_ id');
post(() => 'customers/c1/payment_methods', { type: 'credit_card', data: { token: 'pm_card_visa' } }, 'data.token', 'saved card token without a Stripe connection', { reason: 'not_allowed' });

// --- the customer portal's own paths (`/customers/me/...`, commerce.md §6.1), with its customer-scope token
const asPortal = { token: () => portal };
const myMethods = () => 'customers/me/payment_methods';
const myMethod = () => `customers/me/payment_methods/${portalMethodId}`;
post(() => 'customers/me', { email: 'nope' }, 'email', 'my customer email', asPortal);
post(() => 'customers/me', { meta: nestedMeta(40) }, 'meta', 'my customer meta 40 deep', asPortal);
post(myMethods, { type: 'credit_card', data: { number: '4242424242424242', exp_month: 'May', exp_year: 2031, cvv: '123' } }, 'data.exp_month', 'my saved card month "May"', asPortal);
post(myMethods, card({ number: '4242424242424241' }), 'data.number', 'my saved card number failing Luhn', asPortal);
post(myMethods, { ...card(), type: 'paypal' }, 'type', 'my saved card type paypal', asPortal);
post(myMethods, card({ exp_year: 2020 }), 'data.exp_year', 'my saved card expired', asPortal);
post(myMethods, { ...card(), is_default: 'yes' }, 'is_default', 'my saved card is_default "yes"', asPortal);
post(myMethod, { data: { number: '4242424242424242' } }, 'data.number', 'my saved card number change', asPortal);
post(myMethod, { data: { exp_month: 13 } }, 'data.exp_month', 'my saved card month 13', asPortal);
rows.push({ label: 'my saved card unknown id', method: 'POST', path: () => 'customers/me/payment_methods/NOPE', body: { is_default: true }, ...asPortal, status: 404, code: 'resource_not_found' });
for (const [who, token] of [['a secret token', () => secret], ['a shopper without customer scope', () => shopper]] as const) {
  rows.push({ label: `my saved cards: ${who}`, method: 'POST', path: myMethods, body: card(), token, status: 404, code: 'resource_not_found' });
  rows.push({ label: `my saved card update: ${who}`, method: 'POST', path: myMethod, body: { is_default: true }, token, status: 404, code: 'resource_not_found' });
  rows.push({ label: `my saved card delete: ${who}`, method: 'DELETE', path: myMethod, token, status: 404, code: 'resource_not_found' });
  rows.push({ label: `my customer update: ${who}`, method: 'POST', path: () => 'customers/me', body: { name: 'X' }, token, status: 404, code: 'resource_not_found' });
}

// --- users (auth.md 9): ids, texts, emails, the password rules, permission lists, uniqueness, escalation
const users = () => 'users';
const userBody = { user_id: 'newuser', name: 'New User', email: 'new@example.test' };
for (const value of ['ab', 'a b', '../x', 'a/b', 'x'.repeat(65), 5, '', 'é-user']) post(users, { ...userBody, user_id: value }, 'user_id', `user id ${JSON.stringify(value).slice(0, 20)}`);
post(users, { name: 'N', email: 'n@example.test' }, 'user_id', 'user without user_id');
for (const value of NOT_TEXTS(100)) post(users, { ...userBody, name: value }, 'name', `user name ${JSON.stringify(value).slice(0, 20)}`);
post(users, { user_id: 'newuser', email: 'n@example.test' }, 'name', 'user without name');
for (const value of ['x', 'a@b', 5, null, '']) post(users, { ...userBody, email: value }, 'email', `user email ${JSON.stringify(value)}`);
for (const [value, reason] of [['fourteen chars', 'too_short'], ['x'.repeat(129), 'too_long'], ['passwordpassword', 'invalid'], ['new@example.test', 'invalid'], ['               ', 'invalid']] as const) {
  post(users, { ...userBody, password: value }, 'password', `user password ${JSON.stringify(value).slice(0, 20)}`, { reason });
}
post(users, { ...userBody, password: 123456789012345 }, 'password', 'user password a number');
post(users, { ...userBody, permissions: [{ resource: 'nope', methods: ['read'] }] }, 'permissions[0].resource', 'user permission resource unknown');
post(users, { ...userBody, permissions: [{ resource: 'orders', methods: ['fly'] }] }, 'permissions[0].methods[0]', 'user permission method unknown');
post(users, { ...userBody, permissions: 'all' }, 'permissions', 'user permissions a string');
post(users, { ...userBody, is_account_owner: 'yes' }, 'is_account_owner', 'user is_account_owner "yes"');
post(users, { ...userBody, language: 'not a tag!' }, 'language', 'user language not a tag');
post(users, { ...userBody, user_id: 'OWNER' }, 'user_id', 'user id taken (other case)', { status: 409, code: 'in_use' });
post(users, { ...userBody, email: 'U1@example.test' }, 'email', 'user email taken (other case)', { status: 409, code: 'in_use' });
post(users, { ...userBody, permissions: [{ resource: 'orders', methods: ['read'] }] }, undefined, 'user granted what the caller lacks', { status: 403, code: 'insufficient_permissions', token: () => usersOnly });
post(users, { ...userBody, is_account_owner: true }, undefined, 'owner made by a non-owner', { status: 403, code: 'insufficient_permissions', token: () => usersOnly });
const u1 = () => 'users/usr1';
post(u1, { email: 'nope' }, 'email', 'user update email');
post(u1, { name: null }, 'name', 'user update name null');
post(u1, { password: 'short' }, 'password', 'user update password too short');
post(u1, { password: 'u1@example.test' }, 'password', 'user update password is the email');
post(u1, { permissions: [{ resource: '*', methods: ['*'], allow: 'yes' }] }, 'permissions[0].allow', 'user update allow "yes"');
post(u1, { is_account_owner: 1 }, 'is_account_owner', 'user update is_account_owner 1');
post(u1, { email: 'owner@example.test' }, 'email', 'user update email taken', { status: 409, code: 'in_use' });
post(u1, { permissions: [{ resource: 'products', methods: ['read'] }] }, undefined, 'user update granting what the caller lacks', { status: 403, code: 'insufficient_permissions', token: () => usersOnly });
for (const path of ['users/nope', 'users/..%2Fowner', 'users/%2e%2e']) {
  rows.push({ label: `user read ${path}`, method: 'GET', path: () => path, status: 404, code: 'resource_not_found' });
  rows.push({ label: `user update ${path}`, method: 'POST', path: () => path, body: { name: 'X' }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `user delete ${path}`, method: 'DELETE', path: () => path, status: 404, code: 'resource_not_found' });
}
rows.push({ label: 'user delete yourself', method: 'DELETE', path: () => 'users/owner', token: () => ownerTrusted, status: 422, code: 'invalid_state' });
rows.push({ label: 'user delete the last owner', method: 'DELETE', path: () => 'users/owner', status: 422, code: 'invalid_state' });
post(() => 'users/owner', { is_account_owner: false }, undefined, 'the last owner demoted', { status: 422, code: 'invalid_state' });
rows.push({ label: 'user list sort_by unknown', method: 'GET', path: () => 'users?sort_by=email', status: 400, code: 'invalid_input' });
// --- /users/me: trusted tokens only; what a user may change of itself
const me = () => 'users/me';
const asOwner = { token: () => ownerTrusted };
post(me, { email: 'nope' }, 'email', 'my user email', asOwner);
post(me, { name: '' }, 'name', 'my user name empty', asOwner);
post(me, { password: 'too short' }, 'password', 'my user password too short', asOwner);
post(me, { password: 'passwordpassword' }, 'password', 'my user password common', asOwner);
post(me, { password: 'a fine new passphrase', current_password: 'wrong' }, 'current_password', 'my user current password wrong', asOwner);
post(me, { locale: 7 }, 'locale', 'my user locale a number', asOwner);
for (const [who, token] of [['a secret token', () => secret], ['a shopper', () => shopper], ['a customer-scope token', () => portal]] as const) {
  rows.push({ label: `my user read: ${who}`, method: 'GET', path: me, token, status: 403, code: 'insufficient_permissions' });
  rows.push({ label: `my user update: ${who}`, method: 'POST', path: me, body: { name: 'X' }, token, status: 403, code: 'insufficient_permissions' });
}
// --- POST /auths/trusted: trusted callers only; a test caller gets no live token
rows.push({ label: 'trusted twin: a secret token', method: 'POST', path: () => 'auths/trusted?test=true', status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'trusted twin: a shopper', method: 'POST', path: () => 'auths/trusted?test=true', token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'trusted twin: live from a test token', method: 'POST', path: () => 'auths/trusted', token: () => ownerTrustedTest, status: 400, code: 'token_type_mismatch' });
rows.push({ label: 'trusted twin: test not a boolean', method: 'POST', path: () => 'auths/trusted?test=maybe', token: () => ownerTrusted, status: 400, code: 'invalid_input' });
rows.push({ label: 'trusted twin: an unknown token', method: 'POST', path: () => 'auths/trusted?test=true', token: () => 'tt.live.0000000000000000000000000000000000000000', status: 401, code: 'invalid_token' });

// --- /oauth_apps (auth.md 6.1): texts, the client type, redirect URI rules, permission caps, escalation, ids
const oauthApps = () => 'oauth_apps';
const oauthApp = () => `oauth_apps/${oauthAppId}`;
const appBody = { name: 'App', redirect_uris: ['https://app.example.test/cb2'] };
post(oauthApps, { redirect_uris: ['https://app.example.test/cb'] }, 'name', 'oauth app without name');
for (const value of NOT_TEXTS(100)) post(oauthApps, { ...appBody, name: value }, 'name', `oauth app name ${JSON.stringify(value).slice(0, 20)}`);
post(oauthApps, { ...appBody, description: 5 }, 'description', 'oauth app description a number');
for (const value of ['private', 'PUBLIC', 1, null]) post(oauthApps, { ...appBody, client_type: value }, 'client_type', `oauth app client_type ${JSON.stringify(value)}`);
post(oauthApps, { ...appBody, redirect_uris: 'https://app.example.test/cb' }, 'redirect_uris', 'oauth app redirect_uris a string');
for (const value of ['http://app.example.test/cb', 'https://app.example.test/cb#x', 'not a uri', 'javascript:alert(1)', 'https://user:pw@app.example.test/cb', 'ftp://app.example.test/cb', 'http://localhost.evil.test/cb', 5, 'https://x.test/'.padEnd(2001, 'a')]) {
  post(oauthApps, { ...appBody, redirect_uris: [value] }, 'redirect_uris[0]', `oauth app redirect uri ${JSON.stringify(value).slice(0, 32)}`);
}
post(oauthApps, { ...appBody, permissions: [{ resource: 'nope', methods: ['read'] }] }, 'permissions[0].resource', 'oauth app permission resource unknown');
post(oauthApps, { ...appBody, permissions: 'all' }, 'permissions', 'oauth app permissions a string');
post(oauthApps, { ...appBody, active: 'yes' }, 'active', 'oauth app active "yes"');
post(oauthApps, { ...appBody, permissions: [{ resource: 'orders', methods: ['read'] }] }, undefined, 'oauth app capped above the caller', { status: 403, code: 'insufficient_permissions', token: () => authsOnly });
post(oauthApps, appBody, undefined, 'oauth app by a token without auths rights', { status: 403, code: 'insufficient_permissions', token: () => usersOnly });
post(oauthApps, appBody, undefined, 'oauth app by a shopper', { status: 403, code: 'insufficient_permissions', token: () => shopper });
post(oauthApp, { name: null }, 'name', 'oauth app update name null');
post(oauthApp, { redirect_uris: ['http://evil.example.test/cb'] }, 'redirect_uris[0]', 'oauth app update redirect uri over http');
post(oauthApp, { permissions: [{ resource: 'orders', methods: ['fly'] }] }, 'permissions[0].methods[0]', 'oauth app update permission method unknown');
post(oauthApp, { active: 'no' }, 'active', 'oauth app update active "no"');
post(oauthApp, { permissions: [{ resource: 'orders', methods: ['read'] }] }, undefined, 'oauth app update capped above the caller', { status: 403, code: 'insufficient_permissions', token: () => authsOnly });
rows.push({ label: 'oauth app reset_secret of a public app', method: 'POST', path: () => `oauth_apps/${publicOauthAppId}/reset_secret`, status: 422, code: 'invalid_state' });
rows.push({ label: 'oauth app reset_secret by a shopper', method: 'POST', path: () => `oauth_apps/${oauthAppId}/reset_secret`, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'oauth app list sort_by unknown', method: 'GET', path: () => 'oauth_apps?sort_by=client_id', status: 400, code: 'invalid_input' });
for (const [label, method, path] of [['read', 'GET', 'oauth_apps/NOSUCHAPP'], ['update', 'POST', 'oauth_apps/NOSUCHAPP'], ['delete', 'DELETE', 'oauth_apps/NOSUCHAPP'], ['reset_secret', 'POST', 'oauth_apps/NOSUCHAPP/reset_secret']] as const) {
  rows.push({ label: `oauth app ${label} of an unknown id`, method, path: () => path, ...(method === 'POST' && label === 'update' ? { body: { name: 'X' } } : {}), status: 404, code: 'resource_not_found' });
}
// --- POST /oauth/token (auth.md 6.3): public, form or JSON; nothing is issued on a refused request (the auths are in the snapshot)
const oauthToken = () => 'oauth/token';
const anonymous = { token: () => '' };
const clientFields = () => ({ client_id: oauthClient.id, client_secret: oauthClient.secret });
const tokenRow = (label: string, body: unknown, status: number, code: string, property?: string) =>
  rows.push({ label: `oauth token: ${label}`, method: 'POST', path: oauthToken, body, status, code, ...(property ? { property } : {}), ...anonymous });
tokenRow('no grant_type', {}, 400, 'invalid_input', 'grant_type');
tokenRow('grant_type password', { grant_type: 'password', username: 'owner', password: 'x' }, 400, 'invalid_input', 'grant_type');
tokenRow('grant_type a number', { grant_type: 5 }, 400, 'invalid_input', 'grant_type');
tokenRow('no client', { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://app.example.test/cb' }, 401, 'invalid_login');
tokenRow('unknown client', { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'ci_nope', client_secret: 'cs_nope' }, 401, 'invalid_login');
rows.push({ label: 'oauth token: wrong secret of a known client', method: 'POST', path: oauthToken, body: () => ({ grant_type: 'refresh_token', refresh_token: 'x', client_id: oauthClient.id, client_secret: `${oauthClient.secret}x` }), status: 401, code: 'invalid_login', ...anonymous });
rows.push({ label: 'oauth token: code missing', method: 'POST', path: oauthToken, body: () => ({ grant_type: 'authorization_code', redirect_uri: 'https://app.example.test/cb', ...clientFields() }), status: 400, code: 'invalid_input', property: 'code', ...anonymous });
rows.push({ label: 'oauth token: redirect_uri missing', method: 'POST', path: oauthToken, body: () => ({ grant_type: 'authorization_code', code: 'x'.repeat(40), ...clientFields() }), status: 400, code: 'invalid_input', property: 'redirect_uri', ...anonymous });
rows.push({ label: 'oauth token: unknown code', method: 'POST', path: oauthToken, body: () => ({ grant_type: 'authorization_code', code: 'x'.repeat(40), redirect_uri: 'https://app.example.test/cb', ...clientFields() }), status: 400, code: 'invalid_input', property: 'code', ...anonymous });
rows.push({ label: 'oauth token: code an object', method: 'POST', path: oauthToken, body: () => ({ grant_type: 'authorization_code', code: { a: 1 }, redirect_uri: 'https://app.example.test/cb', ...clientFields() }), status: 400, code: 'invalid_input', property: 'code', ...anonymous });
rows.push({ label: 'oauth token: code_verifier too short', method: 'POST', path: oauthToken, body: () => ({ grant_type: 'authorization_code', code: 'x'.repeat(40), redirect_uri: 'https://app.example.test/cb', code_verifier: 'short', ...clientFields() }), status: 400, code: 'invalid_input', property: 'code_verifier', ...anonymous });
rows.push({ label: 'oauth token: unknown refresh token', method: 'POST', path: oauthToken, body: () => ({ grant_type: 'refresh_token', refresh_token: 'rt.test.0000000000000000000000000000000000000000', ...clientFields() }), status: 400, code: 'invalid_input', property: 'refresh_token', ...anonymous });
rows.push({ label: 'oauth token: a secret token as the refresh token', method: 'POST', path: oauthToken, body: () => ({ grant_type: 'refresh_token', refresh_token: secret, ...clientFields() }), status: 400, code: 'invalid_input', property: 'refresh_token', ...anonymous });
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
rows.push({ label: 'oauth token: text/plain', method: 'POST', path: oauthToken, raw: 'grant_type=refresh_token&refresh_token=x', headers: { 'Content-Type': 'text/plain' }, status: 400, code: 'invalid_syntax', ...anonymous });
rows.push({ label: 'oauth token: form not UTF-8', method: 'POST', path: oauthToken, raw: Buffer.from('grant_type=%C3%28'), headers: form, status: 400, code: 'invalid_syntax', ...anonymous });
rows.push({ label: 'oauth token: JSON not JSON', method: 'POST', path: oauthToken, raw: '{"grant_type":', headers: { 'Content-Type': 'application/json' }, status: 400, code: 'invalid_syntax', ...anonymous });
rows.push({ label: 'oauth token: malformed Basic credentials', method: 'POST', path: oauthToken, raw: 'grant_type=refresh_token&refresh_token=x', headers: { ...form, Authorization: 'Basic bm9jb2xvbg==' }, status: 401, code: 'invalid_login', ...anonymous });
rows.push({ label: 'oauth token: Basic and a body secret', method: 'POST', path: oauthToken, raw: 'grant_type=refresh_token&refresh_token=x&client_secret=cs_x', headers: { ...form, Authorization: `Basic ${Buffer.from('ci_x:cs_x').toString('base64')}` }, status: 400, code: 'invalid_input', property: 'client_secret', ...anonymous });

// --- orders, promotions, shipping methods, settings, auths
post(() => `orders/${orderId}`, { meta: nestedMeta(40) }, 'meta', 'order meta 40 deep');
post(() => `orders/${orderId}`, { referrer: [] }, 'referrer', 'order referrer an array');
post(() => `orders/${orderId}/items/p1`, { meta: 'q'.repeat(3000) }, 'meta', 'order item meta 3000 characters');
const promotions = () => 'promotions';
const promotion = { name: 'P', code: 'NEWCODE', discount_type: 'percent', discount_percent: 0.2 };
for (const value of ['1e3', 'half', 2, 0, []]) post(promotions, { ...promotion, discount_percent: value }, 'discount_percent', `promotion percent ${JSON.stringify(value)}`);
post(promotions, { ...promotion, code: 'has space' }, 'code', 'promotion code with a space');
post(promotions, { ...promotion, active: 'yes' }, 'active', 'promotion active "yes"');
post(promotions, { ...promotion, max_uses: '1e3' }, 'max_uses', 'promotion max_uses "1e3"');
post(promotions, { ...promotion, discount_type: 'amount', discount_percent: undefined, discount_amounts: [{ currency: 'USD', amount: 1e20 }] }, 'discount_amounts[0].amount', 'promotion amount 1e20');
post(() => 'promotions/promo1', { discount_percent: 'x' }, 'discount_percent', 'promotion update percent "x"');
const shipping = () => 'shipping_methods';
for (const value of ['1e3', 'free', 1e20, -1]) post(shipping, { name: 'S', prices: [{ currency: 'USD', price: value }] }, 'prices[0].price', `shipping price ${JSON.stringify(value)}`);
post(shipping, { name: 'S', active: 'no', prices: [{ currency: 'USD', price: 1 }] }, 'active', 'shipping active "no"');
post(() => 'shipping_methods/ship1', { countries: 'US' }, 'countries', 'shipping update countries a string');

// --- shipments (commerce.md §8): nothing is shipped, and the order's fulfilment does not move
const orderShipments = () => `orders/${shippedOrderId}/shipments`;
const shipmentPath = () => `shipments/${shipmentId}`;
for (const value of ['1e3', 'two', 0, -1, 1.5, 1_000_001, [], {}, true]) {
  post(orderShipments, { items: [{ item_id: 'phys', quantity: value }] }, 'items[0].quantity', `shipment quantity ${JSON.stringify(value)}`);
}
post(orderShipments, { items: [{ item_id: 'phys', quantity: 2 }] }, 'items[0].quantity', 'shipment of more than is left', { reason: 'out_of_range' });
post(orderShipments, { items: [{ item_id: 'p1', quantity: 1 }] }, 'items[0].item_id', 'shipment of a digital item', { reason: 'not_allowed' });
post(orderShipments, { items: [{ item_id: 'nope', quantity: 1 }] }, 'items[0].item_id', 'shipment of an item not in the order', { reason: 'not_found' });
post(orderShipments, { items: [{ item_id: 'phys', quantity: 1 }, { item_id: 'phys', quantity: 1 }] }, 'items[1].item_id', 'shipment naming an item twice', { reason: 'conflict' });
post(orderShipments, { items: [{ quantity: 1 }] }, 'items[0].item_id', 'shipment line without item_id');
post(orderShipments, { items: [] }, 'items', 'shipment with no lines');
post(orderShipments, { items: 'phys' }, 'items', 'shipment items a string');
for (const value of NOT_TEXTS(200)) post(orderShipments, { courier: value }, 'courier', `shipment courier ${JSON.stringify(value).slice(0, 20)}`);
for (const value of ['javascript:alert(1)', 'ftp://example.test/x', '/relative', 5]) post(orderShipments, { tracking_url: value }, 'tracking_url', `shipment tracking_url ${JSON.stringify(value)}`);
for (const value of ['soon', '2026-13-01', 5, {}]) post(orderShipments, { date_shipped: value }, 'date_shipped', `shipment date_shipped ${JSON.stringify(value)}`);
post(orderShipments, { meta: nestedMeta(40) }, 'meta', 'shipment meta 40 deep');
rows.push({ label: 'shipment of an order with nothing physical', method: 'POST', path: () => `orders/${orderId}/shipments`, body: {}, status: 422, code: 'invalid_state' });
rows.push({ label: 'shipment of an unknown order', method: 'POST', path: () => 'orders/NOSUCHORDER/shipments', body: {}, status: 404, code: 'resource_not_found' });
post(shipmentPath, { courier: 5 }, 'courier', 'shipment update courier a number');
post(shipmentPath, { tracking_url: 'mailto:a@example.test' }, 'tracking_url', 'shipment update tracking_url mailto');
post(shipmentPath, { date_shipped: 'yesterdayish' }, 'date_shipped', 'shipment update date_shipped');
post(shipmentPath, { meta: 'q'.repeat(2100) }, 'meta', 'shipment update meta 2100 characters');
rows.push({ label: 'shipment update of an unknown id', method: 'POST', path: () => 'shipments/NOSUCHSHIPMENT', body: { courier: 'X' }, status: 404, code: 'resource_not_found' });
rows.push({ label: 'shipment delete of an unknown id', method: 'DELETE', path: () => 'shipments/NOSUCHSHIPMENT', status: 404, code: 'resource_not_found' });
rows.push({ label: 'shipment create: limited token', method: 'POST', path: orderShipments, body: {}, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'shipment update: limited token', method: 'POST', path: shipmentPath, body: { courier: 'X' }, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'shipment delete: limited token', method: 'DELETE', path: shipmentPath, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'shipment create: customer scope', method: 'POST', path: orderShipments, body: {}, token: () => portal, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'shipment delete: another mode', method: 'DELETE', path: shipmentPath, token: () => runtime.bootstrap.tokens.live_secret, status: 400, code: 'token_type_mismatch' });

// --- money precision (commerce.md §1.2): more decimals than the currency's minor units, as numbers and as strings
const precise = { reason: 'precision' };
for (const [currency, value] of [['USD', 19.999], ['USD', '19.999'], ['JPY', 10.5], ['BHD', '1.2345'], ['USD', 0.001]] as const) {
  const label = `${currency} ${JSON.stringify(value)}`;
  post(products, { ...product, prices: [{ currency, price: value }] }, 'prices[0].price', `product price ${label}`, precise);
  post(shipping, { name: 'S', prices: [{ currency, price: value }] }, 'prices[0].price', `shipping price ${label}`, precise);
  post(promotions, { ...promotion, discount_type: 'amount', discount_percent: undefined, discount_amounts: [{ currency, amount: value }] }, 'discount_amounts[0].amount', `promotion amount ${label}`, precise);
}
post(p1, { prices: [{ currency: 'USD', price: 5 }, { currency: 'EUR', price: 5.555 }] }, 'prices[1].price', 'product update price EUR 5.555', precise);
post(() => 'shipping_methods/ship1', { prices: [{ currency: 'USD', price: '4.001' }] }, 'prices[0].price', 'shipping update price "4.001"', precise);
for (const field of ['subtotal', 'shipping', 'tax', 'total'] as const) post(direct, { ...directBody, [field]: 10.005 }, field, `direct payment ${field} 10.005`, precise);
post(direct, { ...directBody, currency: 'JPY', total: '100.5' }, 'total', 'direct payment JPY total "100.5"', precise);
const payment = () => 'settings/payment';
for (const value of ['x', -1, 86_401, '1e3', 1.5]) post(payment, { duplicate_payment_timeout: value }, 'duplicate_payment_timeout', `settings timeout ${JSON.stringify(value)}`);
post(payment, { allow_save_cards: 'yes' }, 'allow_save_cards', 'settings allow_save_cards "yes"');
post(payment, { currencies: 'USD' }, 'currencies', 'settings currencies a string');
post(payment, { exchange_rates: { EUR: 'lots' } }, 'exchange_rates.EUR', 'settings rate "lots"');
post(() => 'settings/technical', { cors_allowed_origins: 'https://a.test' }, 'cors_allowed_origins', 'settings origins a string');
// --- Stripe (commerce.md §4.7, §13.2): malformed connections are refused before Stripe is asked; nothing is saved
const stripeKeys = { publishable_key: 'pk_test_abcd', secret_key: 'sk_test_abcd', webhook_secret: 'whsec_abcd' };
post(payment, { stripe_live: 'sk_live_abcd' }, 'stripe_live', 'settings stripe_live a string');
post(payment, { stripe_live: { ...stripeKeys, secret_key: 'pk_live_abcd' } }, 'stripe_live.secret_key', 'settings stripe secret key a publishable key');
post(payment, { stripe_live: { ...stripeKeys, publishable_key: 5 } }, 'stripe_live.publishable_key', 'settings stripe publishable key a number');
post(payment, { stripe_test: { ...stripeKeys, webhook_secret: 'secret' } }, 'stripe_test.webhook_secret', 'settings stripe webhook secret without whsec_');
post(payment, { stripe_test: { webhook_secret: 'whsec_abcd' } }, 'stripe_test.publishable_key', 'settings stripe connection without keys', { reason: 'required' });
post(payment, { allow_raw_card_data: 'yes' }, 'allow_raw_card_data', 'settings allow_raw_card_data "yes"');
post(cartPayments, { payment_method: { type: 'credit_card', data: { token: 5 } } }, 'payment_method.data.token', 'card token a number', asShopper);
post(cartPayments, { payment_method: { type: 'credit_card', data: { token: 'tok_visa' } } }, 'payment_method.data.token', 'card token not a PaymentMethod id', asShopper);
post(direct, { ...directBody, payment_method: { type: 'credit_card', data: { token: 'pm_card_visa' } } }, 'payment_method.data.token', 'card token without a Stripe connection', { reason: 'not_allowed' });
const stripeEvents = () => `gateway_events/stripe/${account}/test`;
rows.push({ label: 'Stripe webhook without a connection', method: 'POST', path: stripeEvents, raw: '{"id":"evt_1","type":"payment_intent.succeeded"}', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': 't=1,v1=00' }, status: 400, code: 'invalid_input', property: 'Stripe-Signature' });
rows.push({ label: 'Stripe webhook of an unknown mode', method: 'POST', path: () => `gateway_events/stripe/${account}/staging`, raw: '{}', headers: { 'Content-Type': 'application/json' }, status: 404, code: 'resource_not_found' });


// --- free-form keys (conventions.md "Free-form objects"): a key the field's rules refuse is refused by name, never dropped
// (sent as raw JSON text: an object literal would turn `__proto__` into a prototype, not a key).
const rawPost = (path: () => string, raw: string, property: string, label: string, extra: Partial<Case> = {}) =>
  rows.push({ label, method: 'POST', path, raw, headers: { 'Content-Type': 'application/json' }, status: 400, code: 'invalid_input', property, ...extra });
for (const key of ['__proto__', 'constructor', 'prototype', 'toString']) {
  rawPost(payment, `{"exchange_rates":{"${key}":1.5}}`, `exchange_rates.${key}`, `settings exchange rate named ${key}`);
  rawPost(() => 'event_subscriptions', `{"event_type":"order:created","method":"http","destination":"https://hooks.example.test/x","environment_variables":{"${key}":5}}`, `environment_variables.${key}`, `subscription variable ${key} a number`);
  rawPost(() => `event_subscriptions/${subscriptionId}`, `{"environment_variables":{"${key}":{"a":1}}}`, `environment_variables.${key}`, `subscription update variable ${key} an object`);
}

// --- event subscriptions (events.md §2.1, §3)
const subscriptions = () => 'event_subscriptions';
const hook = { event_type: 'order:created', method: 'http', destination: 'https://hooks.example.test/x' };
for (const value of ['order:shipped', 'ORDER:CREATED', '', 5, null]) post(subscriptions, { ...hook, event_type: value }, 'event_type', `subscription event_type ${JSON.stringify(value)}`);
for (const value of ['https', 'sms', 1, null]) post(subscriptions, { ...hook, method: value }, 'method', `subscription method ${JSON.stringify(value)}`);
for (const value of ['yaml', 'JSON', true]) post(subscriptions, { ...hook, format: value }, 'format', `subscription format ${JSON.stringify(value)}`);
for (const value of ['hooks.example.test/x', '/relative', 'ftp://example.test/x', 'https://a b.test', 42, {}]) {
  post(subscriptions, { ...hook, destination: value }, 'destination', `subscription destination ${JSON.stringify(value)}`);
}
for (const value of ['http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://[::ffff:172.16.0.1]/', 'http://0.0.0.0:80/', 'http://[64:ff9b::a00:1]/']) {
  post(subscriptions, { ...hook, destination: value }, 'destination', `subscription destination not allowed ${value}`);
}
post(subscriptions, { ...hook, method: 'email', destination: 'https://hooks.example.test/x' }, 'destination', 'subscription email method with a URL');
post(subscriptions, { ...hook, method: 'email', destination: 'a@example.test,b@example.test' }, 'destination', 'subscription two email addresses');
for (const value of NOT_BOOLEANS) post(subscriptions, { ...hook, active: value }, 'active', `subscription active ${JSON.stringify(value)}`);
for (const value of NOT_TEXTS(1000)) post(subscriptions, { ...hook, comments: value }, 'comments', `subscription comments ${JSON.stringify(value).slice(0, 20)}`);
post(subscriptions, { ...hook, http_authorization: 'Bearer x', http_authorization_username: 'shop' }, 'http_authorization', 'subscription http_authorization with a username');
post(subscriptions, { ...hook, http_authorization: 'Bearer x\r\nX-Injected: 1' }, 'http_authorization', 'subscription http_authorization with a line break');
post(subscriptions, { ...hook, custom_header_name: 'X-Tenant' }, 'custom_header_value', 'subscription header name without value');
post(subscriptions, { ...hook, custom_header_value: 'eu' }, 'custom_header_name', 'subscription header value without name');
for (const name of ['Authorization', 'content-type', 'X-SERVICE-SIGNATURE', 'webhook-id', 'Host']) {
  post(subscriptions, { ...hook, custom_header_name: name, custom_header_value: 'v' }, 'custom_header_name', `subscription reserved header ${name}`);
}
for (const name of ['X Tenant', 'X-Tenant:', '', 7]) post(subscriptions, { ...hook, custom_header_name: name, custom_header_value: 'v' }, 'custom_header_name', `subscription header name ${JSON.stringify(name)}`);
const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`V${index}`, 'x']));
post(subscriptions, { ...hook, environment_variables: tooMany }, 'environment_variables', 'subscription 51 environment variables');
post(subscriptions, { ...hook, environment_variables: { '1st': 'x' } }, 'environment_variables.1st', 'subscription variable name starting with a digit');
post(subscriptions, { ...hook, environment_variables: { 'a-b': 'x' } }, 'environment_variables.a-b', 'subscription variable name with a dash');
post(subscriptions, { ...hook, environment_variables: { ['V'.repeat(65)]: 'x' } }, `environment_variables.${'V'.repeat(65)}`, 'subscription variable name of 65 characters');
post(subscriptions, { ...hook, environment_variables: { A: 1 } }, 'environment_variables.A', 'subscription variable value a number');
post(subscriptions, { ...hook, environment_variables: { A: 'x'.repeat(1025) } }, 'environment_variables.A', 'subscription variable value too long');
post(subscriptions, { ...hook, environment_variables: [{ name: 'A', value: 'x' }, { name: 'A', value: 'y' }] }, 'environment_variables[1].name', 'subscription variable named twice');
post(subscriptions, { ...hook, environment_variables: 'A=1' }, 'environment_variables', 'subscription variables a string');
post(subscriptions, { ...hook, show: 'order_id', hide: 'items' }, 'hide', 'subscription show and hide');
for (const value of ['Mars/Olympus', '+02:00', 3]) post(subscriptions, { ...hook, timezone: value }, 'timezone', `subscription timezone ${JSON.stringify(value)}`);
for (const value of ['short', 'k'.repeat(15), 'k'.repeat(257), 12345678901234567]) post(subscriptions, { ...hook, signature_key: value }, 'signature_key', `subscription signature_key ${String(value).slice(0, 20)}`);
const subscription = () => `event_subscriptions/${subscriptionId}`;
post(subscription, { method: 'email' }, 'destination', 'subscription update to email keeping a URL');
post(subscription, { destination: 'http://192.168.1.10/hook' }, 'destination', 'subscription update to a private address');
post(subscription, { custom_header_value: null }, 'custom_header_value', 'subscription update clearing only the header value');
post(subscription, { hide: 'items' }, 'hide', 'subscription update hide next to a stored show');
post(subscription, { event_type: 'cart:abandoned' }, 'event_type', 'subscription update unknown event type');
post(subscription, { active: 'false' }, 'active', 'subscription update active "false"');
rows.push({ label: 'subscriptions: limited token', method: 'POST', path: subscriptions, body: hook, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'subscription delete: limited token', method: 'DELETE', path: subscription, token: () => shopper, status: 403, code: 'insufficient_permissions' });
// --- POST /event_subscriptions/{id}/test (events.md §10): a refused body sends nothing (the outbox and the record are in the snapshot)
const subscriptionTest = () => `event_subscriptions/${subscriptionId}/test`;
for (const value of [[1, 2], 'x', 5, true]) post(subscriptionTest, { data: value }, 'data', `subscription test data ${JSON.stringify(value)}`);
post(subscriptionTest, { data: nestedMeta(40) as Record<string, unknown> }, 'data', 'subscription test data 40 deep');
post(subscriptionTest, { data: { blob: 'q'.repeat(70_000) } }, 'data', 'subscription test data of 70,000 characters');
post(() => `event_subscriptions/${subscriptionId}/test/legacy`, { data: [] }, 'data', 'subscription test (trailing segment) data an array');
rows.push({ label: 'subscription test: limited token', method: 'POST', path: subscriptionTest, token: () => shopper, status: 403, code: 'insufficient_permissions' });

// --- license services (licenses.md §2.1, §12)
const licenseServices = () => 'license_services';
const listService = { name: 'L', type: 'list' };
const remoteService = { name: 'R', type: 'remote_url', configuration: { url: 'https://keys.example.test/x' } };
const remoteWith = (configuration: Record<string, unknown>) => ({ ...remoteService, configuration: { ...remoteService.configuration, ...configuration } });
const listWith = (configuration: Record<string, unknown>) => ({ ...listService, configuration });
for (const value of NOT_TEXTS(100)) post(licenseServices, { ...listService, name: value }, 'name', `license service name ${JSON.stringify(value).slice(0, 20)}`);
post(licenseServices, { type: 'list' }, 'name', 'license service without name');
post(licenseServices, { ...listService, name: null }, 'name', 'license service name null');
for (const value of ['file', 'LIST', '', 5, null]) post(licenseServices, { ...listService, type: value }, 'type', `license service type ${JSON.stringify(value)}`);
post(licenseServices, { name: 'L' }, 'type', 'license service without type');
for (const value of NOT_TEXTS(100)) post(licenseServices, { ...listService, label: value }, 'label', `license service label ${JSON.stringify(value).slice(0, 20)}`);
post(licenseServices, { ...listService, instructions: 'i'.repeat(4001) }, 'instructions', 'license service instructions of 4,001 characters');
post(licenseServices, { ...listService, instructions: ['<p>x</p>'] }, 'instructions', 'license service instructions an array');
post(licenseServices, { ...listService, description: 'd'.repeat(2001) }, 'description', 'license service description of 2,001 characters');
post(licenseServices, { ...listService, expand: { order: true } }, 'expand', 'license service expand an object');
post(licenseServices, { ...listService, configuration: 'licenses' }, 'configuration', 'license service configuration a string');
post(licenseServices, { ...listService, configuration: [] }, 'configuration', 'license service configuration an array');
post(licenseServices, { name: 'R', type: 'remote_url' }, 'configuration.url', 'remote service without url');
for (const value of ['keys.example.test/x', '/relative', 'ftp://keys.example.test/x', 'https://a b.test', 42, 'u'.repeat(2001)]) {
  post(licenseServices, remoteWith({ url: value }), 'configuration.url', `remote service url ${JSON.stringify(value).slice(0, 30)}`);
}
for (const value of ['http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://[::ffff:172.16.0.1]/', 'http://0.0.0.0:80/']) {
  post(licenseServices, remoteWith({ url: value }), 'configuration.url', `remote service url not allowed ${value}`);
}
for (const value of ['html', 'JSON', true]) post(licenseServices, remoteWith({ format: value }), 'configuration.format', `remote service format ${JSON.stringify(value)}`);
post(licenseServices, remoteWith({ http_authorization_username: 'a:b' }), 'configuration.http_authorization_username', 'remote service username with a colon');
post(licenseServices, remoteWith({ http_authorization_password: 'pw\r\nX-Injected: 1' }), 'configuration.http_authorization_password', 'remote service password with a line break');
post(licenseServices, remoteWith({ custom_header_name: 'X-Pool' }), 'configuration.custom_header_value', 'remote service header name without value');
post(licenseServices, remoteWith({ custom_header_value: 'v' }), 'configuration.custom_header_name', 'remote service header value without name');
for (const name of ['Authorization', 'content-type', 'X-SERVICE-SIGNATURE', 'webhook-signature', 'User-Agent']) {
  post(licenseServices, remoteWith({ custom_header_name: name, custom_header_value: 'v' }), 'configuration.custom_header_name', `remote service reserved header ${name}`);
}
post(licenseServices, remoteWith({ custom_header_name: 'X Pool', custom_header_value: 'v' }), 'configuration.custom_header_name', 'remote service header name with a space');
post(licenseServices, listWith({ licenses: 'K-1,K-2' }), 'configuration.licenses', 'list service licenses a string');
post(licenseServices, listWith({ licenses: ['K-1', 7] }), 'configuration.licenses[1]', 'list service code a number');
post(licenseServices, listWith({ licenses: ['K-1', '   '] }), 'configuration.licenses[1]', 'list service code blank');
post(licenseServices, listWith({ licenses: ['<script>x()</script>'] }), 'configuration.licenses[0]', 'list service code empty after sanitising');
post(licenseServices, listWith({ licenses: ['x'.repeat(4097)] }), 'configuration.licenses[0]', 'list service code of 4,097 characters');
post(licenseServices, listWith({ add_licenses: [null] }), 'configuration.add_licenses[0]', 'list service added code null');
for (const value of NOT_BOOLEANS) post(licenseServices, listWith({ per_quantity: value }), 'configuration.per_quantity', `list service per_quantity ${JSON.stringify(value)}`);
for (const value of NOT_BOOLEANS.slice(0, 3)) post(licenseServices, listWith({ remove_after_use: value }), 'configuration.remove_after_use', `list service remove_after_use ${JSON.stringify(value)}`);
// `''` is null there (an optional property, conventions.md §15), so it is not a bad value.
for (const value of [...NOT_NUMBERS.filter((value) => value !== ''), -1, 1.5, '-2']) post(licenseServices, listWith({ notify_at_count: value }), 'configuration.notify_at_count', `list service notify_at_count ${JSON.stringify(value)}`);
const tooManyCodes = Array.from({ length: 10_001 }, (_, index) => `BULK-${index}`);
post(licenseServices, listWith({ licenses: tooManyCodes }), 'configuration.licenses', 'list service of 10,001 codes', { status: 422, code: 'account_limit_exceeded' });
const listServicePath = () => `license_services/${listServiceId}`;
const remoteServicePath = () => `license_services/${remoteServiceId}`;
post(listServicePath, { type: 'remote_url' }, 'type', 'license service update changing the type');
post(listServicePath, { name: null }, 'name', 'license service update name null');
post(listServicePath, { configuration: { licenses: ['K-3', ''] } }, 'configuration.licenses[1]', 'license service update code empty');
post(listServicePath, { configuration: { add_licenses: tooManyCodes.slice(0, 9_999) } }, 'configuration.add_licenses', 'license service update beyond 10,000 codes', { status: 422, code: 'account_limit_exceeded' });
post(listServicePath, { name: 'changed', configuration: { licenses: tooManyCodes } }, 'configuration.licenses', 'license service update replacing with 10,001 codes', { status: 422, code: 'account_limit_exceeded' });
post(listServicePath, { configuration: { notify_at_count: 'few' } }, 'configuration.notify_at_count', 'license service update notify_at_count "few"');
post(remoteServicePath, { configuration: { url: 'http://192.168.1.10/keys' } }, 'configuration.url', 'license service update to a private address');
post(remoteServicePath, { configuration: { url: null } }, 'configuration.url', 'license service update clearing the url');
post(remoteServicePath, { configuration: { custom_header_value: null } }, 'configuration.custom_header_value', 'license service update clearing only the header value');
rows.push({ label: 'license services: limited token', method: 'POST', path: licenseServices, body: listService, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'license service list: limited token', method: 'GET', path: licenseServices, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'license service delete: limited token', method: 'DELETE', path: remoteServicePath, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'license service delete while a product links to it', method: 'DELETE', path: listServicePath, status: 409, code: 'in_use' });
rows.push({ label: 'license service list: unknown type filter', method: 'GET', path: () => 'license_services?type=file', status: 400, code: 'invalid_input' });
rows.push({ label: 'license service list: unknown sort order', method: 'GET', path: () => 'license_services?sort_by=date_modified', status: 400, code: 'invalid_input' });
rows.push({ label: 'license service of the other mode', method: 'POST', path: () => `license_services/${liveServiceId}`, body: { name: 'x' }, status: 400, code: 'token_type_mismatch' });
rows.push({ label: 'license service delete of the other mode', method: 'DELETE', path: () => `license_services/${liveServiceId}`, status: 400, code: 'token_type_mismatch' });
// --- products naming a license service (licenses.md §3)
post(products, { ...product, license_service_id: 'NOSUCHSERVICE' }, 'license_service_id', 'product with an unknown license service');
post(products, { ...product, license_service_id: 7 }, 'license_service_id', 'product license service a number');
rows.push({ label: 'product with a license service of the other mode', method: 'POST', path: products, body: () => ({ ...product, license_service_id: liveServiceId }), status: 400, code: 'token_type_mismatch', property: 'license_service_id' });
post(p1, { license_service_id: 'NOSUCHSERVICE' }, 'license_service_id', 'product update to an unknown license service');
post(() => 'products/licensed', { license_service_id: 'NOSUCHSERVICE' }, 'license_service_id', 'product update moving to an unknown license service');
// --- apps (hosting.md §2, §4, §5): nothing is created, changed or deployed by a refused body
const apps = () => 'apps';
const newApp = { name: 'A', alias: 'fresh' };
for (const value of NOT_TEXTS(100)) post(apps, { ...newApp, name: value }, 'name', `app name ${JSON.stringify(value).slice(0, 20)}`);
for (const value of ['Shop', '-a', 'a-', 'a_b', 'a.b', 'a b', 'x'.repeat(64), '', null, 5, 'api', 'apps', 'func', 'signin', 'oauth', 'settings', 'analytics', '../x']) {
  post(apps, { ...newApp, alias: value }, 'alias', `app alias ${JSON.stringify(value).slice(0, 20)}`);
}
for (const value of NOT_BOOLEANS) post(apps, { ...newApp, test: value }, 'test', `app test ${JSON.stringify(value)}`);
for (const value of ['x', [], [1], 5, true]) {
  post(apps, { ...newApp, settings: value }, 'settings', `app settings ${JSON.stringify(value)}`);
  post(apps, { ...newApp, style: value }, 'style', `app style ${JSON.stringify(value)}`);
}
for (const value of [5, {}, [], true]) post(apps, { ...newApp, custom_css: value }, 'custom_css', `app custom_css ${JSON.stringify(value)}`);
post(apps, { ...newApp, settings: { blob: 'x'.repeat(70_000) } }, 'settings', 'app settings over 64 KB', { status: 422, code: 'account_limit_exceeded' });
post(apps, { ...newApp, custom_javascript: 'x'.repeat(300_000) }, 'custom_javascript', 'app custom_javascript over 256 KB', { status: 422, code: 'account_limit_exceeded' });
post(apps, { name: 'A', alias: 'taken' }, 'alias', 'app alias taken by another app', { status: 409, code: 'in_use' });
post(apps, { name: 'A', alias: 'probe' }, 'alias', 'app alias taken by the app itself', { status: 409, code: 'in_use' });
const app = () => `apps/${appId}`;
post(app, { name: null }, 'name', 'app update name null');
post(app, { alias: 'PROBE' }, 'alias', 'app update alias upper case');
post(app, { alias: 'settings' }, 'alias', 'app update alias reserved');
post(app, { alias: 'taken' }, 'alias', 'app update alias taken', { status: 409, code: 'in_use' });
post(app, { settings: [] }, 'settings', 'app update settings an array');
post(app, { test: 'false' }, 'test', 'app update test "false"');
post(app, { style: { blob: 'x'.repeat(70_000) }, name: 'Changed' }, 'style', 'app update style over 64 KB', { status: 422, code: 'account_limit_exceeded' });
// --- hosted functions (functions.md §3, §6): a refused update changes nothing and deploys nothing
const hostedFunction = () => `hosted_functions/${functionId}`;
post(hostedFunction, { name: null }, 'name', 'function update name null');
post(hostedFunction, { name: 'x'.repeat(101) }, 'name', 'function update name too long');
post(hostedFunction, { description: 'x'.repeat(1001) }, 'description', 'function update description too long');
for (const value of ['ruby', 'nodejs18.x', '', 5, null]) post(hostedFunction, { runtime: value }, 'runtime', `function runtime ${JSON.stringify(value)}`);
for (const value of ['index', '../up.handler', '.handler', 5]) post(hostedFunction, { handler: value }, 'handler', `function handler ${JSON.stringify(value)}`);
post(hostedFunction, { handler: 'missing.handler' }, 'handler', 'function handler whose file is not in the package');
post(hostedFunction, { runtime: 'java' }, 'handler', 'function runtime java with a Node handler');
for (const value of [0, 901, '1.5', 'ten', -1, true]) post(hostedFunction, { timeout: value }, 'timeout', `function timeout ${JSON.stringify(value)}`);
for (const value of [127, 3009, '256MB', null]) post(hostedFunction, { memory_mb: value }, 'memory_mb', `function memory_mb ${JSON.stringify(value)}`);
for (const value of [{ PATH: '/' }, { CARTWHEEL_X: '1' }, { AWS_REGION: 'x' }, { NODE_OPTIONS: '--inspect' }, { 'A-B': '1' }, [{ name: 'A', value: 1 }], [{ value: '1' }], 'nope', 5, [{ name: 'NEW' }], { BIG: 'x'.repeat(5000) }]) {
  post(hostedFunction, { environment_variables: value }, 'environment_variables', `function variables ${JSON.stringify(value).slice(0, 30)}`);
}
rows.push({ label: 'function created with JSON instead of a form', method: 'POST', path: () => 'hosted_functions', body: { name: 'x', runtime: 'node', handler: 'index.handler' }, status: 400, code: 'invalid_syntax' });
rows.push({ label: 'function update of an unknown id', method: 'POST', path: () => 'hosted_functions/NOSUCHFN', body: { name: 'x' }, status: 404, code: 'resource_not_found' });
rows.push({ label: 'function id with ../', method: 'GET', path: () => 'hosted_functions/..%2Fsettings', status: 404, code: 'resource_not_found' });
rows.push({ label: 'function delete of an unknown id', method: 'DELETE', path: () => 'hosted_functions/NOSUCHFN', status: 404, code: 'resource_not_found' });
rows.push({ label: 'function update by a limited token', method: 'POST', path: hostedFunction, body: { name: 'x' }, token: () => shopper, status: 403, code: 'insufficient_permissions' });
const deploy = () => `apps/${appId}/deploy`;
for (const value of [5, {}, [], true, '']) post(deploy, { version_id: value }, 'version_id', `deploy version_id ${JSON.stringify(value)}`);
post(deploy, {}, 'version_id', 'deploy without version_id');
rows.push({ label: 'deploy of an unknown version', method: 'POST', path: deploy, body: { version_id: 'NOSUCHVERSION' }, status: 404, code: 'resource_not_found' });
rows.push({ label: 'deploy to an unknown app', method: 'POST', path: () => 'apps/NOSUCHAPP/deploy', body: { version_id: 'X' }, status: 404, code: 'resource_not_found' });
const rollbackPath = () => `apps/${appId}/rollback`;
for (const value of [5, {}, []]) post(rollbackPath, { version_id: value }, 'version_id', `rollback version_id ${JSON.stringify(value)}`);
rows.push({ label: 'rollback with nothing deployed', method: 'POST', path: rollbackPath, status: 422, code: 'invalid_state' });
rows.push({ label: 'rollback to an unknown version', method: 'POST', path: rollbackPath, body: { version_id: 'NOSUCHVERSION' }, status: 404, code: 'resource_not_found' });
const aliases = () => `apps/${appId}/aliases`;
for (const value of ['UP', 'a_b', '', 'x'.repeat(64), 7, null, 'api', 'settings']) post(aliases, { alias: value }, 'alias', `alias name ${JSON.stringify(value).slice(0, 20)}`);
for (const value of [5, {}, [], true]) post(aliases, { alias: 'pin', version_id: value }, 'version_id', `alias version_id ${JSON.stringify(value)}`);
for (const value of NOT_BOOLEANS) post(aliases, { alias: 'pin', test: value }, 'test', `alias test ${JSON.stringify(value)}`);
post(aliases, { alias: 'pin', version_id: 'NOSUCHVERSION' }, 'version_id', 'alias pinned to an unknown version');
post(aliases, { alias: 'taken' }, 'alias', 'alias taken by another app', { status: 409, code: 'in_use' });
post(aliases, { alias: 'probe' }, 'alias', 'alias the primary one', { status: 409, code: 'in_use' });
const primaryAlias = () => `apps/${appId}/aliases/probe`;
post(primaryAlias, { test: false }, undefined, 'primary alias changed through the alias endpoint', { status: 422, code: 'invalid_state' });
post(primaryAlias, { version_id: [] }, 'version_id', 'alias update version_id an array');
post(primaryAlias, { test: 1 }, 'test', 'alias update test 1');
rows.push({ label: 'delete of the primary alias', method: 'DELETE', path: primaryAlias, status: 422, code: 'invalid_state' });
rows.push({ label: 'update of an unknown alias', method: 'POST', path: () => `apps/${appId}/aliases/nope`, body: { test: true }, status: 404, code: 'resource_not_found' });
rows.push({ label: 'version upload as JSON', method: 'POST', path: () => `apps/${appId}/versions`, body: { file: 'x' }, status: 400, code: 'invalid_syntax' });
rows.push({ label: 'apps: limited token', method: 'POST', path: apps, body: newApp, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'app delete: limited token', method: 'DELETE', path: app, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'version delete: limited token', method: 'DELETE', path: () => `apps/${appId}/versions/${versionId}`, token: () => shopper, status: 403, code: 'insufficient_permissions' });

// --- invoices (commerce.md §9): nothing is created, changed, published, paid or minted
const invoicesPath = () => 'invoices';
const draftInvoice = () => `invoices/${draftInvoiceId}`;
const openInvoice = () => `invoices/${openInvoiceId}`;
const openInvoicePayments = () => `invoices/${openInvoiceId}/payments`;
const asLink = { token: () => invoiceLink };
for (const value of ['1e3', 'two', -1, 10_000, 1.5, [], {}, true]) post(invoicesPath, { items: [{ product_id: 'p1', quantity: value }] }, 'items[0].quantity', `invoice quantity ${JSON.stringify(value)}`);
post(invoicesPath, { items: [{ product_id: 'nope' }] }, 'items[0].product_id', 'invoice line of an unknown product', { reason: 'not_found' });
for (const value of NOT_NUMBERS) post(invoicesPath, { items: [{ product_id: 'p1', price: value }] }, 'items[0].price', `invoice price override ${JSON.stringify(value)}`);
post(invoicesPath, { items: [{ product_id: 'p1', price: -1 }] }, 'items[0].price', 'invoice price override -1');
post(invoicesPath, { items: [{ product_id: 'p1', price: 19.999 }] }, 'items[0].price', 'invoice price override 19.999 USD', { reason: 'precision' });
post(invoicesPath, { items: [{ type: 'service', price: 5 }] }, 'items[0].name', 'invoice custom line without name', { reason: 'required' });
post(invoicesPath, { items: [{ name: 'Fee', price: 5 }] }, 'items[0].type', 'invoice custom line without type', { reason: 'required' });
post(invoicesPath, { items: [{ name: 'Fee', type: 'service' }] }, 'items[0].price', 'invoice custom line without price', { reason: 'required' });
post(invoicesPath, { items: [{ name: 'Fee', type: 'gift', price: 5 }] }, 'items[0].type', 'invoice custom line type "gift"');
post(invoicesPath, { items: [{ item_id: '../x', name: 'Fee', type: 'service', price: 5 }] }, 'items[0].item_id', 'invoice custom line item_id "../x"');
post(invoicesPath, { items: [{ item_id: 'p1', name: 'Fee', type: 'service', price: 5 }] }, 'items[0].item_id', 'invoice custom line taking a product id', { reason: 'conflict' });
for (const value of NOT_TEXTS(200)) post(invoicesPath, { items: [{ name: value, type: 'service', price: 5 }] }, 'items[0].name', `invoice custom line name ${JSON.stringify(value).slice(0, 20)}`);
post(invoicesPath, { items: 'p1' }, 'items', 'invoice items a string');
post(invoicesPath, { currency: 'XYZ' }, 'currency', 'invoice currency not enabled');
post(invoicesPath, { currency: 5 }, 'currency', 'invoice currency a number');
for (const value of NOT_BOOLEANS) post(invoicesPath, { draft: value }, 'draft', `invoice draft ${JSON.stringify(value)}`);
for (const value of ['soon', '2026-13-01', 5, {}]) post(invoicesPath, { date_due: value }, 'date_due', `invoice date_due ${JSON.stringify(value)}`);
post(invoicesPath, { customer: { email: 'nope' } }, 'customer.email', 'invoice customer email');
post(invoicesPath, { customer: { billing_address: { country: 'XX' } } }, 'customer.billing_address.country', 'invoice customer country XX');
post(invoicesPath, { customer_id: 'NOSUCHCUSTOMER' }, 'customer_id', 'invoice customer_id unknown', { reason: 'not_found' });
post(invoicesPath, { meta: nestedMeta(40) }, 'meta', 'invoice meta 40 deep');
post(invoicesPath, { items: [{ product_id: 'p1' }], shipping_method_id: 'nope' }, 'shipping_method_id', 'invoice shipping method not quoted');
rows.push({ label: 'invoice promotion code unknown', method: 'POST', path: invoicesPath, body: { items: [{ product_id: 'p1' }], promotion_code: 'NOSUCHCODE' }, status: 400, code: 'invalid_promotion_code' });
rows.push({ label: 'invoice promotion code on custom lines only', method: 'POST', path: invoicesPath, body: { items: [{ name: 'Fee', type: 'service', price: 5 }], promotion_code: 'SPRING' }, status: 400, code: 'invalid_promotion_code' });
rows.push({ label: 'invoice without email published at once', method: 'POST', path: invoicesPath, body: { items: [{ product_id: 'p1' }], draft: false }, status: 400, code: 'invalid_input', property: 'customer.email' });
post(draftInvoice, { items: [{ product_id: 'p1', quantity: -2 }] }, 'items[0].quantity', 'invoice update quantity -2');
post(draftInvoice, { currency: 'XYZ' }, 'currency', 'invoice update currency not enabled');
post(draftInvoice, { date_due: 'tomorrowish' }, 'date_due', 'invoice update date_due');
post(openInvoice, { items: [{ product_id: 'p1', price: 1.234 }] }, 'items[0].price', 'open invoice price 1.234 USD', { reason: 'precision' });
rows.push({ label: 'invoice publish without items', method: 'POST', path: () => `invoices/${bareDraftId}/publish`, status: 400, code: 'invalid_input', property: 'items' });
rows.push({ label: 'invoice publish when open', method: 'POST', path: () => `${openInvoice()}/publish`, status: 422, code: 'invalid_state' });
rows.push({ label: 'invoice cancel of a draft', method: 'POST', path: () => `${draftInvoice()}/cancel`, status: 422, code: 'invalid_state' });
rows.push({ label: 'invoice cancel when paid', method: 'POST', path: () => `invoices/${paidInvoiceId}/cancel`, status: 422, code: 'invalid_state' });
rows.push({ label: 'invoice delete when open', method: 'DELETE', path: openInvoice, status: 422, code: 'invalid_state' });
rows.push({ label: 'invoice delete when paid', method: 'DELETE', path: () => `invoices/${paidInvoiceId}`, status: 422, code: 'invalid_state' });
rows.push({ label: 'invoice update when paid', method: 'POST', path: () => `invoices/${paidInvoiceId}`, body: { meta: { late: true } }, status: 422, code: 'invalid_state' });
rows.push({ label: 'invoice back to draft when open', method: 'POST', path: openInvoice, body: { draft: true }, status: 422, code: 'invalid_state' });
rows.push({ label: 'invoice payment of a draft', method: 'POST', path: () => `${draftInvoice()}/payments`, body: { payment_method: card() }, status: 422, code: 'invalid_state' });
rows.push({ label: 'invoice payment when paid', method: 'POST', path: () => `invoices/${paidInvoiceId}/payments`, body: { payment_method: card() }, status: 422, code: 'invalid_state' });
post(openInvoicePayments, {}, 'payment_method', 'invoice payment without a payment method', { reason: 'required', ...asLink });
post(openInvoicePayments, { payment_method: card({ number: '4242424242424241' }) }, 'payment_method.data.number', 'invoice payment card failing Luhn', asLink);
post(openInvoicePayments, { payment_method: card({ exp_month: 13 }) }, 'payment_method.data.exp_month', 'invoice payment card month 13', asLink);
post(openInvoicePayments, { payment_method: card(), allow_duplicate: 'yes' }, 'allow_duplicate', 'invoice payment allow_duplicate "yes"', asLink);
post(openInvoicePayments, { payment_method: { payment_method_id: 'NOSUCHMETHOD' } }, 'payment_method.payment_method_id', 'invoice payment with a saved method of no one', { reason: 'not_found', ...asLink });
rows.push({ label: 'invoice update items: pay-link token', method: 'POST', path: openInvoice, body: { items: [{ product_id: 'p1', quantity: 5 }] }, ...asLink, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'invoice update promotion code: pay-link token', method: 'POST', path: openInvoice, body: { promotion_code: 'SPRING' }, ...asLink, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'invoice publish: pay-link token', method: 'POST', path: () => `${draftInvoice()}/publish`, ...asLink, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'invoice cancel: pay-link token', method: 'POST', path: () => `${openInvoice()}/cancel`, ...asLink, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'invoice links: pay-link token', method: 'POST', path: () => `${openInvoice()}/links`, ...asLink, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'invoice delete: pay-link token', method: 'DELETE', path: draftInvoice, ...asLink, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'invoice list: limited token', method: 'GET', path: invoicesPath, ...asShopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'invoice create: limited token', method: 'POST', path: invoicesPath, body: {}, ...asShopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: "invoice read: another shopper's token", method: 'GET', path: openInvoice, ...asShopper, status: 404, code: 'resource_not_found' });
rows.push({ label: "invoice payment: another shopper's token", method: 'POST', path: openInvoicePayments, body: { payment_method: card() }, ...asShopper, status: 404, code: 'resource_not_found' });
rows.push({ label: "invoice payments list: another shopper's token", method: 'GET', path: openInvoicePayments, ...asShopper, status: 404, code: 'resource_not_found' });
rows.push({ label: "invoice read: another customer's scope", method: 'GET', path: openInvoice, ...asPortal, status: 404, code: 'resource_not_found' });
rows.push({ label: 'invoice payment: another mode', method: 'POST', path: openInvoicePayments, body: { payment_method: card() }, token: () => runtime.bootstrap.tokens.live_secret, status: 400, code: 'token_type_mismatch' });
rows.push({ label: 'invoice delete: another mode', method: 'DELETE', path: draftInvoice, token: () => runtime.bootstrap.tokens.live_secret, status: 400, code: 'token_type_mismatch' });
rows.push({ label: 'invoice links: another mode', method: 'POST', path: () => `${openInvoice()}/links`, token: () => runtime.bootstrap.tokens.live_secret, status: 400, code: 'token_type_mismatch' });
for (const query of ['payment_status=late', 'open=maybe', 'draft=2', 'limit=0', 'after_item=NOSUCHINVOICE']) {
  rows.push({ label: `invoice list ${query}`, method: 'GET', path: () => `invoices?${query}`, status: 400, code: 'invalid_input' });
}
for (const action of ['publish', 'cancel', 'links', 'payments']) {
  rows.push({ label: `invoice ${action} of an unknown id`, method: 'POST', path: () => `invoices/NOSUCHINVOICE/${action}`, body: action === 'payments' ? { payment_method: card() } : {}, status: 404, code: 'resource_not_found' });
}
rows.push({ label: 'invoice update of an unknown id', method: 'POST', path: () => 'invoices/NOSUCHINVOICE', body: { meta: null }, status: 404, code: 'resource_not_found' });
rows.push({ label: 'invoice delete of an unknown id', method: 'DELETE', path: () => 'invoices/NOSUCHINVOICE', status: 404, code: 'resource_not_found' });
rows.push({ label: 'invoices of an unknown customer', method: 'GET', path: () => 'customers/NOSUCHCUSTOMER/invoices', status: 404, code: 'resource_not_found' });

// --- bodies that are not what they claim, at the body level
const bodyTargets: Array<[string, () => string, Partial<Case>]> = [
  ['products', products, {}],
  ['carts', carts, asShopper],
  ['customers', customers, {}],
  ['my customer', () => 'customers/me', asPortal],
  ['my saved cards', myMethods, asPortal],
  ['my saved card', myMethod, asPortal],
  ['a cart', cart, asShopper],
  ['direct payments', direct, {}],
  ['order refunds', orderRefunds, {}],
  ['payment refunds', paymentRefunds, {}],
  ['settings', payment, {}],
  ['event subscriptions', subscriptions, {}],
  ['a subscription test', subscriptionTest, {}],
  ['license services', licenseServices, {}],
  ['a license service', listServicePath, {}],
  ['apps', apps, {}],
  ['an app', app, {}],
  ['a deploy', deploy, {}],
  ['a rollback', rollbackPath, {}],
  ['aliases', aliases, {}],
  ['an alias', primaryAlias, {}],
  ['shipments of an order', orderShipments, {}],
  ['a shipment', shipmentPath, {}],
  ['oauth apps', oauthApps, {}],
  ['an oauth app', oauthApp, {}],
  ['a subscription', () => `subscriptions/${saleSubscriptionId}`, {}],
  ['a subscription cancel', () => `subscriptions/${saleSubscriptionId}/cancel`, {}],
  ['invoices', invoicesPath, {}],
  ['an invoice', draftInvoice, {}],
  ['invoice payments', openInvoicePayments, asLink],
];
for (const [name, path, extra] of bodyTargets) {
  const json = { 'Content-Type': 'application/json' };
  rows.push({ label: `${name}: not JSON`, method: 'POST', path, raw: '{"name": ', headers: json, status: 400, code: 'invalid_syntax', ...extra });
  rows.push({ label: `${name}: an array body`, method: 'POST', path, raw: '[1,2]', headers: json, status: 400, code: 'invalid_input', ...extra });
  rows.push({ label: `${name}: 10,000 levels deep`, method: 'POST', path, raw: deepBody(10_000), headers: json, status: 400, code: 'invalid_input', ...extra });
  rows.push({ label: `${name}: 65 levels deep`, method: 'POST', path, raw: deepBody(64), headers: json, status: 400, code: 'invalid_input', ...extra });
  rows.push({ label: `${name}: a lone surrogate`, method: 'POST', path, raw: '{"name":"\\ud800","meta":"x"}', headers: json, status: 400, code: 'invalid_input', property: 'name', ...extra });
  rows.push({ label: `${name}: invalid UTF-8`, method: 'POST', path, raw: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), headers: json, status: 400, code: 'invalid_syntax', ...extra });
  rows.push({ label: `${name}: text/plain`, method: 'POST', path, raw: '{"name":"x"}', headers: { 'Content-Type': 'text/plain' }, status: 400, code: 'invalid_syntax', ...extra });
  rows.push({ label: `${name}: latin-1 charset`, method: 'POST', path, raw: '{"name":"x"}', headers: { 'Content-Type': 'application/json; charset=latin1' }, status: 400, code: 'invalid_syntax', ...extra });
}

// --- subscriptions (commerce.md §10.3): nothing is charged, cancelled or changed
const saleSubscription = () => `subscriptions/${saleSubscriptionId}`;
const subscriptionCancelPath = () => `subscriptions/${saleSubscriptionId}/cancel`;
post(saleSubscription, { meta: nestedMeta(40) }, 'meta', 'subscription meta 40 deep');
post(saleSubscription, { meta: true }, 'meta', 'subscription meta a boolean');
for (const value of [5, {}, [], 'x'.repeat(101)]) post(saleSubscription, { payment_method_id: value }, 'payment_method_id', `subscription payment_method_id ${JSON.stringify(value).slice(0, 20)}`);
post(saleSubscription, { payment_method_id: 'NOSUCHMETHOD' }, 'payment_method_id', 'subscription payment_method_id unknown', { reason: 'not_found' });
rows.push({ label: "subscription payment_method_id of another customer", method: 'POST', path: saleSubscription, body: () => ({ payment_method_id: portalMethodId }), status: 400, code: 'invalid_input', property: 'payment_method_id', reason: 'not_found' });
for (const value of NOT_BOOLEANS) post(saleSubscription, { cancel_at_current_period_end: value }, 'cancel_at_current_period_end', `subscription cancel_at_current_period_end ${JSON.stringify(value)}`);
post(saleSubscription, { cancel_at_current_period_end: true }, 'cancel_at_current_period_end', 'subscription update that cancels', { reason: 'not_allowed' });
for (const value of NOT_BOOLEANS) post(subscriptionCancelPath, { cancel_at_current_period_end: value }, 'cancel_at_current_period_end', `subscription cancel at period end ${JSON.stringify(value)}`);
for (const value of NOT_TEXTS(500)) post(subscriptionCancelPath, { cancellation_reason: value }, 'cancellation_reason', `subscription cancellation_reason ${JSON.stringify(value).slice(0, 20)}`);
rows.push({ label: 'subscription uncancel with nothing pending', method: 'POST', path: () => `subscriptions/${saleSubscriptionId}/uncancel`, status: 422, code: 'invalid_state' });
rows.push({ label: 'subscription fast_forward in live mode', method: 'POST', path: () => `subscriptions/${saleSubscriptionId}/fast_forward`, token: () => runtime.bootstrap.tokens.live_secret, status: 409, code: 'feature_not_enabled' });
rows.push({ label: 'subscription cancel: the paying limited token', method: 'POST', path: subscriptionCancelPath, body: {}, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: "subscription cancel: another customer's scope", method: 'POST', path: subscriptionCancelPath, body: {}, token: () => portal, status: 404, code: 'resource_not_found' });
rows.push({ label: 'subscription update: limited token', method: 'POST', path: saleSubscription, body: { meta: 1 }, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'subscription fast_forward: limited token', method: 'POST', path: () => `subscriptions/${saleSubscriptionId}/fast_forward`, token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'subscriptions list: limited token', method: 'GET', path: () => 'subscriptions', token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'subscriptions list: status bogus', method: 'GET', path: () => 'subscriptions?status=bogus', status: 400, code: 'invalid_input' });
rows.push({ label: 'subscriptions list: in_grace_period maybe', method: 'GET', path: () => 'subscriptions?in_grace_period=maybe', status: 400, code: 'invalid_input' });
rows.push({ label: 'subscription: another mode', method: 'GET', path: saleSubscription, token: () => runtime.bootstrap.tokens.live_secret, status: 400, code: 'token_type_mismatch' });
rows.push({ label: "subscription orders: another customer's scope", method: 'GET', path: () => `subscriptions/${saleSubscriptionId}/orders`, token: () => portal, status: 404, code: 'resource_not_found' });
for (const action of ['cancel', 'uncancel', 'fast_forward', 'orders', 'payments']) {
  rows.push({ label: `subscription ${action} of an unknown id`, method: action === 'orders' || action === 'payments' ? 'GET' : 'POST', path: () => `subscriptions/NOSUCHSUBSCR/${action}`, ...(action === 'cancel' ? { body: {} } : {}), status: 404, code: 'resource_not_found' });
}
rows.push({ label: 'subscription update of an unknown id', method: 'POST', path: () => 'subscriptions/NOSUCHSUBSCR', body: { meta: 1 }, status: 404, code: 'resource_not_found' });
rows.push({ label: 'subscriptions of an unknown customer', method: 'GET', path: () => 'customers/NOSUCHCUSTOM/subscriptions', status: 404, code: 'resource_not_found' });

// --- the sales report (commerce.md §12): every refused parameter names itself
for (const [query, parameter, label] of [
  ['group_by=week', 'group_by', 'group_by week'],
  ['date_start=2025-01-01&date_end=2026-12-31', 'group_by', '731 day buckets'],
  ['date_start=2000-01&date_end=2026-12&group_by=month', 'group_by', '324 month buckets'],
  ['date_start=2026-03-02&date_end=2026-03-01', 'date_end', 'date_end before date_start'],
  ['date_start=soon', 'date_start', 'date_start soon'],
  ['date_end=2026-13-01', 'date_end', 'date_end month 13'],
  ['currency=XYZ', 'currency', 'currency not enabled'],
  ['currency=%00', 'currency', 'currency a NUL'],
  ['timezone=Mars%2FOlympus', 'timezone', 'timezone unknown'],
] as const) {
  rows.push({ label: `sales report ${label}`, method: 'GET', path: () => `reports/sales?${query}`, status: 400, code: 'invalid_input', parameter });
}
rows.push({ label: 'sales report: limited token', method: 'GET', path: () => 'reports/sales', token: () => shopper, status: 403, code: 'insufficient_permissions' });
rows.push({ label: 'sales report: customer scope', method: 'GET', path: () => 'reports/sales', token: () => portal, status: 403, code: 'insufficient_permissions' });

// --- ids in paths: traversal, encoded slashes, control characters, absurd lengths
const BAD_IDS = ['..%2F..%2Fsettings%2Fpayment', 'p1%2F..%2Fp1', '%00', 'p1%0A', `${'x'.repeat(300)}`, '%E2%80%AE1p', '..'];
const idPaths: Array<[string, (id: string) => string, Partial<Case>]> = [
  ['product', (id) => `products/${id}`, {}],
  ['customer', (id) => `customers/${id}`, {}],
  ['cart', (id) => `carts/${id}`, {}],
  ['order', (id) => `orders/${id}`, {}],
  ['payment', (id) => `payments/${id}`, {}],
  ['refund', (id) => `refunds/${id}`, {}],
  ['promotion', (id) => `promotions/${id}`, {}],
  ['shipping method', (id) => `shipping_methods/${id}`, {}],
  ['event subscription', (id) => `event_subscriptions/${id}`, {}],
  ['event', (id) => `events/${id}`, {}],
  ['license service', (id) => `license_services/${id}`, {}],
  ['app', (id) => `apps/${id}`, {}],
  ['shipment', (id) => `shipments/${id}`, {}],
  ['oauth app', (id) => `oauth_apps/${id}`, {}],
  ['subscription', (id) => `subscriptions/${id}`, {}],
  ['invoice', (id) => `invoices/${id}`, {}],
];
for (const [name, path] of idPaths) {
  for (const id of BAD_IDS) rows.push({ label: `GET ${name} id ${id.slice(0, 24)}`, method: 'GET', path: () => path(id), status: 404, code: 'resource_not_found' });
}
// Below an app (or a customer), a literal `..` would be resolved by the client to the app itself: the others only.
const appChildren: Array<[string, (id: string) => string]> = [
  ['my saved card', (id) => `customers/me/payment_methods/${id}`],
  ['app version', (id) => `apps/${appId}/versions/${id}`],
  ['app deployment', (id) => `apps/${appId}/deployments/${id}`],
  ['app alias', (id) => `apps/${appId}/aliases/${id}`],
];
for (const [name, path] of appChildren) {
  for (const id of BAD_IDS.filter((bad) => bad !== '..')) rows.push({ label: `GET ${name} id ${id.slice(0, 24)}`, method: 'GET', path: () => path(id), status: 404, code: 'resource_not_found', ...(name === 'my saved card' ? asPortal : {}) });
}
for (const id of BAD_IDS.slice(0, 3)) {
  rows.push({ label: `update product id ${id}`, method: 'POST', path: () => `products/${id}`, body: { name: 'X' }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `delete product id ${id}`, method: 'DELETE', path: () => `products/${id}`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `cart item of cart ${id}`, method: 'POST', path: () => `carts/${id}/items`, body: { product_id: 'p1' }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `refund of order id ${id}`, method: 'POST', path: () => `orders/${id}/refunds`, body: {}, status: 404, code: 'resource_not_found' });
  rows.push({ label: `refund of payment id ${id}`, method: 'POST', path: () => `payments/${id}/refunds`, body: {}, status: 404, code: 'resource_not_found' });
  rows.push({ label: `retry event id ${id}`, method: 'POST', path: () => `events/${id}/retry`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `test subscription id ${id}`, method: 'POST', path: () => `event_subscriptions/${id}/test`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `test subscription id ${id} (trailing segment)`, method: 'POST', path: () => `event_subscriptions/${id}/test/x`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `update license service id ${id}`, method: 'POST', path: () => `license_services/${id}`, body: { name: 'X' }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `delete license service id ${id}`, method: 'DELETE', path: () => `license_services/${id}`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `update app id ${id}`, method: 'POST', path: () => `apps/${id}`, body: { name: 'X' }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `delete app id ${id}`, method: 'DELETE', path: () => `apps/${id}`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `deploy to app id ${id}`, method: 'POST', path: () => `apps/${id}/deploy`, body: { version_id: 'X' }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `delete version id ${id}`, method: 'DELETE', path: () => `apps/${appId}/versions/${id}`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `delete alias ${id}`, method: 'DELETE', path: () => `apps/${appId}/aliases/${id}`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `shipment of order id ${id}`, method: 'POST', path: () => `orders/${id}/shipments`, body: {}, status: 404, code: 'resource_not_found' });
  rows.push({ label: `update shipment id ${id}`, method: 'POST', path: () => `shipments/${id}`, body: { courier: 'X' }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `delete shipment id ${id}`, method: 'DELETE', path: () => `shipments/${id}`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `update subscription id ${id}`, method: 'POST', path: () => `subscriptions/${id}`, body: { meta: 1 }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `cancel subscription id ${id}`, method: 'POST', path: () => `subscriptions/${id}/cancel`, body: {}, status: 404, code: 'resource_not_found' });
  rows.push({ label: `update invoice id ${id}`, method: 'POST', path: () => `invoices/${id}`, body: { meta: null }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `delete invoice id ${id}`, method: 'DELETE', path: () => `invoices/${id}`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `publish invoice id ${id}`, method: 'POST', path: () => `invoices/${id}/publish`, status: 404, code: 'resource_not_found' });
  rows.push({ label: `pay invoice id ${id}`, method: 'POST', path: () => `invoices/${id}/payments`, body: { payment_method: card() }, status: 404, code: 'resource_not_found' });
  rows.push({ label: `link invoice id ${id}`, method: 'POST', path: () => `invoices/${id}/links`, status: 404, code: 'resource_not_found' });
}

describe('bad input changes nothing (a table of probes)', () => {
  it('has at least 150 rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(150);
  });

  it.each(rows.map((row) => [row.label, row] as const))('%s', async (_label, row) => {
    const before = await snapshot();
    const token = row.token ? row.token() : secret;
    const answer = await api(`${base}${row.path()}`, {
      method: row.method,
      ...(token ? { token } : {}),
      ...(row.raw === undefined ? (row.body === undefined ? {} : { body: typeof row.body === 'function' ? (row.body as () => unknown)() : row.body }) : { rawBody: row.raw as string, headers: row.headers ?? {} }),
    });
    expect(answer.status, answer.text).toBe(row.status);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.body.error).toMatchObject({ status: row.status, code: row.code });
    expect(answer.body.error.reference).toBe(answer.headers.get('x-request-id'));
    expect(typeof answer.body.error.message).toBe('string');
    if (row.property !== undefined) expect(answer.body.error.meta?.property, answer.text).toBe(row.property);
    if (row.reason !== undefined) expect(answer.body.error.meta?.reason, answer.text).toBe(row.reason);
    if (row.parameter !== undefined) expect(answer.body.error.meta?.parameter, answer.text).toBe(row.parameter);
    const after = await snapshot();
    for (const [read, text] of Object.entries(before)) expect(after[read], read).toBe(text);
  });
});

describe('the API description', () => {
  it('is served without a token at /api/v1/openapi.json', async () => {
    const answer = await api(`${base}openapi.json`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.body.openapi).toBe('3.1.0');
    expect(answer.body.servers).toEqual([{ url: base.replace(/\/$/, ''), description: expect.any(String) }]);
    expect(answer.body.paths['/carts'].post.requestBody).toBeDefined();
  });
});
