/** Shipping quotes (commerce.md §3.3): coverage, conversion, order and selection rules. */
import { describe, expect, it } from 'vitest';
import type { PaymentSettings } from '../../../shared/modules/accounts/settings';
import { quoteMethods, selectQuote, shippingCountryOf, type ShippingMethodTerms } from '../../../shared/modules/shipping';

const payment = { default_payment_currency: 'USD', currencies: ['USD', 'EUR'], exchange_rates: { USD: 1, EUR: 0.9 } } as unknown as PaymentSettings;

function method(id: string, price: number, countries: string[] = [], currency = 'USD'): ShippingMethodTerms {
  return { shipping_method_id: id, name: id, description: null, details: null, countries, prices: [{ currency, price }] };
}

const address = (country: string | null) => ({ name: null, address_1: null, address_2: null, city: null, state_prov: null, postal_code: null, country, email: null, meta: null });

describe('shippingCountryOf', () => {
  it('prefers the shipping address, then billing, then the IP country', () => {
    expect(shippingCountryOf({ shippingAddress: address('de'), billingAddress: address('US'), ipCountry: 'FR' })).toBe('DE');
    expect(shippingCountryOf({ shippingAddress: address(null), billingAddress: address('US'), ipCountry: 'FR' })).toBe('US');
    expect(shippingCountryOf({ shippingAddress: address(null), billingAddress: address(null), ipCountry: 'FR' })).toBe('FR');
    expect(shippingCountryOf({ shippingAddress: null, billingAddress: null, ipCountry: null })).toBeNull();
  });
});

describe('quoteMethods', () => {
  const methods = [method('express', 20), method('standard', 5), method('us-only', 3, ['US']), method('eu', 4, ['DE', 'FR'])];

  it('quotes nothing without physical items', () => {
    expect(quoteMethods(methods, { hasPhysical: false, country: 'US', currency: 'USD' }, payment)).toEqual([]);
  });

  it('quotes the methods covering the country, cheapest first', () => {
    const us = quoteMethods(methods, { hasPhysical: true, country: 'US', currency: 'USD' }, payment);
    expect(us.map((quote) => [quote.method.shipping_method_id, quote.priceOriginal])).toEqual([
      ['us-only', 3],
      ['standard', 5],
      ['express', 20],
    ]);
    const de = quoteMethods(methods, { hasPhysical: true, country: 'DE', currency: 'USD' }, payment);
    expect(de.map((quote) => quote.method.shipping_method_id)).toEqual(['eu', 'standard', 'express']);
  });

  it('quotes only unrestricted methods when the country is unknown', () => {
    const quotes = quoteMethods(methods, { hasPhysical: true, country: null, currency: 'USD' }, payment);
    expect(quotes.map((quote) => quote.method.shipping_method_id)).toEqual(['standard', 'express']);
  });

  it('converts prices into the sale currency (§1.1)', () => {
    const quotes = quoteMethods([method('standard', 10), method('eur', 9, [], 'EUR')], { hasPhysical: true, country: 'US', currency: 'EUR' }, payment);
    expect(quotes.map((quote) => [quote.method.shipping_method_id, quote.priceOriginal])).toEqual([
      ['eur', 9],
      ['standard', 9],
    ]);
  });
});

describe('selectQuote', () => {
  const quotes = quoteMethods([method('a', 5), method('b', 2)], { hasPhysical: true, country: 'US', currency: 'USD' }, payment);

  it('keeps a quoted choice', () => {
    expect(selectQuote(quotes, 'a')?.method.shipping_method_id).toBe('a');
  });

  it('selects the cheapest for null or an id no longer quoted', () => {
    expect(selectQuote(quotes, null)?.method.shipping_method_id).toBe('b');
    expect(selectQuote(quotes, 'gone')?.method.shipping_method_id).toBe('b');
  });

  it('selects nothing without quotes', () => {
    expect(selectQuote([], 'a')).toBeNull();
  });
});
