/**
 * Promotions over HTTP (commerce.md §11, §3, §4.3 check 4, §5.1 step 4): the merchant manages
 * coupon codes; a shopper holding only a limited token applies one to a cart in any letter
 * case and the totals drop; every failed check answers 400 invalid_promotion_code with its
 * reason and changes nothing; the code is checked again at payment; the order carries the
 * code and the promotion link; `uses` counts each paid sale once and holds `max_uses`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let secret: string;
let liveSecret: string;

const card = (number = '4242424242424242') => ({
  payment_method: { type: 'credit_card', data: { number, exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } },
});
const buyer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };
let serial = 0;

async function shopper(): Promise<string> {
  const minted = await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret });
  expect(minted.status).toBe(201);
  return minted.body.token;
}

/** Creates a promotion with a fresh id and code (percent 10 % unless overridden). */
async function promotion(extra: Record<string, unknown> = {}): Promise<any> {
  serial += 1;
  const created = await api(`${base}promotions`, {
    method: 'POST',
    token: secret,
    body: { promotion_id: `promo-${serial}`, name: `Promotion ${serial}`, code: `CODE-${serial}`, discount_type: 'percent', discount_percent: 0.1, ...extra },
  });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

async function cart(token: string, body: Record<string, unknown> = {}): Promise<any> {
  const created = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'ebook' }], customer: buyer, ...body } });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

function expectCodeError(response: { status: number; body: any; text: string }, reason: string): void {
  expect(response.status, response.text).toBe(400);
  expect(response.body.error).toMatchObject({ code: 'invalid_promotion_code', status: 400, meta: { property: 'promotion_code', reason } });
}

async function uses(promotionId: string): Promise<number> {
  return (await api(`${base}promotions/${promotionId}`, { token: secret })).body.uses;
}

async function orderCount(): Promise<number> {
  let count = 0;
  let url: string | null = `${base}orders?limit=100`;
  while (url) {
    const page: { body: { data: unknown[]; next_page_url: string | null } } = await api(url, { token: secret });
    count += page.body.data.length;
    url = page.body.next_page_url;
  }
  return count;
}

async function advanceClock(seconds: number): Promise<void> {
  expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: seconds } })).status).toBe(200);
}

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  liveSecret = runtime.bootstrap.tokens.live_secret;
  expect((await api(`${base}settings/tax`, { method: 'POST', token: secret, body: { rules: [{ country: 'US', state_prov: null, rate: 0.1 }] } })).status).toBe(200);
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0, currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.9 } } })).status).toBe(200);
  for (const [id, price] of [
    ['ebook', 19],
    ['poster', 10],
  ] as const) {
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: id, name: id, type: 'digital', prices: [{ currency: 'USD', price }] } });
    expect(product.status, product.text).toBe(201);
  }
});
afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

describe('managing promotions', () => {
  it('creates one (201, Location), reads, updates, lists and soft-deletes it', async () => {
    const created = await api(`${base}promotions?formatted=true`, {
      method: 'POST',
      token: secret,
      body: { promotion_id: 'spring', name: 'Spring sale', code: 'Spring10', discount_type: 'percent', discount_percent: 0.1, max_uses: 100, meta: { campaign: 'spring' } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('location')).toBe(`${base}promotions/spring`);
    expect(created.body).toMatchObject({
      object: 'promotion',
      url: `${base}promotions/spring`,
      promotion_id: 'spring',
      type: 'coupon',
      name: 'Spring sale',
      code: 'Spring10',
      active: true,
      discount_type: 'percent',
      discount_percent: 0.1,
      discount_amounts: [],
      product_ids: [],
      expires: null,
      max_uses: 100,
      uses: 0,
      deleted: false,
      test: true,
      account_id: account,
      meta: { campaign: 'spring' },
      formatted: { discount_percent: '10%' },
    });

    const updated = await api(`${base}promotions/spring`, { method: 'POST', token: secret, body: { ...created.body, name: 'Spring sale 2', uses: 50 } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Spring sale 2', uses: 0, code: 'Spring10' });

    const list = await api(`${base}promotions?q=spring10`, { token: secret });
    expect(list.body).toMatchObject({ object: 'list', total_items: 1, current_page: 1 });
    expect(list.body.data[0].promotion_id).toBe('spring');

    expect((await api(`${base}promotions/spring`, { method: 'DELETE', token: secret })).status).toBe(204);
    expect((await api(`${base}promotions/spring`, { method: 'DELETE', token: secret })).status).toBe(204);
    const deleted = await api(`${base}promotions/spring`, { token: secret });
    expect(deleted.body).toMatchObject({ deleted: true, active: false });
    expect((await api(`${base}promotions?q=spring10`, { token: secret })).body.total_items).toBe(0);
    expect((await api(`${base}promotions?q=spring10&deleted=true`, { token: secret })).body.data[0].promotion_id).toBe('spring');
    // The code stays taken while deleted, so a restore always works.
    expect((await api(`${base}promotions`, { method: 'POST', token: secret, body: { name: 'Copy', code: 'SPRING10', discount_type: 'percent', discount_percent: 0.2 } })).status).toBe(409);
    const restored = await api(`${base}promotions/spring`, { method: 'POST', token: secret, body: { deleted: false, active: true } });
    expect(restored.body).toMatchObject({ deleted: false, active: true });
  });

  it('keeps codes unique case-insensitively and ids unique (409 in_use), and validates (400)', async () => {
    const first = await promotion({ code: 'UNIQUE-Code' });
    const taken = await api(`${base}promotions`, { method: 'POST', token: secret, body: { name: 'Other', code: 'unique-code', discount_type: 'percent', discount_percent: 0.5 } });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'in_use', meta: { property: 'code', reason: 'conflict' } });
    const idTaken = await api(`${base}promotions`, { method: 'POST', token: secret, body: { promotion_id: first.promotion_id, name: 'Other', code: 'OTHER-1', discount_type: 'percent', discount_percent: 0.5 } });
    expect(idTaken.body.error).toMatchObject({ code: 'in_use', meta: { property: 'promotion_id' } });
    for (const [body, property] of [
      [{ code: 'X1', discount_type: 'percent', discount_percent: 0.1 }, 'name'],
      [{ name: 'N', code: 'has space', discount_type: 'percent', discount_percent: 0.1 }, 'code'],
      [{ name: 'N', code: 'X2', discount_type: 'percent', discount_percent: 1.1 }, 'discount_percent'],
      [{ name: 'N', code: 'X3', discount_type: 'amount' }, 'discount_amounts'],
      [{ name: 'N', code: 'X4', discount_type: 'amount', discount_amounts: [{ currency: 'GBP', amount: 5 }] }, 'discount_amounts[0].currency'],
      [{ name: 'N', code: 'X5', discount_type: 'percent', discount_percent: 0.1, expires: 'soon' }, 'expires'],
      [{ name: 'N', code: 'X6', discount_type: 'percent', discount_percent: 0.1, promotion_id: 'bad id' }, 'promotion_id'],
      [{ name: 'N', code: 'X7', discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 1_000_000_000_000 }] }, 'discount_amounts[0].amount'],
      [{ name: 'N', code: 'X8', discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: '1e3' }] }, 'discount_amounts[0].amount'],
      [{ name: 'N', code: 'X9', discount_type: 'percent', discount_percent: 'ten percent' }, 'discount_percent'],
      [{ name: 'N', code: 'X10', discount_type: 'percent', discount_percent: 0.1, active: 'yes' }, 'active'],
      [{ name: 'N', code: 'X11', discount_type: 'percent', discount_percent: 0.1, active: 1 }, 'active'],
    ] as const) {
      const refused = await api(`${base}promotions`, { method: 'POST', token: secret, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_input', meta: { property } });
    }
    // The live mode is a separate data set: the code is free there, the test id is a mismatch.
    const live = await api(`${base}promotions`, { method: 'POST', token: liveSecret, body: { name: 'Live', code: 'unique-code', discount_type: 'percent', discount_percent: 0.5 } });
    expect(live.status, live.text).toBe(201);
    expect((await api(`${base}promotions/${first.promotion_id}`, { token: liveSecret })).body.error.code).toBe('token_type_mismatch');
    expect((await api(`${base}promotions/nope`, { token: secret })).status).toBe(404);
  });

  it('takes plain decimal strings for amounts, percents and max_uses, as forms post them (conventions.md §4)', async () => {
    const amount = await promotion({ discount_type: 'amount', discount_percent: null, discount_amounts: [{ currency: 'USD', amount: '5' }, { currency: 'eur', amount: '4.50' }], max_uses: '10' });
    expect(amount).toMatchObject({ discount_amounts: [{ currency: 'USD', amount: 5 }, { currency: 'EUR', amount: 4.5 }], max_uses: 10 });
    const percent = await api(amount.url, { method: 'POST', token: secret, body: { discount_type: 'percent', discount_percent: '0.25' } });
    expect(percent.status, percent.text).toBe(200);
    expect(percent.body).toMatchObject({ discount_type: 'percent', discount_percent: 0.25, discount_amounts: [] });
    const refused = await api(amount.url, { method: 'POST', token: secret, body: { name: 'Changed', max_uses: '1e3' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.meta).toMatchObject({ property: 'max_uses', reason: 'invalid' });
    expect((await api(amount.url, { token: secret })).body).toMatchObject({ name: amount.name, max_uses: 10 });
  });

  it('reads a date-only expires as the end of that day in the zone in effect', async () => {
    const ny = await api(`${base}promotions?timezone=America/New_York`, {
      method: 'POST',
      token: secret,
      body: { name: 'Summer', code: 'SUMMER-NY', discount_type: 'percent', discount_percent: 0.1, expires: '2030-06-30' },
    });
    expect(ny.status, ny.text).toBe(201);
    expect(ny.body.expires).toBe('2030-06-30T23:59:59-04:00');
    expect((await api(ny.body.url, { token: secret })).body.expires).toBe('2030-07-01T03:59:59Z');
  });

  it('lists with filters and sort orders as an offset list', async () => {
    await promotion({ name: 'zz last', code: 'LIST-A', active: false });
    await promotion({ name: 'aa first', code: 'LIST-B' });
    const inactive = await api(`${base}promotions?active=false&q=list-`, { token: secret });
    expect(inactive.body.data.map((p: any) => p.code)).toEqual(['LIST-A']);
    const byName = await api(`${base}promotions?q=list-&sort_by=name`, { token: secret });
    expect(byName.body.data.map((p: any) => p.code)).toEqual(['LIST-B', 'LIST-A']);
    const page = await api(`${base}promotions?limit=1`, { token: secret });
    expect(page.body).toMatchObject({ next_page_offset: 1, previous_page_offset: null, current_page: 1 });
    expect(page.body.total_items).toBeGreaterThan(3);
    expect((await api(`${base}promotions?sort_by=code`, { token: secret })).status).toBe(400);
  });

  it('is closed to limited tokens (403), which use codes only through carts', async () => {
    const token = await shopper();
    const existing = await promotion();
    expect((await api(`${base}promotions`, { token })).status).toBe(403);
    expect((await api(`${base}promotions/${existing.promotion_id}`, { token })).status).toBe(403);
    expect((await api(`${base}promotions`, { method: 'POST', token, body: { name: 'Mine', code: 'FREE', discount_type: 'percent', discount_percent: 1 } })).status).toBe(403);
    // The cart's promotion link stays a URL for them, even when expanded.
    const applied = await cart(token, { promotion_code: existing.code });
    const read = await api(`${base}carts/${applied.cart_id}?expand=promotion`, { token });
    expect(read.body.promotion).toBe(existing.url);
    // A secret token expands it.
    expect((await api(`${base}carts/${applied.cart_id}?expand=promotion`, { token: secret })).body.promotion).toMatchObject({ object: 'promotion', code: existing.code });
  });
});

describe('a shopper applying a code', () => {
  it('applies it case-insensitively, sees the totals drop, and can remove it', async () => {
    const code = await promotion({ code: 'Autumn-15', discount_percent: 0.15 });
    const token = await shopper();
    const plain = await cart(token, { items: [{ product_id: 'ebook', quantity: 2 }] });
    expect(plain).toMatchObject({ subtotal: 38, discount: 0, total: 41.8, promotion_code: null, promotion: null });
    const applied = await api(`${base}carts/${plain.cart_id}`, { method: 'POST', token, body: { promotion_code: 'aUtUmN-15' } });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body).toMatchObject({
      promotion_code: 'Autumn-15',
      promotion: code.url,
      subtotal_original: 38,
      discount: 5.7,
      subtotal: 32.3,
      tax: 3.23,
      tax_original: 3.8,
      total: 35.53,
      total_original: 41.8,
    });
    expect(applied.body.items[0]).toMatchObject({ price_original: 19, discount: 5.7, subtotal: 32.3, price: 16.15 });
    // Item writes re-price with the code.
    const more = await api(`${base}carts/${plain.cart_id}/items`, { method: 'POST', token, body: { product_id: 'poster', quantity: 1 } });
    expect(more.status, more.text).toBe(201);
    const withPoster = await api(`${base}carts/${plain.cart_id}`, { token });
    expect(withPoster.body).toMatchObject({ promotion_code: 'Autumn-15', subtotal_original: 48, discount: 7.2 });
    const removed = await api(`${base}carts/${plain.cart_id}`, { method: 'POST', token, body: { promotion_code: null } });
    expect(removed.body).toMatchObject({ promotion_code: null, promotion: null, discount: 0, subtotal: 48, total: 52.8 });
  });

  it('applies a fixed amount, converted into the cart currency and spread over the lines', async () => {
    const code = await promotion({ discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 10 }] });
    const formatted = await api(`${code.url}?formatted=true`, { token: secret });
    expect(formatted.body).toMatchObject({ discount_percent: null, discount_amounts: [{ currency: 'USD', amount: 10, formatted: { amount: '$10.00' } }] });
    const token = await shopper();
    const created = await cart(token, { items: [{ product_id: 'ebook' }, { product_id: 'poster' }], promotion_code: code.code.toLowerCase() });
    // 10 over 19 : 10 → 6.55 + 3.45
    expect(created).toMatchObject({ discount: 10, subtotal: 19 });
    expect(created.items.map((item: any) => item.discount)).toEqual([6.55, 3.45]);
    const eur = await api(`${base}carts/${created.cart_id}`, { method: 'POST', token, body: { currency: 'EUR' } });
    expect(eur.body).toMatchObject({ currency: 'EUR', discount: 9, subtotal_original: 26.1 });
  });

  it('refuses every failing check with 400 invalid_promotion_code and its reason, on create and update, and changes nothing', async () => {
    const inactive = await promotion({ active: false });
    const expired = await promotion({ expires: 'yesterday' });
    const posterOnly = await promotion({ product_ids: ['poster'] });
    const deleted = await promotion();
    expect((await api(deleted.url, { method: 'DELETE', token: secret })).status).toBe(204);
    const token = await shopper();
    const existing = await cart(token, { meta: 'before' });
    const cases: Array<[string, string]> = [
      ['NO-SUCH-CODE', 'not_found'],
      [inactive.code, 'inactive'],
      [deleted.code, 'inactive'],
      [expired.code.toLowerCase(), 'expired'],
      [posterOnly.code, 'not_applicable'],
    ];
    for (const [code, reason] of cases) {
      expectCodeError(await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'ebook' }], promotion_code: code } }), reason);
      expectCodeError(await api(`${base}carts/${existing.cart_id}`, { method: 'POST', token, body: { promotion_code: code, meta: 'after' } }), reason);
    }
    expect((await api(`${base}carts/${existing.cart_id}`, { token })).body).toEqual(existing);
    // Refused creates bound no cart: the token is still bound to the one cart it made.
    const auth = await api(`${base}auths/me`, { token });
    expect(auth.body).toMatchObject({ bindings_count: 1, bindings: [existing.url] });
  });
});

describe('paying with a code', () => {
  it('charges the discounted total, links the order to the promotion and counts the use once', async () => {
    const code = await promotion({ code: 'PAY-ONCE', max_uses: 5 });
    const token = await shopper();
    const applied = await cart(token, { items: [{ product_id: 'ebook', quantity: 2 }], promotion_code: 'pay-once' });
    expect(applied.total).toBe(37.62);
    const key = `promo-${Date.now()}`;
    const paid = await api(`${base}carts/${applied.cart_id}/payments`, { method: 'POST', token, body: card(), headers: { 'Idempotency-Key': key } });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({ status: 'completed', total: 37.62 });
    const read = await api(`${paid.body.url}?expand=order`, { token });
    expect(read.body.order).toMatchObject({ promotion_code: 'PAY-ONCE', promotion: code.url, discount: 3.8, total: 37.62, total_original: 41.8 });
    expect(read.body.order.items[0]).toMatchObject({ discount: 3.8, price_original: 19 });
    expect(await uses(code.promotion_id)).toBe(1);
    // A replay answers the stored response and counts nothing again.
    const replay = await api(`${base}carts/${applied.cart_id}/payments`, { method: 'POST', token, body: card(), headers: { 'Idempotency-Key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await uses(code.promotion_id)).toBe(1);
    // The merchant reads the order's promotion.
    const order = await api(`${read.body.order.url}?expand=promotion`, { token: secret });
    expect(order.body.promotion).toMatchObject({ object: 'promotion', promotion_id: code.promotion_id, uses: 1 });
  });

  it('does not count a failed payment, and counts the retry that succeeds', async () => {
    const code = await promotion();
    const token = await shopper();
    const applied = await cart(token, { promotion_code: code.code });
    const declined = await api(`${base}carts/${applied.cart_id}/payments`, { method: 'POST', token, body: card('4000000000000002') });
    expect(declined.status).toBe(402);
    expect(await uses(code.promotion_id)).toBe(0);
    const paid = await api(`${base}carts/${applied.cart_id}/payments`, { method: 'POST', token, body: card() });
    expect(paid.status, paid.text).toBe(201);
    expect(await uses(code.promotion_id)).toBe(1);
  });

  it('refuses a used-up code at payment (nothing charged, cart open), and on new carts', async () => {
    const code = await promotion({ max_uses: 1 });
    const first = await shopper();
    const second = await shopper();
    const cartA = await cart(first, { promotion_code: code.code });
    const cartB = await cart(second, { promotion_code: code.code });
    expect((await api(`${base}carts/${cartA.cart_id}/payments`, { method: 'POST', token: first, body: card() })).status).toBe(201);
    expect(await uses(code.promotion_id)).toBe(1);
    const before = await orderCount();
    expectCodeError(await api(`${base}carts/${cartB.cart_id}/payments`, { method: 'POST', token: second, body: card() }), 'max_uses_reached');
    expect(await orderCount()).toBe(before);
    expect((await api(`${base}carts/${cartB.cart_id}/payments`, { token: second })).body.total_items).toBe(0);
    expect((await api(`${base}carts/${cartB.cart_id}`, { token: second })).body).toMatchObject({ open: true, payment_status: 'unpaid', promotion_code: code.code });
    expectCodeError(await api(`${base}carts`, { method: 'POST', token: second, body: { items: [{ product_id: 'ebook' }], promotion_code: code.code } }), 'max_uses_reached');
    // Without the code the shopper pays the full price.
    const cleared = await api(`${base}carts/${cartB.cart_id}`, { method: 'POST', token: second, body: { promotion_code: null } });
    expect(cleared.body.total).toBe(20.9);
    expect((await api(`${base}carts/${cartB.cart_id}/payments`, { method: 'POST', token: second, body: card() })).status).toBe(201);
    expect(await uses(code.promotion_id)).toBe(1);
  });

  it('lets exactly max_uses of racing payments through', async () => {
    const code = await promotion({ max_uses: 2 });
    const shoppers = await Promise.all(Array.from({ length: 6 }, () => shopper()));
    const carts = await Promise.all(shoppers.map((token) => cart(token, { promotion_code: code.code })));
    const results = await Promise.all(carts.map((c, index) => api(`${base}carts/${c.cart_id}/payments`, { method: 'POST', token: shoppers[index]!, body: card() })));
    expect(results.filter((result) => result.status === 201)).toHaveLength(2);
    for (const result of results.filter((r) => r.status !== 201)) expectCodeError(result, 'max_uses_reached');
    expect(await uses(code.promotion_id)).toBe(2);
  });

  it('refuses a code deactivated or renamed after it was applied (nothing charged)', async () => {
    const code = await promotion();
    const token = await shopper();
    const applied = await cart(token, { promotion_code: code.code });
    expect((await api(code.url, { method: 'POST', token: secret, body: { active: false } })).status).toBe(200);
    expectCodeError(await api(`${base}carts/${applied.cart_id}/payments`, { method: 'POST', token, body: card() }), 'inactive');
    expect((await api(code.url, { method: 'POST', token: secret, body: { active: true, code: `${code.code}-NEW` } })).status).toBe(200);
    expectCodeError(await api(`${base}carts/${applied.cart_id}/payments`, { method: 'POST', token, body: card() }), 'not_found');
    expect((await api(`${base}carts/${applied.cart_id}/payments`, { token })).body.total_items).toBe(0);
    expect(await uses(code.promotion_id)).toBe(0);
  });

  it('completes a sale the code makes free without a card', async () => {
    const code = await promotion({ discount_percent: 1 });
    const token = await shopper();
    const applied = await cart(token, { promotion_code: code.code });
    expect(applied).toMatchObject({ subtotal: 0, tax: 0, total: 0, discount: 19 });
    const paid = await api(`${base}carts/${applied.cart_id}/payments`, { method: 'POST', token, body: {} });
    expect(paid.status, paid.text).toBe(201);
    expect(await uses(code.promotion_id)).toBe(1);
  });

  it('refuses a code that expired since it was applied (platform clock)', async () => {
    const code = await promotion({ expires: 'today' });
    const token = await shopper();
    const applied = await cart(token, { promotion_code: code.code });
    expect(applied.discount).toBe(1.9);
    await advanceClock(2 * 86_400);
    expectCodeError(await api(`${base}carts/${applied.cart_id}/payments`, { method: 'POST', token, body: card() }), 'expired');
    expectCodeError(await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'ebook' }], promotion_code: code.code } }), 'expired');
    expect(await uses(code.promotion_id)).toBe(0);
  });
});
