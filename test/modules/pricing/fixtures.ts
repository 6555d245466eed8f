/** Settings and sale builders for the pricing tests (plain objects: no store, no I/O). */
import type { PaymentSettings, TaxRule, TaxSettings } from '../../../shared/modules/accounts/settings';
import type { SaleInput, SaleLineInput } from '../../../shared/modules/pricing';

/** `/settings/payment` defaults with the given overrides. */
export function paymentSettings(overrides: Partial<PaymentSettings> = {}): PaymentSettings {
  return {
    default_payment_currency: 'USD',
    currencies: ['USD', 'EUR', 'JPY', 'BHD'],
    settlement_currency: 'USD',
    exchange_rates: { EUR: 0.92, JPY: 150, BHD: 0.376 },
    card_types: ['Visa'],
    allow_save_cards: true,
    duplicate_payment_timeout: 120,
    ignore_bad_cvv: false,
    ignore_bad_avs: false,
    blocked_countries: [],
    customer_required_fields: ['name', 'email', 'country'],
    customer_optional_fields: ['company_name', 'phone', 'postal_code'],
    allow_customer_subscription_cancel: true,
    subscription_payment_retry_days: [1, 3, 5],
    ...overrides,
  };
}

/** `/settings/tax` with the given rules and overrides. */
export function taxSettings(rules: TaxRule[] = [], overrides: Partial<TaxSettings> = {}): TaxSettings {
  return { rules, tax_inclusive_countries: [], gross_discount_countries: [], tax_shipping: true, ...overrides };
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
