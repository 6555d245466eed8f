/** Settings and sale builders for the pricing tests (plain objects: no store, no I/O). */
import { defaultPaymentSettings, defaultTaxSettings, type PaymentSettings, type TaxRule, type TaxSettings } from '../../../shared/modules/accounts/settings';
import type { SaleInput, SaleLineInput } from '../../../shared/modules/pricing';

/** `/settings/payment` defaults, with the currencies and rates the pricing tests price in, Visa only, and the given overrides. */
export function paymentSettings(overrides: Partial<PaymentSettings> = {}): PaymentSettings {
  return {
    ...defaultPaymentSettings(),
    currencies: ['USD', 'EUR', 'JPY', 'BHD'],
    exchange_rates: { EUR: 0.92, JPY: 150, BHD: 0.376 },
    card_types: ['Visa'],
    ...overrides,
  };
}

/** `/settings/tax` with the given rules and overrides. */
export function taxSettings(rules: TaxRule[] = [], overrides: Partial<TaxSettings> = {}): TaxSettings {
  return { ...defaultTaxSettings(), rules, ...overrides };
}

/** A product line; `itemId` and `productId` default to the same id. */
export function line(overrides: Partial<SaleLineInput> & Pick<SaleLineInput, 'unitPriceOriginal'>): SaleLineInput {
  const id = overrides.productId ?? overrides.itemId ?? 'prod_1';
  return { itemId: id, productId: id, name: 'Widget', type: 'digital', quantity: 1, taxCode: null, ...overrides };
}

/** A sale in USD taxed in `country` at `rate` (exclusive unless the country is listed as inclusive). */
export function sale(overrides: Partial<SaleInput> = {}): SaleInput {
  return {
    currency: 'USD',
    lines: [],
    shipping: null,
    taxLocation: { country: 'US', stateProv: null },
    customerTaxExempt: false,
    payment: paymentSettings(),
    tax: taxSettings([{ country: 'US', state_prov: null, rate: 0.1 }]),
    ...overrides,
  };
}

/** Inclusive 20 % tax in DE. */
export function inclusiveDe(overrides: Partial<TaxSettings> = {}): Pick<SaleInput, 'taxLocation' | 'tax'> {
  return {
    taxLocation: { country: 'DE', stateProv: null },
    tax: taxSettings([{ country: 'DE', state_prov: null, rate: 0.2 }], { tax_inclusive_countries: ['DE'], ...overrides }),
  };
}
