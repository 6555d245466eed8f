/**
 * Settings rules (commerce.md section 13, conventions.md section 15): validation of each group
 * with the exact `meta.property` of every failure, who sees the signature key, and the write
 * cycle (version condition, retry after a lost race, one transaction for general + technical)
 * with the table mocked.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  changeSettings,
  maySeeSignatureKey,
  readSettingsState,
  settingsResource,
} from '../../../shared/modules/accounts/settings-actions';
import { signatureKeyPurpose } from '../../../shared/modules/accounts/settings';
import {
  defaultGeneralSettings,
  defaultPaymentSettings,
  defaultTaxSettings,
  defaultTechnicalSettings,
  readPaymentSettings,
  readTaxSettings,
  type PaymentValues,
  type TaxValues,
  type TechnicalValues,
} from '../../../shared/modules/accounts/settings';
import { settingsUpdates, type SettingsInputs } from '../../../shared/modules/accounts/settings-schemas';
import {
  applyGeneralChanges as applyGeneral,
  applyPaymentChanges as applyPayment,
  applyTaxChanges as applyTax,
  applyTechnicalChanges as applyTechnical,
  type GeneralView,
} from '../../../shared/modules/accounts/settings-validation';
import { FULL_ACCESS } from '../../../shared/core/access/permissions';
import { readConfig, siteOf } from '../../../shared/core/config';
import { ApiError } from '../../../shared/http/errors';
import { parseInput } from '../../../shared/rest/validate';
import { localSecrets } from '../../../infra/local/local-secrets';
import { configureStore } from '../../../shared/store/client';

const keyFile = join(mkdtempSync(join(tmpdir(), 'cartwheel-settings-')), 'local.key');
configureStore({ tableName: 'cartwheel', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:1' } });
const secrets = localSecrets(keyFile);
/** What settingsResource draws on: the sealer and the site's apps domain. */
const ports = { secrets, site: siteOf(readConfig({ CARTWHEEL_APPS_DOMAIN: 'apps.example.test' })) };
const ddb = mockClient(DynamoDBDocumentClient);

/** A body as the settings action hands it on: parsed by its group's schema (which throws the first 400 of a value on its own). */
function parse<G extends keyof typeof settingsUpdates>(group: G, body: unknown): SettingsInputs[G] {
  return parseInput(settingsUpdates[group], body) as SettingsInputs[G];
}

// The group rules over raw bodies, as a request meets them: the schema first, then the joins.
const applyTechnicalChanges = (current: TechnicalValues, body: unknown) => applyTechnical(current, parse('technical', body));
const applyGeneralChanges = (current: GeneralView, body: unknown) => applyGeneral(current, parse('general', body));
const applyPaymentChanges = (current: PaymentValues, body: unknown) => applyPayment(current, parse('payment', body));
const applyTaxChanges = (current: TaxValues, body: unknown) => applyTax(current, parse('tax', body));

/** The 400 invalid_input thrown by `run`, as `{property, reason}`. */
function failure(run: () => unknown): { property: unknown; reason: unknown } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe('invalid_input');
    return { property: apiError.meta?.property, reason: apiError.meta?.reason };
  }
  throw new Error('expected a validation failure');
}

const technical = () => defaultTechnicalSettings();
const general = (): GeneralView => ({
  ...defaultGeneralSettings(),
  company_name: 'Acme',
  support_email: 'help@acme.test',
  cors_allowed_origins: [],
  oauth_redirect_uris: [],
});
const payment = () => defaultPaymentSettings();
const tax = () => defaultTaxSettings();

describe('defaults (commerce.md 13.1–13.3)', () => {
  it('has the contract defaults for every group', () => {
    expect(technical()).toEqual({
      timezone: 'UTC', locale: 'en-US', cors_allowed_origins: [], oauth_redirect_uris: [],
      allow_public_limited_test_tokens: false, invoice_payment_url: null,
    });
    expect(defaultGeneralSettings()).toMatchObject({ notification_from_addresses: [], reporting_currency_primary: 'USD', reporting_currency_secondary: null });
    expect(payment()).toMatchObject({
      default_payment_currency: 'USD', currencies: ['USD'], settlement_currency: 'USD', exchange_rates: {},
      allow_save_cards: true, duplicate_payment_timeout: 120, ignore_bad_cvv: false, ignore_bad_avs: false,
      blocked_countries: [], customer_required_fields: ['name', 'email', 'country'],
      customer_optional_fields: ['company_name', 'phone', 'postal_code'], allow_customer_subscription_cancel: true,
      subscription_payment_retry_days: [1, 3, 5],
    });
    expect(payment().card_types.length).toBeGreaterThan(0);
    expect(tax()).toEqual({ rules: [], tax_inclusive_countries: [], gross_discount_countries: [], tax_shipping: true });
  });
});

describe('partial updates (conventions.md 15)', () => {
  it('changes sent properties only and ignores unknown and read-only ones', () => {
    const { values, rotateSignatureKey } = applyTechnicalChanges(technical(), {
      locale: 'de-DE', object: 'x', type: 'general', url: 'nope', app_hosts: ['evil'], signature_key: 'mine', bogus: 1,
    });
    expect(values).toEqual({ ...technical(), locale: 'de-DE' });
    expect(rotateSignatureKey).toBe(false);
  });

  it('accepts a whole object posted back unchanged', () => {
    const current = { ...payment(), currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.92 } };
    expect(applyPaymentChanges(current, { object: 'settings', type: 'payment', url: 'u', ...current })).toEqual(current);
    expect(applyTechnicalChanges(technical(), { ...technical(), app_hosts: ['a'], signature_key: 'k' }).values).toEqual(technical());
  });

  it('sets null on nullable fields and turns empty strings into null', () => {
    const current = { ...technical(), invoice_payment_url: 'https://pay.example.test/{{invoice_id}}?t={{token}}' };
    expect(applyTechnicalChanges(current, { invoice_payment_url: null }).values.invoice_payment_url).toBeNull();
    expect(applyTechnicalChanges(current, { invoice_payment_url: '' }).values.invoice_payment_url).toBeNull();
    const next = applyGeneralChanges(general(), { company_name: '', support_email: '', support_website: null, reporting_currency_primary: null });
    expect(next).toMatchObject({ company_name: null, support_email: null, support_website: null, reporting_currency_primary: null });
  });

  it('refuses null for fields that cannot be null', () => {
    expect(failure(() => applyTechnicalChanges(technical(), { timezone: null })).property).toBe('timezone');
    expect(failure(() => applyTechnicalChanges(technical(), { cors_allowed_origins: null })).property).toBe('cors_allowed_origins');
    expect(failure(() => applyPaymentChanges(payment(), { allow_save_cards: null })).property).toBe('allow_save_cards');
    expect(failure(() => applyTaxChanges(tax(), { rules: null })).property).toBe('rules');
  });

  it('takes plain decimal strings for numbers (conventions.md §4), and nothing else', () => {
    expect(applyPaymentChanges(payment(), { duplicate_payment_timeout: '120' }).duplicate_payment_timeout).toBe(120);
    expect(applyPaymentChanges(payment(), { subscription_payment_retry_days: ['2', 4] }).subscription_payment_retry_days).toEqual([2, 4]);
    for (const value of ['1e3', 'two', '120 ', '', [], {}, true]) {
      expect(failure(() => applyPaymentChanges(payment(), { duplicate_payment_timeout: value }))).toEqual({ property: 'duplicate_payment_timeout', reason: 'invalid' });
    }
    expect(failure(() => applyPaymentChanges(payment(), { duplicate_payment_timeout: '90000' }))).toEqual({ property: 'duplicate_payment_timeout', reason: 'out_of_range' });
  });

  it('is strict about booleans: strings and numbers are refused', () => {
    expect(failure(() => applyPaymentChanges(payment(), { ignore_bad_cvv: 'true' })).property).toBe('ignore_bad_cvv');
    expect(failure(() => applyPaymentChanges(payment(), { allow_save_cards: 'yes' })).property).toBe('allow_save_cards');
    expect(failure(() => applyTaxChanges(tax(), { tax_shipping: 0 })).property).toBe('tax_shipping');
    expect(failure(() => applyTechnicalChanges(technical(), { allow_public_limited_test_tokens: 1 })).property).toBe('allow_public_limited_test_tokens');
    expect(failure(() => applyTechnicalChanges(technical(), { rotate_signature_key: 'yes' })).property).toBe('rotate_signature_key');
  });
});

describe('/settings/technical rules', () => {
  it('canonicalises zones and locales', () => {
    expect(applyTechnicalChanges(technical(), { timezone: 'america/new_york' }).values.timezone).toBe('America/New_York');
    expect(applyTechnicalChanges(technical(), { timezone: 'utc' }).values.timezone).toBe('UTC');
    expect(applyTechnicalChanges(technical(), { locale: 'en-us' }).values.locale).toBe('en-US');
    expect(applyTechnicalChanges(technical(), { locale: 'DE' }).values.locale).toBe('de');
  });

  it.each([
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ timezone: '+05:00' }, 'timezone'],
    [{ timezone: 3 }, 'timezone'],
    [{ locale: 'en_US' }, 'locale'],
    [{ locale: '' }, 'locale'],
    [{ locale: 'not a locale' }, 'locale'],
  ])('refuses %j', (body, property) => {
    expect(failure(() => applyTechnicalChanges(technical(), body))).toEqual({ property, reason: 'invalid' });
  });

  it('accepts exact origins only and normalises nothing', () => {
    const origins = ['https://shop.example.com', 'http://localhost:3000', 'https://shop.example.com:8443', 'http://[::1]:8080'];
    expect(applyTechnicalChanges(technical(), { cors_allowed_origins: origins }).values.cors_allowed_origins).toEqual(origins);
    for (const bad of [
      'https://shop.example.com/', 'https://shop.example.com/path', 'https://Shop.example.com', 'ftp://shop.example.com',
      'shop.example.com', 'https://shop.example.com:443', 'https://*.example.com', 'https://user@shop.example.com', 'null', 7,
    ]) {
      expect(failure(() => applyTechnicalChanges(technical(), { cors_allowed_origins: ['https://ok.example', bad] }))).toEqual({
        property: 'cors_allowed_origins[1]',
        reason: 'invalid',
      });
    }
    expect(failure(() => applyTechnicalChanges(technical(), { cors_allowed_origins: 'https://ok.example' })).property).toBe('cors_allowed_origins');
    expect(failure(() => applyTechnicalChanges(technical(), { cors_allowed_origins: ['https://a.example', 'https://a.example'] }))).toEqual({
      property: 'cors_allowed_origins[1]',
      reason: 'conflict',
    });
  });

  it('wants https redirect URIs except on localhost', () => {
    const uris = ['https://app.example.com/callback?x=1', 'http://localhost:5173/cb', 'http://127.0.0.1/cb', 'http://dev.localhost:8080/cb'];
    expect(applyTechnicalChanges(technical(), { oauth_redirect_uris: uris }).values.oauth_redirect_uris).toEqual(uris);
    expect(failure(() => applyTechnicalChanges(technical(), { oauth_redirect_uris: ['http://app.example.com/cb'] }))).toEqual({
      property: 'oauth_redirect_uris[0]',
      reason: 'not_allowed',
    });
    for (const bad of ['/callback', 'https://app.example.com/cb#frag', 'myapp://cb', 'https://app.example.com/a b', '']) {
      expect(failure(() => applyTechnicalChanges(technical(), { oauth_redirect_uris: ['https://ok.example/cb', bad] })).property).toBe(
        'oauth_redirect_uris[1]',
      );
    }
  });

  it('checks the invoice payment URL template', () => {
    const template = 'https://pay.example.com/invoices/{{invoice_id}}?token={{token}}';
    expect(applyTechnicalChanges(technical(), { invoice_payment_url: template }).values.invoice_payment_url).toBe(template);
    expect(failure(() => applyTechnicalChanges(technical(), { invoice_payment_url: 'pay/{{invoice_id}}' })).property).toBe('invoice_payment_url');
    expect(failure(() => applyTechnicalChanges(technical(), { invoice_payment_url: 42 })).property).toBe('invoice_payment_url');
  });

  it('reads rotate_signature_key as a write-only flag', () => {
    expect(applyTechnicalChanges(technical(), { rotate_signature_key: true }).rotateSignatureKey).toBe(true);
    expect(applyTechnicalChanges(technical(), { rotate_signature_key: false }).rotateSignatureKey).toBe(false);
  });
});

describe('/settings/general rules', () => {
  it('validates contact facts, senders and reporting currencies', () => {
    const next = applyGeneralChanges(general(), {
      company_name: '  Acme Ltd ', support_website: 'https://acme.example', notification_from_addresses: ['a@acme.test', 'b@acme.test'],
      reporting_currency_primary: 'eur', reporting_currency_secondary: 'usd', cors_allowed_origins: ['https://acme.example'],
    });
    expect(next).toMatchObject({
      company_name: 'Acme Ltd', support_website: 'https://acme.example', notification_from_addresses: ['a@acme.test', 'b@acme.test'],
      reporting_currency_primary: 'EUR', reporting_currency_secondary: 'USD', cors_allowed_origins: ['https://acme.example'],
    });
  });

  it.each([
    [{ company_name: 'x'.repeat(201) }, 'company_name', 'too_long'],
    [{ company_name: 5 }, 'company_name', 'invalid'],
    [{ support_email: 'not-an-email' }, 'support_email', 'invalid'],
    [{ support_website: 'acme.example' }, 'support_website', 'invalid'],
    [{ notification_from_addresses: ['a@acme.test', 'nope'] }, 'notification_from_addresses[1]', 'invalid'],
    [{ notification_from_addresses: ['a@acme.test', 'A@acme.test'] }, 'notification_from_addresses[1]', 'conflict'],
    [{ reporting_currency_primary: 'XYZ' }, 'reporting_currency_primary', 'invalid'],
    [{ reporting_currency_secondary: 'dollars' }, 'reporting_currency_secondary', 'invalid'],
    [{ oauth_redirect_uris: ['nope'] }, 'oauth_redirect_uris[0]', 'invalid'],
  ])('refuses %j', (body, property, reason) => {
    expect(failure(() => applyGeneralChanges(general(), body))).toEqual({ property, reason });
  });
});

describe('/settings/payment rules', () => {
  const multi = () => ({ ...payment(), currencies: ['USD', 'EUR', 'GBP'], exchange_rates: { EUR: 0.92, GBP: 0.79 } });

  it('uppercases codes and accepts a consistent set of currencies and rates', () => {
    const next = applyPaymentChanges(payment(), {
      currencies: ['usd', 'eur'], exchange_rates: { eur: 0.92 }, settlement_currency: 'eur', blocked_countries: ['ru', 'KP'],
    });
    expect(next).toMatchObject({ currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.92 }, settlement_currency: 'EUR', blocked_countries: ['RU', 'KP'] });
  });

  it('drops the rate of a currency removed from currencies, unless rates are sent too', () => {
    expect(applyPaymentChanges(multi(), { currencies: ['USD', 'GBP'] }).exchange_rates).toEqual({ GBP: 0.79 });
    expect(failure(() => applyPaymentChanges(multi(), { currencies: ['USD', 'GBP'], exchange_rates: { EUR: 0.92, GBP: 0.79 } }))).toEqual({
      property: 'exchange_rates.EUR',
      reason: 'not_allowed',
    });
  });

  it('lets the default currency change together with its rates', () => {
    const next = applyPaymentChanges(multi(), { default_payment_currency: 'EUR', exchange_rates: { USD: 1.087, GBP: 0.86 }, settlement_currency: 'EUR' });
    expect(next.default_payment_currency).toBe('EUR');
  });

  it.each([
    [{ currencies: [] }, 'currencies', 'required'],
    [{ currencies: ['USD', 'usd'] }, 'currencies[1]', 'conflict'],
    [{ currencies: ['USD', 'XYZ'] }, 'currencies[1]', 'invalid'],
    [{ currencies: 'USD' }, 'currencies', 'invalid'],
    [{ default_payment_currency: 'CHF' }, 'default_payment_currency', 'not_allowed'],
    [{ currencies: ['EUR', 'GBP'] }, 'currencies', 'not_allowed'],
    [{ exchange_rates: { EUR: '9.2e-1', GBP: 0.79 } }, 'exchange_rates.EUR', 'invalid'],
    [{ exchange_rates: { EUR: 'lots', GBP: 0.79 } }, 'exchange_rates.EUR', 'invalid'],
    [{ exchange_rates: { EUR: '0', GBP: 0.79 } }, 'exchange_rates.EUR', 'out_of_range'],
    [{ exchange_rates: { EUR: 0, GBP: 0.79 } }, 'exchange_rates.EUR', 'out_of_range'],
    [{ exchange_rates: { EUR: -1, GBP: 0.79 } }, 'exchange_rates.EUR', 'out_of_range'],
    [{ exchange_rates: { EUR: 0.92 } }, 'exchange_rates.GBP', 'required'],
    [{ exchange_rates: { EUR: 0.92, GBP: 0.79, CHF: 0.88 } }, 'exchange_rates.CHF', 'not_allowed'],
    [{ exchange_rates: { EUR: 0.92, GBP: 0.79, USD: 2 } }, 'exchange_rates.USD', 'invalid'],
    [{ exchange_rates: { EUR: 0.92, eur: 0.93, GBP: 0.79 } }, 'exchange_rates.eur', 'conflict'],
    [{ exchange_rates: { EURO: 1 } }, 'exchange_rates.EURO', 'invalid'],
    [{ exchange_rates: [0.92] }, 'exchange_rates', 'invalid'],
    [{ currencies: ['USD', 'EUR', 'GBP', 'JPY'] }, 'exchange_rates.JPY', 'required'],
    [{ settlement_currency: 'CHF' }, 'settlement_currency', 'not_allowed'],
    [{ settlement_currency: 7 }, 'settlement_currency', 'invalid'],
    [{ duplicate_payment_timeout: 86401 }, 'duplicate_payment_timeout', 'out_of_range'],
    [{ duplicate_payment_timeout: -1 }, 'duplicate_payment_timeout', 'out_of_range'],
    [{ duplicate_payment_timeout: 1.5 }, 'duplicate_payment_timeout', 'invalid'],
    [{ blocked_countries: ['US', 'XX'] }, 'blocked_countries[1]', 'invalid'],
    [{ blocked_countries: ['US', 'us'] }, 'blocked_countries[1]', 'conflict'],
    [{ customer_required_fields: ['name', 'credentials'] }, 'customer_required_fields[1]', 'invalid'],
    [{ customer_optional_fields: ['phone', 'Phone'] }, 'customer_optional_fields[1]', 'invalid'],
    [{ card_types: ['Visa', ''] }, 'card_types[1]', 'invalid'],
    [{ subscription_payment_retry_days: [1, 2, 3, 4, 5, 6] }, 'subscription_payment_retry_days', 'too_long'],
    [{ subscription_payment_retry_days: [3, 2] }, 'subscription_payment_retry_days[1]', 'invalid'],
    [{ subscription_payment_retry_days: [0] }, 'subscription_payment_retry_days[0]', 'out_of_range'],
    [{ subscription_payment_retry_days: [1, 31] }, 'subscription_payment_retry_days[1]', 'out_of_range'],
    [{ subscription_payment_retry_days: [1, 2.5] }, 'subscription_payment_retry_days[1]', 'invalid'],
  ])('refuses %j', (body, property, reason) => {
    expect(failure(() => applyPaymentChanges(multi(), body))).toEqual({ property, reason });
  });

  it('takes rates as plain decimal strings', () => {
    expect(applyPaymentChanges(multi(), { exchange_rates: { EUR: '0.92', gbp: '0.79' } }).exchange_rates).toEqual({ EUR: 0.92, GBP: 0.79 });
  });

  it('accepts the edges of the ranges', () => {
    expect(applyPaymentChanges(payment(), { duplicate_payment_timeout: 0 }).duplicate_payment_timeout).toBe(0);
    expect(applyPaymentChanges(payment(), { duplicate_payment_timeout: 86400 }).duplicate_payment_timeout).toBe(86400);
    expect(applyPaymentChanges(payment(), { subscription_payment_retry_days: [] }).subscription_payment_retry_days).toEqual([]);
    expect(applyPaymentChanges(payment(), { subscription_payment_retry_days: [1, 2, 10, 20, 30] }).subscription_payment_retry_days).toEqual([1, 2, 10, 20, 30]);
    expect(applyPaymentChanges(payment(), { customer_optional_fields: ['credentials'] }).customer_optional_fields).toEqual(['credentials']);
  });
});

describe('/settings/tax rules', () => {
  it('accepts rules and uppercases countries', () => {
    const next = applyTaxChanges(tax(), {
      rules: [{ country: 'de', rate: 0.19 }, { country: 'US', state_prov: 'CA', rate: 0.0725 }, { country: 'US', state_prov: '', rate: 0 }],
      tax_inclusive_countries: ['de'], gross_discount_countries: ['DE'], tax_shipping: false,
    });
    expect(next).toEqual({
      rules: [{ country: 'DE', state_prov: null, rate: 0.19 }, { country: 'US', state_prov: 'CA', rate: 0.0725 }, { country: 'US', state_prov: null, rate: 0 }],
      tax_inclusive_countries: ['DE'], gross_discount_countries: ['DE'], tax_shipping: false,
    });
    expect(applyTaxChanges(tax(), { rules: [{ country: 'DE', rate: '0.19' }] }).rules).toEqual([{ country: 'DE', state_prov: null, rate: 0.19 }]);
  });

  it.each([
    [{ rules: [{ country: 'DE', rate: 0.19 }, { country: 'FR', rate: 1 }] }, 'rules[1].rate', 'out_of_range'],
    [{ rules: [{ country: 'DE', rate: -0.1 }] }, 'rules[0].rate', 'out_of_range'],
    [{ rules: [{ country: 'DE', rate: '1.9e-1' }] }, 'rules[0].rate', 'invalid'],
    [{ rules: [{ country: 'DE', rate: 'high' }] }, 'rules[0].rate', 'invalid'],
    [{ rules: [{ country: 'DE', rate: '1' }] }, 'rules[0].rate', 'out_of_range'],
    [{ rules: [{ country: 'DE' }] }, 'rules[0].rate', 'required'],
    [{ rules: [{ rate: 0.1 }] }, 'rules[0].country', 'required'],
    [{ rules: [{ country: 'ZZ', rate: 0.1 }] }, 'rules[0].country', 'invalid'],
    [{ rules: [{ country: 'US', state_prov: 5, rate: 0.1 }] }, 'rules[0].state_prov', 'invalid'],
    [{ rules: ['DE'] }, 'rules[0]', 'invalid'],
    [{ rules: [{ country: 'DE', rate: 0.19 }, { country: 'de', state_prov: null, rate: 0.07 }] }, 'rules[1]', 'conflict'],
    [{ tax_inclusive_countries: ['DE', 'EU'] }, 'tax_inclusive_countries[1]', 'invalid'],
    [{ gross_discount_countries: 'DE' }, 'gross_discount_countries', 'invalid'],
    [{ tax_shipping: 'false' }, 'tax_shipping', 'invalid'],
  ])('refuses %j', (body, property, reason) => {
    expect(failure(() => applyTaxChanges(tax(), body))).toEqual({ property, reason });
  });
});

describe('signature_key visibility', () => {
  const principal = (kind: 'secret' | 'limited' | 'trusted', permissions = [] as typeof FULL_ACCESS, isOwner = false) => ({ kind, permissions, isOwner });
  it('shows the key to trusted tokens, owners and tokens allowed settings:update', () => {
    expect(maySeeSignatureKey(principal('trusted'))).toBe(true);
    expect(maySeeSignatureKey(principal('secret', [], true))).toBe(true);
    expect(maySeeSignatureKey(principal('secret', FULL_ACCESS))).toBe(true);
    expect(maySeeSignatureKey(principal('secret', [{ resource: 'settings', methods: ['update'], allow: true }]))).toBe(true);
  });
  it('hides it from others', () => {
    expect(maySeeSignatureKey(principal('secret', [{ resource: 'settings', methods: ['read'], allow: true }]))).toBe(false);
    expect(maySeeSignatureKey(principal('secret', [...FULL_ACCESS, { resource: 'settings', methods: ['update'], allow: false }]))).toBe(false);
    expect(maySeeSignatureKey(principal('limited', FULL_ACCESS))).toBe(false);
  });
});

describe('the write cycle (table mocked)', () => {
  const account = 'ACCT1';
  let sealed: string;
  const technicalItem = () => ({ pk: `account#${account}`, sk: 'settings#technical', ...defaultTechnicalSettings(), signature_key_sealed: sealed });
  const itemOf = (key: { sk: string }) => (key.sk === 'settings#technical' ? technicalItem() : key.sk === 'settings#general' ? { pk: `account#${account}`, sk: 'settings#general', company_name: 'Acme', support_email: 'a@acme.test', support_website: null } : undefined);

  beforeEach(async () => {
    sealed = await secrets.seal('K'.repeat(32), signatureKeyPurpose(account));
    ddb.reset();
    ddb.on(GetCommand).callsFake((input: { Key: { sk: string } }) => ({ Item: itemOf(input.Key) }));
    ddb.on(PutCommand).resolves({});
    ddb.on(TransactWriteCommand).resolves({});
  });

  it('applies defaults for groups never saved, and the readers do the same', async () => {
    const state = await readSettingsState(account, 'payment');
    expect(await settingsResource(state, 'https://api.example.test/api/v1/', false, ports)).toEqual({
      object: 'settings', type: 'payment', url: 'https://api.example.test/api/v1/settings/payment', ...defaultPaymentSettings(),
    });
    expect(await readPaymentSettings(account)).toEqual(defaultPaymentSettings());
    expect(await readTaxSettings(account)).toEqual(defaultTaxSettings());
  });

  it('creates a never-saved group with a condition that it still does not exist', async () => {
    await changeSettings(account, 'tax', parse('tax', { tax_shipping: false }), secrets);
    const put = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toMatchObject({ pk: `account#${account}`, sk: 'settings#tax', tax_shipping: false, rules: [], version: 1 });
  });

  it('conditions a change on the version it read and keeps other attributes', async () => {
    ddb.on(GetCommand).callsFake((input: { Key: { sk: string } }) => ({ Item: input.Key.sk === 'settings#technical' ? { ...technicalItem(), version: 4, other: 'kept' } : undefined }));
    await changeSettings(account, 'technical', parse('technical', { locale: 'fr-FR' }), secrets);
    const put = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put.ConditionExpression).toBe('version = :version');
    expect(put.ExpressionAttributeValues).toEqual({ ':version': 4 });
    expect(put.Item).toMatchObject({ locale: 'fr-FR', version: 5, other: 'kept', signature_key_sealed: sealed });
  });

  it('writes nothing when nothing changes', async () => {
    await changeSettings(account, 'technical', parse('technical', { ...defaultTechnicalSettings(), app_hosts: [] }), secrets);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('writes nothing when validation fails', async () => {
    // A value wrong on its own is refused by the schema, before the change is planned.
    expect(() => parse('technical', { locale: 'de-DE', timezone: 'Nowhere/Land' })).toThrowError(expect.objectContaining({ status: 400, meta: expect.objectContaining({ property: 'timezone' }) }));
    // A change that breaks a rule joining fields is refused on the merged values.
    await expect(changeSettings(account, 'payment', parse('payment', { duplicate_payment_timeout: 60, default_payment_currency: 'EUR' }), secrets)).rejects.toMatchObject({
      status: 400,
      meta: { property: 'default_payment_currency', reason: 'not_allowed' },
    });
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('re-applies the change to fresh values after losing a race', async () => {
    let reads = 0;
    ddb.on(GetCommand).callsFake(() => {
      reads++;
      // The second read sees what the other writer saved in between.
      return { Item: reads === 1 ? technicalItem() : { ...technicalItem(), timezone: 'Europe/Berlin', version: 1 } };
    });
    ddb.on(PutCommand).rejectsOnce(new ConditionalCheckFailedException({ message: 'no', $metadata: {} })).resolves({});
    const state = await changeSettings(account, 'technical', parse('technical', { locale: 'de-DE' }), secrets);
    expect(state.values).toMatchObject({ locale: 'de-DE', timezone: 'Europe/Berlin' });
    const puts = ddb.commandCalls(PutCommand);
    expect(puts).toHaveLength(2);
    expect(puts[1]!.args[0].input.Item).toMatchObject({ locale: 'de-DE', timezone: 'Europe/Berlin', version: 2 });
  });

  it('gives up with 422 request_failure when every attempt loses', async () => {
    ddb.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    await expect(changeSettings(account, 'technical', parse('technical', { locale: 'de-DE' }), secrets)).rejects.toMatchObject({ status: 422, code: 'request_failure' });
  });

  it('writes general and the shared technical lists in one transaction', async () => {
    const state = await changeSettings(account, 'general', parse('general', { company_name: 'Acme 2', cors_allowed_origins: ['https://shop.example'] }), secrets);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    const [transaction] = ddb.commandCalls(TransactWriteCommand);
    const puts = transaction!.args[0].input.TransactItems!.map((item) => item.Put!);
    expect(puts.map((put) => put.Item!.sk)).toEqual(['settings#general', 'settings#technical']);
    expect(puts[1]!.Item).toMatchObject({ cors_allowed_origins: ['https://shop.example'], timezone: 'UTC', signature_key_sealed: sealed });
    expect(puts[1]!.Item).not.toHaveProperty('company_name');
    expect(await settingsResource(state, 'https://api.example.test/api/v1/', false, ports)).toEqual({
      object: 'settings', type: 'general', url: 'https://api.example.test/api/v1/settings/general',
      company_name: 'Acme 2', support_email: 'a@acme.test', support_website: null, notification_from_addresses: [],
      reporting_currency_primary: 'USD', reporting_currency_secondary: null,
      cors_allowed_origins: ['https://shop.example'], oauth_redirect_uris: [], app_hosts: [`${account}.apps.example.test`],
    });
  });

  it('shows, hides and rotates the signature key', async () => {
    const state = await readSettingsState(account, 'technical');
    expect((await settingsResource(state, 'https://x/api/v1/', true, ports)).signature_key).toBe('K'.repeat(32));
    expect(await settingsResource(state, 'https://x/api/v1/', false, ports)).not.toHaveProperty('signature_key');
    const rotated = await changeSettings(account, 'technical', parse('technical', { rotate_signature_key: true }), secrets);
    const shown = (await settingsResource(rotated, 'https://x/api/v1/', true, ports)).signature_key as string;
    expect(shown).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(shown).not.toBe('K'.repeat(32));
    const put = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(await secrets.open(put.Item!.signature_key_sealed as string, signatureKeyPurpose(account))).toBe(shown);
  });
});
