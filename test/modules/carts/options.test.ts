/** The cart `options` (commerce.md §3.4) and the currency a new cart gets (§3.3). */
import { describe, expect, it } from 'vitest';
import { defaultCartCurrency } from '../../../shared/modules/carts/carts';
import { nationalCurrency } from '../../../shared/modules/carts/national-currencies';
import { allCountryCodes, cartOptions, currencyName, customerFields } from '../../../shared/modules/carts/options';
import type { CartRecord } from '../../../shared/modules/carts/types';
import { isCurrencyCode } from '../../../shared/rest/money';
import { paymentSettings } from '../pricing/fixtures';

describe('customer fields', () => {
  it('maps the settings tokens to field paths, with email always required', () => {
    expect(customerFields(paymentSettings())).toEqual({
      required: ['name', 'email', 'billing_address.country'],
      optional: ['company_name', 'phone', 'billing_address.postal_code'],
    });
    expect(customerFields({ customer_required_fields: [], customer_optional_fields: ['email', 'credentials'] })).toEqual({
      required: ['email'],
      optional: ['username'],
    });
  });

  it('expands full_address, keeps address_2 optional, and never lists a required path as optional', () => {
    expect(customerFields({ customer_required_fields: ['full_address'], customer_optional_fields: ['postal_code', 'country', 'tax_number'] })).toEqual({
      required: ['billing_address.address_1', 'billing_address.city', 'billing_address.state_prov', 'billing_address.postal_code', 'billing_address.country', 'email'],
      optional: ['tax_number', 'billing_address.address_2'],
    });
    expect(customerFields({ customer_required_fields: ['country'], customer_optional_fields: ['full_address'] }).optional).toEqual([
      'billing_address.address_1',
      'billing_address.city',
      'billing_address.state_prov',
      'billing_address.postal_code',
      'billing_address.address_2',
    ]);
  });
});

describe('countries and currencies', () => {
  it('lists every code addresses accept (ISO 3166-1 alpha-2, as isCountryCode knows them) once, A–Z', () => {
    const codes = allCountryCodes();
    expect(codes.length).toBeGreaterThanOrEqual(245);
    expect(codes.length).toBeLessThanOrEqual(260);
    expect(codes).toContain('US');
    expect(codes).toContain('XK');
    expect(codes).not.toContain('ZZ');
    expect(codes).not.toContain('EU');
    expect(codes).not.toContain('UK');
    expect([...codes].sort()).toEqual(codes);
    expect(allCountryCodes()).toBe(codes);
  });

  it('knows a national currency for (nearly) every country, all real ISO 4217 codes', () => {
    const missing = allCountryCodes().filter((code) => nationalCurrency(code) === undefined);
    expect(missing).toEqual(['AQ']);
    for (const code of allCountryCodes()) {
      const currency = nationalCurrency(code);
      if (currency && currency !== 'XCG' && currency !== 'ZWG') expect(isCurrencyCode(currency), `${code} → ${currency}`).toBe(true);
    }
    expect(nationalCurrency('de')).toBe('EUR');
    expect(nationalCurrency('JP')).toBe('JPY');
    expect(nationalCurrency(null)).toBeUndefined();
  });

  it('gives a new cart the national currency of its viewer country when enabled, else the default', () => {
    const payment = paymentSettings();
    expect(defaultCartCurrency('FR', payment)).toBe('EUR');
    expect(defaultCartCurrency('BH', payment)).toBe('BHD');
    expect(defaultCartCurrency('CH', payment)).toBe('USD');
    expect(defaultCartCurrency(null, payment)).toBe('USD');
  });

  it('names currencies in the locale', () => {
    expect(currencyName('EUR', 'en-US')).toBe('Euro');
    expect(currencyName('USD', 'de-DE')).toBe('US-Dollar');
  });
});

describe('options', () => {
  it('has every §3.4 field; blocked countries are left out', () => {
    const cart = { customer_ip_country: 'DE' } as CartRecord;
    const options = cartOptions(cart, paymentSettings({ blocked_countries: ['RU', 'KP'], card_types: ['Visa', 'JCB'] }), 'en-US', []);
    expect(Object.keys(options)).toEqual([
      'customer_required_fields',
      'customer_optional_fields',
      'shipping_quotes',
      'payment_methods',
      'card_types',
      'allowed_customer_countries',
      'customer_default_country',
      'currencies',
    ]);
    expect(options).toMatchObject({
      shipping_quotes: [],
      payment_methods: [{ payment_method_type: 'credit_card' }],
      card_types: ['Visa', 'JCB'],
      customer_default_country: 'DE',
      currencies: [
        { code: 'USD', name: 'US Dollar' },
        { code: 'EUR', name: 'Euro' },
        { code: 'JPY', name: 'Japanese Yen' },
        { code: 'BHD', name: 'Bahraini Dinar' },
      ],
    });
    const countries = options.allowed_customer_countries as string[];
    expect(countries).not.toContain('RU');
    expect(countries).not.toContain('KP');
    expect(countries.length).toBe(allCountryCodes().length - 2);
  });
});
