/**
 * `expand` at every depth over HTTP (conventions.md §10): a payment's order with its lines'
 * products and its customer, `order.options` and `cart.options`, and the reads staying
 * batched (one BatchGetItem per level, counted by the local runtime's `/_local/metrics`). A
 * storefront receipt, asked with the shopper's own limited token right after paying, gets
 * everything it reaches and nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let secret: string;

const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } };
const buyer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };
const productIds = Array.from({ length: 20 }, (_, i) => `line-${String(i + 1).padStart(2, '0')}`);

/** The storefront receipt request of the issue, exactly as sent. */
const RECEIPT =
  '?expand=payment_method,payment_method.data,order.customer,order.items.product,order.items.subscription_terms,order.options,cart.options,invoice.options,order.items.download,order.items.license,response_data&formatted=true&options=true';

/** BatchGetItem calls the runtime's DynamoDB has answered so far. */
async function batchGets(): Promise<number> {
  const metrics = await fetch(`${runtime.url}/_local/metrics`).then((response) => response.json() as Promise<{ dynamodb_calls: Record<string, number> }>);
  return metrics.dynamodb_calls.BatchGetItem ?? 0;
}

/**
 * The answer of `url` and the BatchGetItem calls it cost. Background work (the fan-out of the
 * payment's events, the due-work sweep) may read inside one request's window, so the fewest
 * calls of three reads is what the request itself costs.
 */
async function measured(url: string, token: string): Promise<{ status: number; body: any; text: string; batches: number }> {
  let fewest: { status: number; body: any; text: string; batches: number } | undefined;
  for (let run = 0; run < 3; run++) {
    const before = await batchGets();
    const response = await api(url, { token });
    const batches = (await batchGets()) - before;
    if (!fewest || batches < fewest.batches) fewest = { ...response, batches };
  }
  return fewest!;
}

/** A paid cart of `items`: the payment's body. */
async function pay(token: string, items: Array<{ product_id: string; quantity?: number }>, extra: Record<string, unknown> = {}): Promise<any> {
  const cart = await api(`${base}carts`, { method: 'POST', token, body: { items, customer: buyer, ...extra } });
  expect(cart.status, cart.text).toBe(201);
  const paid = await api(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token, body: card });
  expect(paid.status, paid.text).toBe(201);
  return paid.body;
}

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  const settings = await api(`${base}settings/payment`, {
    method: 'POST',
    token: secret,
    body: { duplicate_payment_timeout: 0, customer_required_fields: ['name', 'email', 'country'], customer_optional_fields: ['phone', 'credentials'] },
  });
  expect(settings.status, settings.text).toBe(200);
  for (const productId of productIds) {
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: productId, name: `Line ${productId}`, type: 'digital', prices: [{ currency: 'USD', price: 3 }] } });
    expect(product.status, product.text).toBe(201);
  }
  const promotion = await api(`${base}promotions`, { method: 'POST', token: secret, body: { promotion_id: 'receipt-promo', name: 'Receipt', code: 'RECEIPT', discount_type: 'percent', discount_percent: 0.1 } });
  expect(promotion.status, promotion.text).toBe(201);
});
afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

describe('a payment whose order has 20 lines', () => {
  let payment: any;
  beforeAll(async () => {
    payment = await pay(secret, productIds.map((product_id) => ({ product_id })));
  });

  it('expands order.items.product with exactly 2 BatchGetItem calls: the order, then all 20 products', async () => {
    const read = await measured(`${payment.url}?expand=order.items.product`, secret);
    expect(read.status, read.text).toBe(200);
    expect(read.batches).toBe(2);
    const items = read.body.order.items;
    expect(items).toHaveLength(20);
    items.forEach((item: any, index: number) => expect(item.product).toMatchObject({ object: 'product', product_id: productIds[index], name: `Line ${productIds[index]}` }));
  });

  it('adds the customer and the options at no extra level: still one batch per level', async () => {
    const read = await measured(`${payment.url}?expand=order.items.product,order.customer,order.options,cart.options,order.cart`, secret);
    // The payment with its order (one batch, no GetItem), the cart (the rest of level 1), then
    // level 2: the products, the customer and the order's cart together.
    expect(read.batches).toBe(3);
    expect(read.body.order.customer).toMatchObject({ object: 'customer', email: 'ada@example.test' });
    expect(read.body.order.cart).toMatchObject({ object: 'cart', cart_id: read.body.cart.cart_id });
    expect(read.body.order.options).toBeDefined();
    expect(read.body.cart.options).toBeDefined();
  });

  it('reads the payment and its order in one strongly consistent batch (expand=order: no GetItem at all)', async () => {
    const calls = async () => (await fetch(`${runtime.url}/_local/metrics`).then((response) => response.json() as Promise<{ dynamodb_calls: Record<string, number> }>)).dynamodb_calls;
    let fewest = Infinity;
    for (let run = 0; run < 3 && fewest > 1; run++) {
      const before = await calls();
      const read = await api(`${payment.url}?expand=order`, { token: secret });
      expect(read.status, read.text).toBe(200);
      expect(read.body.order).toMatchObject({ object: 'order', order_id: payment.order.split('/').pop(), payment: payment.url });
      const after = await calls();
      // The secret token's lease and the settings are cached across runs; background work may add a call.
      fewest = Math.min(fewest, (after.BatchGetItem ?? 0) - (before.BatchGetItem ?? 0) + (after.GetItem ?? 0) - (before.GetItem ?? 0));
    }
    expect(fewest).toBe(1);
  });

  it('answers a payment that does not exist with 404 when the order is expanded too', async () => {
    const missing = await api(`${base}payments/NOSUCHPAYMT1?expand=order`, { token: secret });
    expect(missing.status, missing.text).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'resource_not_found' });
  });

  it('GET /orders/{id}?expand=items.product inlines every product with one BatchGetItem', async () => {
    const orderUrl = (await api(payment.url, { token: secret })).body.order;
    const read = await measured(`${orderUrl}?expand=items.product&formatted=true`, secret);
    expect(read.status, read.text).toBe(200);
    expect(read.batches).toBe(1);
    expect(read.body.items.map((item: any) => item.product.product_id)).toEqual(productIds);
    expect(read.body.items[0].product.formatted).toMatchObject({ price: '$3.00' });
    expect(read.body.items[0].formatted).toMatchObject({ price: '$3.00' });
    // The order's own sub-resources expand the same way.
    const lines = await measured(`${orderUrl}/items?limit=5&expand=product`, secret);
    expect(lines.body.data.map((item: any) => item.product.object)).toEqual(['product', 'product', 'product', 'product', 'product']);
    expect(lines.batches).toBe(1);
    const line = await api(`${orderUrl}/items/${productIds[3]}?expand=product&show=product.name`, { token: secret });
    expect(line.body).toEqual({ url: `${orderUrl}/items/${productIds[3]}`, product: { name: `Line ${productIds[3]}` } });
  });

  it('keeps the list limits: on /payments only the first 2 paths apply, per element', async () => {
    const list = await api(`${base}payments?limit=1&expand=order.items.product,order.options,order.customer`, { token: secret });
    expect(list.status, list.text).toBe(200);
    const order = list.body.data[0].order;
    expect(order.items[0].product).toMatchObject({ object: 'product' });
    expect(order.options).toBeDefined();
    expect(typeof order.customer).toBe('string');
  });
});

describe('a storefront receipt with the shopper own limited token', () => {
  it('gets the order with its lines products, customer and options, and nothing it may not read', async () => {
    const minted = await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret });
    expect(minted.status).toBe(201);
    const token = minted.body.token;
    const paid = await pay(token, [{ product_id: 'line-01', quantity: 2 }, { product_id: 'line-02' }, { product_id: 'line-03' }], { promotion_code: 'RECEIPT' });

    const receipt = await api(`${paid.url}${RECEIPT}`, { token });
    expect(receipt.status, receipt.text).toBe(200);
    const body = receipt.body;
    expect(body).toMatchObject({ object: 'payment', status: 'completed', invoice: null, formatted: { total: expect.any(String) } });
    expect(body.payment_method).toMatchObject({ object: 'payment_method', type: 'credit_card', data: { last4: '4242' } });
    expect(body.response_data).toBeTypeOf('object');
    // The payment itself has no virtual `options`: the legacy flag names nothing here.
    expect(body).not.toHaveProperty('options');

    const order = body.order;
    expect(order).toMatchObject({ object: 'order', payment_status: 'completed', promotion_code: 'RECEIPT', formatted: { total: expect.any(String) } });
    expect(order.items.map((item: any) => [item.product_id, item.product.object, item.product.product_id])).toEqual([
      ['line-01', 'product', 'line-01'],
      ['line-02', 'product', 'line-02'],
      ['line-03', 'product', 'line-03'],
    ]);
    expect(order.items[0].product.formatted).toMatchObject({ price: '$3.00' });
    expect(order.items[0]).toMatchObject({ license: null, download: null, license_pending: false });
    expect(order.items[0]).not.toHaveProperty('subscription_terms');
    expect(order.customer).toMatchObject({ object: 'customer', name: 'Ada Lee', email: 'ada@example.test' });
    expect(Object.keys(order.options).sort()).toEqual(['card_types', 'currencies', 'customer_optional_fields', 'customer_required_fields']);
    expect(order.options).toMatchObject({
      customer_required_fields: ['name', 'email', 'billing_address.country'],
      customer_optional_fields: ['phone', 'username'],
      currencies: [{ code: 'USD', name: 'US Dollar' }],
    });
    expect(order.options.card_types).toContain('Visa');
    expect(body.cart).toMatchObject({ object: 'cart', payment_status: 'completed' });
    expect(body.cart.options).toMatchObject({ customer_optional_fields: ['phone', 'username'], payment_methods: [{ payment_method_type: 'credit_card' }], shipping_quotes: [] });

    // What it may not read stays a URL: the promotion (no right), the customer's saved methods
    // (not named; sub-collections it would reach stay URLs until they can be expanded).
    expect(order.promotion).toBe(`${base}promotions/receipt-promo`);
    expect(order.customer.payment_methods).toBe(`${order.customer.url}/payment_methods`);
    const links = await api(`${paid.url}?expand=order.promotion,cart.promotion,order.payment,order.cart.items.product`, { token });
    expect(links.body.order.promotion).toBe(`${base}promotions/receipt-promo`);
    expect(links.body.cart.promotion).toBe(`${base}promotions/receipt-promo`);
    expect(links.body.order.payment).toMatchObject({ object: 'payment', payment_id: paid.payment_id });
    expect(links.body.order.cart.items[1].product).toMatchObject({ object: 'product', product_id: 'line-02' });

    // A product no longer active is out of its reach: that line's product stays a URL.
    const deactivated = await api(`${base}products/line-02`, { method: 'POST', token: secret, body: { active: false } });
    expect(deactivated.status, deactivated.text).toBe(200);
    const later = await api(`${paid.url}${RECEIPT}`, { token });
    expect(later.body.order.items.map((item: any) => (typeof item.product === 'string' ? item.product : item.product.object))).toEqual([
      'product',
      `${base}products/line-02`,
      'product',
    ]);
    // The merchant still sees it.
    const merchant = await api(`${paid.url}?expand=order.items.product`, { token: secret });
    expect(merchant.body.order.items[1].product).toMatchObject({ object: 'product', active: false });
    expect((await api(`${base}products/line-02`, { method: 'POST', token: secret, body: { active: true } })).status).toBe(200);
  });
});

describe('a storefront receipt of a product with images', () => {
  it('carries images with working link_square URLs (300 x 300) in each line product', async () => {
    const picture = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 40, b: 40 } } }).jpeg().toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(picture)], { type: 'image/jpeg' }), 'cover.jpg');
    const uploaded = await fetch(`${base}images`, { method: 'POST', headers: { Authorization: `Bearer ${secret}` }, body: form });
    const image = (await uploaded.json()) as { image_id: string };
    expect(uploaded.status).toBe(201);
    const attached = await api(`${base}products/line-04`, { method: 'POST', token: secret, body: { image_ids: [image.image_id] } });
    expect(attached.status, attached.text).toBe(200);

    const token = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token;
    const paid = await pay(token, [{ product_id: 'line-04', quantity: '2' as unknown as number }]);
    const receipt = await api(`${paid.url}${RECEIPT}`, { token });
    expect(receipt.status, receipt.text).toBe(200);
    const product = receipt.body.order.items[0].product;
    expect(product).toMatchObject({ object: 'product', product_id: 'line-04', images: [{ object: 'image', image_id: image.image_id }] });
    expect(receipt.body.order.options).toBeTypeOf('object');
    expect(receipt.body.cart.options).toBeTypeOf('object');
    // The link is public: no token, and the file is the 300 x 300 square.
    const square = await fetch(product.images[0].link_square);
    expect(square.status).toBe(200);
    const size = await sharp(Buffer.from(await square.arrayBuffer())).metadata();
    expect([size.width, size.height]).toEqual([300, 300]);
  });
});
