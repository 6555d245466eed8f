/**
 * End-to-end over HTTP against a real local runtime: `/settings/{group}` (commerce.md section
 * 13) with defaults, partial updates, post-back of whole objects, validation that saves
 * nothing, signature key visibility and rotation, permissions, and CORS driven by the settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let live: string;
let test: string;
let accountId: string;
let port: string;

beforeAll(async () => {
  runtime = await startRuntime();
  base = runtime.bootstrap.api_url;
  live = runtime.bootstrap.tokens.live_secret;
  test = runtime.bootstrap.tokens.test_secret;
  accountId = runtime.bootstrap.account_id;
  port = new URL(runtime.url).port;
});
afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

const expectError = (response: { status: number; body: any; headers: Headers }, status: number, code: string, property?: string) => {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.body.error).toMatchObject({ status, code });
  if (property !== undefined) expect(response.body.error.meta.property).toBe(property);
};

const get = (group: string, token = live) => api(`${base}settings/${group}`, { token });
const post = (group: string, body: unknown, token = live) => api(`${base}settings/${group}`, { method: 'POST', token, body });

async function secretToken(permissions: unknown[]): Promise<string> {
  const created = await api(`${base}auths/secret`, { method: 'POST', token: live, body: { permissions } });
  expect(created.status).toBe(201);
  return created.body.token as string;
}

describe('GET /settings/{group} with defaults', () => {
  it('answers technical with its fields, app host and signature key', async () => {
    const response = await get('technical');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(Object.keys(response.body)).toEqual([
      'object', 'type', 'url', 'timezone', 'locale', 'cors_allowed_origins', 'oauth_redirect_uris', 'app_hosts',
      'allow_public_limited_test_tokens', 'signature_key', 'invoice_payment_url',
    ]);
    expect(response.body).toMatchObject({
      object: 'settings', type: 'technical', url: `${base}settings/technical`, timezone: 'UTC', locale: 'en-US',
      cors_allowed_origins: [], oauth_redirect_uris: [], app_hosts: [`${accountId}.apps.localhost:${port}`],
      allow_public_limited_test_tokens: false, invoice_payment_url: null,
    });
    expect(response.body.signature_key).toMatch(/^[0-9A-Za-z]{32}$/);
  });

  it('answers general with the facts written at account creation', async () => {
    const response = await get('general');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'settings', type: 'general', url: `${base}settings/general`,
      company_name: 'Local Merchant', support_email: 'owner@example.test', support_website: null,
      notification_from_addresses: [], reporting_currency_primary: 'USD', reporting_currency_secondary: null,
      cors_allowed_origins: [], oauth_redirect_uris: [], app_hosts: [`${accountId}.apps.localhost:${port}`],
    });
  });

  it('answers payment and tax with their defaults before anything was saved', async () => {
    const payment = await get('payment');
    expect(payment.status).toBe(200);
    expect(payment.body).toMatchObject({
      object: 'settings', type: 'payment', url: `${base}settings/payment`,
      default_payment_currency: 'USD', currencies: ['USD'], settlement_currency: 'USD', exchange_rates: {},
      allow_save_cards: true, duplicate_payment_timeout: 120, ignore_bad_cvv: false, ignore_bad_avs: false,
      blocked_countries: [], customer_required_fields: ['name', 'email', 'country'],
      customer_optional_fields: ['company_name', 'phone', 'postal_code'], allow_customer_subscription_cancel: true,
      subscription_payment_retry_days: [1, 3, 5],
    });
    expect(payment.body.card_types).toContain('Visa');
    const tax = await get('tax');
    expect(tax.body).toEqual({
      object: 'settings', type: 'tax', url: `${base}settings/tax`,
      rules: [], tax_inclusive_countries: [], gross_discount_countries: [], tax_shipping: true,
    });
  });

  it('is shared by both modes', async () => {
    expect((await get('general', test)).body).toEqual((await get('general', live)).body);
  });

  it('answers 404 resource_not_found for an unknown group', async () => {
    expectError(await get('shipping'), 404, 'resource_not_found');
    expectError(await post('shipping', { a: 1 }), 404, 'resource_not_found');
  });
});

describe('POST /settings/{group}: partial updates', () => {
  it('changes sent properties only, uppercases codes and keeps the rest', async () => {
    const response = await post('payment', { currencies: ['USD', 'eur'], exchange_rates: { eur: 0.92 }, duplicate_payment_timeout: 60, unknown: 'x' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.92 }, duplicate_payment_timeout: 60, allow_save_cards: true });
    expect(response.body).not.toHaveProperty('unknown');
    const again = await get('payment');
    expect(again.body).toEqual(response.body);
    const more = await post('payment', { settlement_currency: 'EUR' });
    expect(more.body).toMatchObject({ settlement_currency: 'EUR', currencies: ['USD', 'EUR'], duplicate_payment_timeout: 60 });
  });

  it('takes plain decimal strings for numbers, as forms post them (conventions.md §4)', async () => {
    const response = await post('payment', { duplicate_payment_timeout: '90', exchange_rates: { EUR: '0.91' }, subscription_payment_retry_days: ['1', '4'] });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ duplicate_payment_timeout: 90, exchange_rates: { EUR: 0.91 }, subscription_payment_retry_days: [1, 4] });
    const tax = await post('tax', { rules: [{ country: 'NL', rate: '0.21' }] });
    expect(tax.body.rules).toEqual([{ country: 'NL', state_prov: null, rate: 0.21 }]);
    await post('payment', { duplicate_payment_timeout: 60, exchange_rates: { EUR: 0.92 }, subscription_payment_retry_days: [1, 3, 5] });
    await post('tax', { rules: [] });
  });

  it('removes the rate of a currency taken out of currencies', async () => {
    const three = await post('payment', { currencies: ['USD', 'EUR', 'GBP'], exchange_rates: { EUR: 0.92, GBP: 0.79 } });
    expect(three.body.exchange_rates).toEqual({ EUR: 0.92, GBP: 0.79 });
    const two = await post('payment', { currencies: ['USD', 'EUR'] });
    expect(two.status).toBe(200);
    expect(two.body).toMatchObject({ currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.92 } });
    expect(two.body.exchange_rates).not.toHaveProperty('GBP');
  });

  it('accepts every group posted back unchanged and answers the same values', async () => {
    await post('tax', { rules: [{ country: 'de', rate: 0.19 }, { country: 'US', state_prov: 'CA', rate: 0.0725 }], tax_inclusive_countries: ['DE'] });
    for (const group of ['technical', 'general', 'payment', 'tax']) {
      const before = await get(group);
      const after = await post(group, before.body);
      expect(after.status, group).toBe(200);
      expect(after.body, group).toEqual(before.body);
      expect((await get(group)).body, group).toEqual(before.body);
    }
  });

  it('canonicalises the zone and locale, sets null, and turns empty strings into null', async () => {
    const response = await post('technical', {
      timezone: 'europe/berlin', locale: 'de-de', invoice_payment_url: 'https://pay.example.test/{{invoice_id}}?t={{token}}',
    });
    expect(response.body).toMatchObject({ timezone: 'Europe/Berlin', locale: 'de-DE', invoice_payment_url: 'https://pay.example.test/{{invoice_id}}?t={{token}}' });
    expect((await post('technical', { invoice_payment_url: '' })).body.invoice_payment_url).toBeNull();
    expect((await post('general', { support_website: 'https://help.example.test', reporting_currency_secondary: 'eur' })).body).toMatchObject({
      support_website: 'https://help.example.test', reporting_currency_secondary: 'EUR',
    });
    expect((await post('general', { support_website: null, reporting_currency_secondary: '' })).body).toMatchObject({
      support_website: null, reporting_currency_secondary: null,
    });
    await post('technical', { timezone: 'UTC', locale: 'en-US' });
  });

  it('shows the same CORS and redirect lists under technical and general', async () => {
    const response = await post('technical', { oauth_redirect_uris: ['https://admin.example.test/callback', 'http://localhost:5173/cb'] });
    expect(response.status).toBe(200);
    expect((await get('general')).body.oauth_redirect_uris).toEqual(['https://admin.example.test/callback', 'http://localhost:5173/cb']);
    await post('general', { oauth_redirect_uris: [] });
    expect((await get('technical')).body.oauth_redirect_uris).toEqual([]);
  });
});

describe('POST /settings/{group}: validation saves nothing', () => {
  it.each([
    ['technical', { locale: 'fr-FR', timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    ['technical', { locale: 'en_US' }, 'locale'],
    ['technical', { cors_allowed_origins: ['https://ok.example.test', 'https://shop.example.test/'] }, 'cors_allowed_origins[1]'],
    ['technical', { oauth_redirect_uris: ['http://admin.example.test/cb'] }, 'oauth_redirect_uris[0]'],
    ['technical', { allow_public_limited_test_tokens: 'true' }, 'allow_public_limited_test_tokens'],
    ['general', { company_name: 'New name', support_email: 'nope' }, 'support_email'],
    ['payment', { currencies: ['USD', 'EUR', 'GBP'] }, 'exchange_rates.GBP'],
    ['payment', { exchange_rates: { EUR: '9.2e-1' } }, 'exchange_rates.EUR'],
    ['payment', { duplicate_payment_timeout: 'two minutes' }, 'duplicate_payment_timeout'],
    ['payment', { allow_save_cards: 'yes' }, 'allow_save_cards'],
    ['tax', { tax_shipping: 1 }, 'tax_shipping'],
    ['payment', { default_payment_currency: 'CHF' }, 'default_payment_currency'],
    ['payment', { duplicate_payment_timeout: 90000 }, 'duplicate_payment_timeout'],
    ['payment', { subscription_payment_retry_days: [2, 2] }, 'subscription_payment_retry_days[1]'],
    ['payment', { customer_required_fields: ['email', 'shoe_size'] }, 'customer_required_fields[1]'],
    ['tax', { tax_shipping: false, rules: [{ country: 'DE', rate: 0.19 }, { country: 'FR', rate: 1.2 }] }, 'rules[1].rate'],
    ['tax', { tax_inclusive_countries: ['DE', 'XX'] }, 'tax_inclusive_countries[1]'],
  ])('%s %j → 400 invalid_input on %s', async (group, body, property) => {
    const before = await get(group);
    expectError(await post(group, body), 400, 'invalid_input', property);
    expect((await get(group)).body).toEqual(before.body);
  });
});

describe('signature_key', () => {
  it('is left out for a token allowed only settings:read, which also cannot change settings', async () => {
    const reader = await secretToken([{ resource: 'settings', methods: ['read'] }]);
    const response = await get('technical', reader);
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('signature_key');
    expect(response.body.timezone).toBe('UTC');
    expectError(await post('technical', { locale: 'fr-FR' }, reader), 403, 'insufficient_permissions');
    expectError(await post('technical', { rotate_signature_key: true }, reader), 403, 'insufficient_permissions');
  });

  it('is shown to a token allowed settings:update', async () => {
    const writer = await secretToken([{ resource: 'settings', methods: ['read', 'update'] }]);
    expect((await get('technical', writer)).body.signature_key).toBe((await get('technical')).body.signature_key);
  });

  it('ignores a posted signature_key and rotates with rotate_signature_key: true', async () => {
    const before = (await get('technical')).body.signature_key as string;
    expect((await post('technical', { signature_key: 'x'.repeat(32) })).body.signature_key).toBe(before);
    expect((await post('technical', { rotate_signature_key: false })).body.signature_key).toBe(before);
    const rotated = await post('technical', { rotate_signature_key: true });
    expect(rotated.status).toBe(200);
    expect(rotated.body.signature_key).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(rotated.body.signature_key).not.toBe(before);
    expect(rotated.body).not.toHaveProperty('rotate_signature_key');
    expect((await get('technical')).body.signature_key).toBe(rotated.body.signature_key);
  });
});

describe('permissions', () => {
  it('answers 403 insufficient_permissions without a settings permission', async () => {
    const other = await secretToken([{ resource: 'orders', methods: ['read'] }]);
    expectError(await get('technical', other), 403, 'insufficient_permissions');
    expectError(await get('payment', other), 403, 'insufficient_permissions');
    expectError(await post('tax', { tax_shipping: false }, other), 403, 'insufficient_permissions');
  });

  it('answers 401 without a token', async () => {
    expectError(await api(`${base}settings/technical`), 401, 'invalid_token');
  });
});

describe('CORS from the settings', () => {
  it('allows an origin set through /settings/general at once and refuses others', async () => {
    const shop = 'https://shop.example.test';
    expectError(await api(`${base}auths/me`, { token: live, headers: { Origin: shop } }), 403, 'invalid_origin');
    const saved = await post('general', { cors_allowed_origins: [shop] });
    expect(saved.status).toBe(200);
    expect(saved.body.cors_allowed_origins).toEqual([shop]);
    expect((await get('technical')).body.cors_allowed_origins).toEqual([shop]);

    const allowed = await api(`${base}settings/general`, { token: live, headers: { Origin: shop } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(shop);
    const refused = await api(`${base}settings/general`, { token: live, headers: { Origin: 'https://evil.example.test' } });
    expectError(refused, 403, 'invalid_origin');
    // Exact strings: another port of the same host is another origin.
    expectError(await api(`${base}auths/me`, { token: live, headers: { Origin: `${shop}:8443` } }), 403, 'invalid_origin');

    await post('technical', { cors_allowed_origins: [] });
    expectError(await api(`${base}auths/me`, { token: live, headers: { Origin: shop } }), 403, 'invalid_origin');
  });
});
