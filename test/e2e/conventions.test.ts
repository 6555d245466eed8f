/**
 * End-to-end over HTTP against a real local runtime: the rendering conventions shared by every
 * resource, exercised on products and customers: `expand` (conventions.md 10), `show` / `hide`
 * (11), dates and zones (13), `formatted` in several locales (14), and the account defaults for
 * zone and locale (commerce.md 13.1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let live: string;
let product: Record<string, any>;
let customer: Record<string, any>;

beforeAll(async () => {
  // The suite sends far more than the default 100 requests per second per token.
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  live = runtime.bootstrap.tokens.live_secret;
  const payment = await post('settings/payment', { currencies: ['USD', 'EUR', 'JPY'], exchange_rates: { EUR: 0.9, JPY: 150 } });
  expect(payment.status, payment.text).toBe(200);
  const createdProduct = await post('products', {
    product_id: 'fmt',
    name: 'Formatted',
    type: 'physical',
    prices: [{ currency: 'USD', price: 19.99 }, { currency: 'EUR', price: 18.5 }, { currency: 'JPY', price: 3000 }],
  });
  expect(createdProduct.status, createdProduct.text).toBe(201);
  product = createdProduct.body;
  const createdCustomer = await post('customers', {
    customer_id: 'cust',
    name: 'Ada',
    email: 'ada@example.com',
    billing_address: { name: 'Ada', address_1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DE' },
  });
  expect(createdCustomer.status, createdCustomer.text).toBe(201);
  customer = createdCustomer.body;
});
afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

type Response = Awaited<ReturnType<typeof api>>;

const expectError = (response: Response, status: number, code: string, meta?: Record<string, unknown>) => {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.body.error).toMatchObject({ status, code });
  expect(response.body.error.reference).toBe(response.headers.get('x-request-id'));
  if (meta !== undefined) expect(response.body.error.meta).toEqual(meta);
};

function get(path: string, headers?: Record<string, string>) {
  return api(`${base}${path}`, { token: live, ...(headers ? { headers } : {}) });
}
function post(path: string, body: unknown) {
  return api(`${base}${path}`, { method: 'POST', token: live, body });
}

async function ok(path: string, headers?: Record<string, string>): Promise<any> {
  const response = await get(path, headers);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** Every key path in a JSON value that is named `name`. */
function pathsNamed(value: unknown, name: string, at = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((element, index) => pathsNamed(element, name, `${at}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => [...(key === name ? [`${at}.${key}`] : []), ...pathsNamed(child, name, `${at}.${key}`)]);
}

const PRODUCT_KEYS = [
  'object', 'url', 'product_id', 'name', 'headline', 'description', 'type', 'active', 'hidden', 'deleted', 'prices', 'price',
  'currency', 'tax_code', 'subscription_plan', 'license_service', 'has_license_service', 'images', 'test', 'account_id', 'meta',
  'date_created', 'date_modified',
];

// ---------------------------------------------------------------------------------------------
// Expected display strings, derived from the ISO output (which is already in the zone in effect).

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function wall(iso: string) {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):\d{2}(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  if (!match) throw new Error(`not an API timestamp: ${iso}`);
  const [, y, mo, d, h, mi] = match;
  return { y: y!, mo: mo!, d: d!, h: Number(h), mi: mi! };
}

/** Medium date with short time, as conventions.md 14 shows it, per locale. */
function displayDate(iso: string, locale: 'en-US' | 'de-DE' | 'ja-JP'): string {
  const { y, mo, d, h, mi } = wall(iso);
  if (locale === 'en-US') return `${MONTHS[Number(mo) - 1]} ${Number(d)}, ${y}, ${h % 12 || 12}:${mi} ${h < 12 ? 'AM' : 'PM'}`;
  if (locale === 'de-DE') return `${d}.${mo}.${y}, ${String(h).padStart(2, '0')}:${mi}`;
  return `${y}/${mo}/${d} ${h}:${mi}`;
}

const MONEY = {
  'en-US': { USD: '$19.99', EUR: '€18.50', JPY: '¥3,000' },
  'de-DE': { USD: '19,99 $', EUR: '18,50 €', JPY: '3.000 ¥' },
  'ja-JP': { USD: '$19.99', EUR: '€18.50', JPY: '￥3,000' },
} as const;
const GERMANY = { 'en-US': 'Germany', 'de-DE': 'Deutschland', 'ja-JP': 'ドイツ' } as const;

type Locale = keyof typeof MONEY;

function expectFormattedProduct(body: any, locale: Locale) {
  expect(body.formatted).toEqual({
    price: MONEY[locale].USD,
    date_created: displayDate(body.date_created, locale),
    date_modified: displayDate(body.date_modified, locale),
  });
  expect(body.prices.map((entry: any) => entry.formatted)).toEqual([
    { price: MONEY[locale].USD },
    { price: MONEY[locale].EUR },
    { price: MONEY[locale].JPY },
  ]);
  // Numbers stay JSON numbers.
  expect(body.price).toBe(19.99);
  expect(body.prices.map((entry: any) => entry.price)).toEqual([19.99, 18.5, 3000]);
}

function expectFormattedCustomer(body: any, locale: Locale) {
  expect(body.formatted).toEqual({
    date_created: displayDate(body.date_created, locale),
    date_modified: displayDate(body.date_modified, locale),
  });
  expect(body.billing_address.formatted).toEqual({ country: GERMANY[locale] });
  expect(body.billing_address.country).toBe('DE');
  // A null property has a null twin.
  expect(body.shipping_address.country).toBeNull();
  expect(body.shipping_address.formatted).toEqual({ country: null });
}

// ---------------------------------------------------------------------------------------------

describe('expand (conventions.md 10)', () => {
  it('ignores unknown, malformed, too deep and excess paths (200, nothing changes)', async () => {
    const plain = await ok('products/fmt');
    for (const expand of ['nothing', 'license_service.a.b.c.d.e.f', ',,', 'in_grace_period;', 'a,b,c,d,e,f,g,h,i,j,k,l,m,n', 'data.license_service', 'prices.product', '__proto__']) {
      expect(await ok(`products/fmt?expand=${encodeURIComponent(expand)}`), expand).toEqual(plain);
    }
    expect(await ok('products/fmt?expand=')).toEqual(plain);
    const list = await ok('products?expand=nothing,license_service,more.and.more');
    expect(list.data[0]).toEqual(plain);
  });

  it('leaves an absent relation null: expand=license_service on a product without one', async () => {
    const body = await ok('products/fmt?expand=license_service');
    expect(body.license_service).toBeNull();
    expect(body.has_license_service).toBe(false);
    expect((await ok('products?expand=license_service')).data[0].license_service).toBeNull();
  });

  it('expands a customer sub-collection to its first page, every one of them', async () => {
    const url = `${base}customers/cust`;
    const body = await ok('customers/cust?expand=orders');
    expect(body.orders).toMatchObject({ object: 'list', total_items: 0, data: [] });
    const all = await ok('customers/cust?expand=orders,payments,refunds,subscriptions,invoices,payment_methods');
    // Subscriptions and invoices exist now, so their lists expand like the others.
    for (const name of ['orders', 'payments', 'refunds', 'subscriptions', 'invoices', 'payment_methods']) expect(all[name], name).toMatchObject({ object: 'list', data: [] });
    // Lists inside lists: a sub-collection is not expanded in a list's elements.
    const list = await ok('customers?expand=orders');
    expect(list.data[0].orders).toBe(`${url}/orders`);
  });
});

describe('show and hide (conventions.md 11)', () => {
  it('show=name,price returns those properties and always the url', async () => {
    const body = await ok('products/fmt?show=name,price');
    expect(body).toEqual({ url: product.url, name: 'Formatted', price: 19.99 });
    expect(Object.keys(await ok('products/fmt?show=name'))).toEqual(['url', 'name']);
    // Unknown names and stray characters are ignored.
    expect(await ok('products/fmt?show=name,nope,in_grace_period;')).toEqual({ url: product.url, name: 'Formatted' });
    expect(await ok('products/fmt?show=nope')).toEqual({ url: product.url });
  });

  it('hide=prices removes only prices; hide never removes the top-level url', async () => {
    const body = await ok('products/fmt?hide=prices');
    expect(Object.keys(body).sort()).toEqual(PRODUCT_KEYS.filter((key) => key !== 'prices').sort());
    const noUrl = await ok('products/fmt?hide=url,name');
    expect(noUrl.url).toBe(product.url);
    expect(noUrl).not.toHaveProperty('name');
  });

  it('show=prices.currency trims each array element; a.* is a', async () => {
    expect(await ok('products/fmt?show=prices.currency')).toEqual({
      url: product.url,
      prices: [{ currency: 'USD' }, { currency: 'EUR' }, { currency: 'JPY' }],
    });
    expect(await ok('products/fmt?show=prices.*')).toEqual({ url: product.url, prices: product.prices });
    expect(await ok('customers/cust?show=billing_address.city,name')).toEqual({ url: customer.url, name: 'Ada', billing_address: { city: 'Berlin' } });
  });

  it('applies to each element of a list and keeps every envelope field', async () => {
    const list = await ok('products?show=name&limit=1');
    expect(Object.keys(list).sort()).toEqual([
      'object', 'total_items', 'total_pages', 'current_page', 'next_page_url', 'next_page_offset',
      'previous_page_url', 'previous_page_offset', 'current_page_url', 'data',
    ].sort());
    expect(list.data).toEqual([{ url: product.url, name: 'Formatted' }]);
    // Envelope fields are always returned, even when named; a leading data. is stripped.
    const named = await ok('products?hide=total_items,next_page_url,current_page&limit=1');
    expect(named).toMatchObject({ total_items: list.total_items, current_page: 1 });
    expect(named).toHaveProperty('next_page_url');
    expect((await ok('products?show=data.name&limit=1')).data).toEqual([{ url: product.url, name: 'Formatted' }]);
    expect(Object.keys(await ok('products?show=total_items&limit=1')).sort()).toEqual(Object.keys(list).sort());
    const customers = await ok('customers?hide=billing_address,shipping_address');
    expect(Object.keys(customers).sort()).toEqual(['object', 'next_page_url', 'next_page_after_item', 'previous_page_url', 'previous_page_before_item', 'current_page_url', 'data'].sort());
    expect(customers.data[0]).not.toHaveProperty('billing_address');
    expect(customers.data[0].customer_id).toBe('cust');
  });

  it('keeps formatted twins with their property: show=price keeps formatted.price, hide=price removes it', async () => {
    expect(await ok('products/fmt?formatted=true&show=price')).toEqual({ url: product.url, price: 19.99, formatted: { price: '$19.99' } });
    const hidden = await ok('products/fmt?formatted=true&hide=price');
    expect(hidden).not.toHaveProperty('price');
    expect(hidden.formatted).not.toHaveProperty('price');
    expect(hidden.formatted.date_created).toBe(displayDate(hidden.date_created, 'en-US'));
    // Twins inside nested objects follow their property too.
    expect(await ok('customers/cust?formatted=true&show=billing_address.country')).toEqual({
      url: customer.url,
      billing_address: { country: 'DE', formatted: { country: 'Germany' } },
    });
    const noCountry = await ok('customers/cust?formatted=true&hide=billing_address.country');
    expect(noCountry.billing_address).not.toHaveProperty('country');
    expect(noCountry.billing_address).not.toHaveProperty('formatted.country');
    // `formatted` itself may be named.
    const onlyFormatted = await ok('products/fmt?formatted=true&show=formatted');
    expect(Object.keys(onlyFormatted)).toEqual(['url', 'formatted']);
    expect(onlyFormatted.formatted.price).toBe('$19.99');
  });

  it('answers 400 for non-empty show and hide together, and nothing is written', async () => {
    const conflict = { parameter: 'hide', reason: 'conflict', conflicts_with: 'show' };
    expectError(await get('products/fmt?show=name&hide=price'), 400, 'invalid_input', conflict);
    expectError(await get('products?show=name&hide=price'), 400, 'invalid_input', conflict);
    expectError(await get('customers/cust?show=name&hide=email'), 400, 'invalid_input', conflict);
    const before = await ok('products/fmt');
    expectError(await api(`${base}products/fmt?show=name&hide=price`, { method: 'POST', token: live, body: { name: 'Changed' } }), 400, 'invalid_input', conflict);
    expect(await ok('products/fmt')).toEqual(before);
    expectError(await api(`${base}products?show=name&hide=price`, { method: 'POST', token: live, body: { product_id: 'conflicted', name: 'C', type: 'digital', prices: [{ currency: 'USD', price: 1 }] } }), 400, 'invalid_input', conflict);
    expect((await get('products/conflicted')).status).toBe(404);
  });

  it('is no conflict when one of them is empty (some clients always send hide=)', async () => {
    expect(await ok('products/fmt?show=name&hide=')).toEqual({ url: product.url, name: 'Formatted' });
    expect(await ok('products/fmt?hide=&show=name')).toEqual({ url: product.url, name: 'Formatted' });
    expect(await ok('products/fmt?show=%20&hide=name')).not.toHaveProperty('name');
    expect(await ok('products/fmt?show=,&hide=,')).toEqual(await ok('products/fmt'));
  });
});

describe('formatted output (conventions.md 14)', () => {
  it('has no formatted objects without formatted=true, and numbers are numbers', async () => {
    for (const query of ['', '?formatted=false', '?formatted=0', '?formatted=', '?user_locale=de-DE']) {
      const body = await ok(`products/fmt${query}`);
      expect(pathsNamed(body, 'formatted'), query).toEqual([]);
      expect(typeof body.price).toBe('number');
      const person = await ok(`customers/cust${query}`);
      expect(pathsNamed(person, 'formatted'), query).toEqual([]);
      const list = await ok(`products${query}`);
      expect(pathsNamed(list, 'formatted'), query).toEqual([]);
    }
    expectError(await get('products/fmt?formatted=maybe'), 400, 'invalid_input', { parameter: 'formatted', reason: 'invalid' });
  });

  it('formats money, prices, dates and country names in en-US by default', async () => {
    for (const flag of ['true', '1', 'TRUE']) {
      expectFormattedProduct(await ok(`products/fmt?formatted=${flag}`), 'en-US');
    }
    expectFormattedCustomer(await ok('customers/cust?formatted=true'), 'en-US');
    const list = await ok('products?formatted=true');
    expectFormattedProduct(list.data[0], 'en-US');
    const people = await ok('customers?formatted=true');
    expectFormattedCustomer(people.data[0], 'en-US');
  });

  for (const locale of ['de-DE', 'ja-JP'] as const) {
    it(`formats in ${locale} from user_locale`, async () => {
      expectFormattedProduct(await ok(`products/fmt?formatted=true&user_locale=${locale}`), locale);
      expectFormattedCustomer(await ok(`customers/cust?formatted=true&user_locale=${locale}`), locale);
      expectFormattedProduct((await ok(`products?formatted=true&user_locale=${locale}`)).data[0], locale);
      // The bare language works too.
      expectFormattedProduct(await ok(`products/fmt?formatted=true&user_locale=${locale.slice(0, 2)}`), locale);
    });

    it(`formats in ${locale} from Accept-Language`, async () => {
      const header = { 'Accept-Language': `${locale},${locale.slice(0, 2)};q=0.9,en;q=0.5` };
      expectFormattedProduct(await ok('products/fmt?formatted=true', header), locale);
      expectFormattedCustomer(await ok('customers/cust?formatted=true', header), locale);
      // user_locale wins over the header.
      expectFormattedProduct(await ok('products/fmt?formatted=true&user_locale=en-US', header), 'en-US');
    });
  }

  it('shows JPY without decimals, also for converted prices', async () => {
    const jpy = await ok('products/fmt?formatted=true&currency=JPY');
    expect(jpy).toMatchObject({ price: 3000, currency: 'JPY', formatted: { price: '¥3,000' } });
    const created = await post('products', { product_id: 'fmt-conv', name: 'Converted', type: 'digital', prices: [{ currency: 'USD', price: 10.05 }] });
    expect(created.status).toBe(201);
    const converted = await ok('products/fmt-conv?formatted=true&currency=JPY&user_locale=ja-JP');
    expect(converted).toMatchObject({ price: 1508, currency: 'JPY', formatted: { price: '￥1,508' } });
    const german = await ok('products/fmt-conv?formatted=true&currency=JPY&user_locale=de-DE');
    expect(german.formatted.price).toBe('1.508 ¥');
    const euro = await ok('products/fmt-conv?formatted=true&currency=EUR&user_locale=de-DE');
    expect(euro).toMatchObject({ price: 9.05, currency: 'EUR', formatted: { price: '9,05 €' } });
  });

  it('resolves locales: full Accept-Language values, q weights, unsupported regions, and bad values never fail', async () => {
    expectFormattedProduct(await ok(`products/fmt?formatted=true&user_locale=${encodeURIComponent('ja-JP,ja;q=0.9,en;q=0.8')}`), 'ja-JP');
    expectFormattedProduct(await ok('products/fmt?formatted=true', { 'Accept-Language': 'en;q=0.5, de-DE;q=0.9' }), 'de-DE');
    // An unsupported xx-YY falls back to xx.
    expectFormattedProduct(await ok('products/fmt?formatted=true&user_locale=de-XX'), 'de-DE');
    // Unusable values are skipped, never an error.
    for (const value of ['!!!', 'xx', 'zz-ZZ', '']) {
      expectFormattedProduct(await ok(`products/fmt?formatted=true&user_locale=${encodeURIComponent(value)}`), 'en-US');
      expectFormattedProduct(await ok(`products/fmt?formatted=true&user_locale=${encodeURIComponent(value)}`, { 'Accept-Language': 'ja-JP' }), 'ja-JP');
    }
    expectFormattedProduct(await ok('products/fmt?formatted=true', { 'Accept-Language': ';;;,q=,*' }), 'en-US');
  });
});

describe('dates and zones (conventions.md 13)', () => {
  const ZULU = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

  it('writes timestamps in UTC with Z and second precision by default', async () => {
    const body = await ok('products/fmt');
    expect(body.date_created).toMatch(ZULU);
    expect(body.date_modified).toMatch(ZULU);
    const person = await ok('customers/cust');
    expect(person.date_created).toMatch(ZULU);
    for (const element of (await ok('customers')).data) expect(element.date_created).toMatch(ZULU);
    expect((await ok('products/fmt?timezone=UTC')).date_created).toBe(body.date_created);
    expect((await ok('products/fmt?timezone=utc')).date_created).toBe(body.date_created);
  });

  it('writes ±hh:mm offsets for timezone=America/New_York and Asia/Kolkata, for the same instant', async () => {
    const utc = await ok('products/fmt');
    const instant = Date.parse(utc.date_created);
    const newYork = await ok('products/fmt?timezone=America/New_York&formatted=true');
    expect(newYork.date_created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-0[45]:00$/);
    expect(Date.parse(newYork.date_created)).toBe(instant);
    expect(newYork.formatted.date_created).toBe(displayDate(newYork.date_created, 'en-US'));
    expect((await ok('products/fmt?timezone=america/new_york')).date_created).toBe(newYork.date_created);
    const kolkata = await ok('products/fmt?timezone=Asia/Kolkata&formatted=true&user_locale=de-DE');
    expect(kolkata.date_created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/);
    expect(Date.parse(kolkata.date_created)).toBe(instant);
    expect(kolkata.formatted.date_created).toBe(displayDate(kolkata.date_created, 'de-DE'));
    const customerKolkata = await ok('customers/cust?timezone=Asia/Kolkata');
    expect(customerKolkata.date_created.endsWith('+05:30')).toBe(true);
    for (const element of (await ok('products?timezone=Asia/Kolkata')).data) expect(element.date_created.endsWith('+05:30')).toBe(true);
    // A zone at offset zero (London in winter) is written +00:00, not Z.
    expect((await ok('products/fmt?timezone=Europe/London')).date_created).toMatch(/\+0[01]:00$/);
  });

  it('refuses an unknown zone with 400 naming the timezone parameter, and writes nothing', async () => {
    const invalid = { parameter: 'timezone', reason: 'invalid' };
    for (const zone of ['Mars/Olympus', 'EST-ish', '+05:00', 'America/New York']) {
      expectError(await get(`products/fmt?timezone=${encodeURIComponent(zone)}`), 400, 'invalid_input', invalid);
    }
    expectError(await get('products?timezone=Nowhere/City'), 400, 'invalid_input', invalid);
    expectError(await get('customers?timezone=Nowhere/City'), 400, 'invalid_input', invalid);
    const before = await ok('customers/cust');
    expectError(await api(`${base}customers/cust?timezone=Nowhere/City`, { method: 'POST', token: live, body: { name: 'Changed' } }), 400, 'invalid_input', invalid);
    expect(await ok('customers/cust')).toEqual(before);
  });
});

describe('account defaults for zone and locale (commerce.md 13.1)', () => {
  it('uses the account zone and locale when no parameter or header names one', async () => {
    const before = await ok('products/fmt');
    const updated = await post('settings/technical', { timezone: 'America/New_York', locale: 'de-DE' });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ timezone: 'America/New_York', locale: 'de-DE' });

    const body = await ok('products/fmt?formatted=true');
    expect(body.date_created).toMatch(/-0[45]:00$/);
    expect(Date.parse(body.date_created)).toBe(Date.parse(before.date_created));
    expectFormattedProduct(body, 'de-DE');
    expectFormattedCustomer(await ok('customers/cust?formatted=true'), 'de-DE');
    expect((await ok('customers/cust')).date_created).toMatch(/-0[45]:00$/);
    // The parameter and the header still win over the account defaults.
    expect((await ok('products/fmt?timezone=UTC')).date_created).toBe(before.date_created);
    expectFormattedProduct(await ok('products/fmt?formatted=true&timezone=UTC&user_locale=ja-JP'), 'ja-JP');
    expectFormattedProduct(await ok('products/fmt?formatted=true', { 'Accept-Language': 'en-US' }), 'en-US');
    // Unsupported locales fall back to the account default.
    expectFormattedProduct(await ok('products/fmt?formatted=true&user_locale=xx'), 'de-DE');
    // Without formatted=true nothing is formatted, whatever the default locale.
    expect(pathsNamed(await ok('products/fmt'), 'formatted')).toEqual([]);
  });

  it('formats in each account default locale (ja-JP, de-DE, en-US) with no user_locale and no Accept-Language', async () => {
    for (const locale of ['ja-JP', 'de-DE', 'en-US'] as const) {
      const updated = await post('settings/technical', { locale });
      expect(updated.status, updated.text).toBe(200);
      expectFormattedProduct(await ok('products/fmt?formatted=true'), locale);
      expectFormattedCustomer(await ok('customers/cust?formatted=true'), locale);
      expectFormattedProduct((await ok('products?formatted=true')).data[0], locale);
    }
  });

  it('goes back to UTC and en-US when the defaults are reset', async () => {
    const reset = await post('settings/technical', { timezone: 'UTC', locale: 'en-US' });
    expect(reset.status).toBe(200);
    const body = await ok('products/fmt?formatted=true');
    expect(body.date_created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expectFormattedProduct(body, 'en-US');
  });
});
