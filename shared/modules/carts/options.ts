/**
 * The virtual `options` expansion of a cart (commerce.md §3.4): what a checkout page needs to
 * draw its form (required and optional customer fields, countries, currencies), the shipping
 * quotes and the payment methods. Only computed when asked (`expand=options` or `options=true`,
 * or `cart.options` deeper in a path). Orders show the settings part of it (§5.3).
 */
import type { CustomerFieldToken, CustomerOptionalFieldToken, PaymentSettings } from '../accounts';
import { isCountryCode } from '../../rest/formatted';
import { acceptedPaymentMethods } from '../payments';
import type { CartRecord } from './types';

/** A shipping quote (§3.4); `method_id` is what `shipping_method_id` takes. */
export interface ShippingQuote {
  method_id: string;
  name: string;
  description: string | null;
  details: string | null;
  price: number;
  price_original: number;
  total: number;
  total_original: number;
}

/** The field paths each settings token stands for (§3.4); the payment checks read the same table. */
export const FIELD_PATHS: Record<CustomerOptionalFieldToken, readonly string[]> = {
  name: ['name'],
  email: ['email'],
  company_name: ['company_name'],
  phone: ['phone'],
  tax_number: ['tax_number'],
  country: ['billing_address.country'],
  postal_code: ['billing_address.postal_code'],
  full_address: ['billing_address.address_1', 'billing_address.city', 'billing_address.state_prov', 'billing_address.postal_code', 'billing_address.country'],
  credentials: ['username'],
};

/**
 * `customer_required_fields` and `customer_optional_fields` as field paths: `email` is always
 * required, `credentials` is only ever optional, `billing_address.address_2` is optional
 * wherever a full address is asked for, and a required path is never also optional.
 * @example customerFields({ customer_required_fields: ['country'], customer_optional_fields: ['credentials'] }) // required ['billing_address.country', 'email'], optional ['username']
 */
export function customerFields(payment: Pick<PaymentSettings, 'customer_required_fields' | 'customer_optional_fields'>): {
  required: string[];
  optional: string[];
} {
  const required = new Set<string>();
  for (const token of payment.customer_required_fields as CustomerFieldToken[]) {
    for (const path of FIELD_PATHS[token] ?? []) required.add(path);
  }
  required.add('email');
  const optional = new Set<string>();
  const tokens = [...payment.customer_optional_fields, ...payment.customer_required_fields];
  for (const token of payment.customer_optional_fields) {
    for (const path of FIELD_PATHS[token] ?? []) if (!required.has(path)) optional.add(path);
  }
  if (tokens.includes('full_address')) optional.add('billing_address.address_2');
  return { required: [...required], optional: [...optional] };
}

let countryCodes: readonly string[] | undefined;

/** Every ISO 3166-1 alpha-2 country code the platform knows, A–Z (built once from Intl). */
export function allCountryCodes(): readonly string[] {
  if (countryCodes) return countryCodes;
  const codes: string[] = [];
  for (let first = 65; first <= 90; first++) {
    for (let second = 65; second <= 90; second++) {
      const code = String.fromCharCode(first, second);
      if (isCountryCode(code)) codes.push(code);
    }
  }
  countryCodes = Object.freeze(codes);
  return countryCodes;
}

const currencyNameLists = new Map<string, Intl.DisplayNames>();

/** A currency's display name in a locale ('EUR' → 'Euro'), or the code when Intl has none. */
export function currencyName(code: string, locale: string): string {
  let names = currencyNameLists.get(locale);
  if (!names) {
    try {
      names = new Intl.DisplayNames([locale], { type: 'currency' });
    } catch {
      names = new Intl.DisplayNames(['en'], { type: 'currency' });
    }
    if (currencyNameLists.size > 500) currencyNameLists.clear();
    currencyNameLists.set(locale, names);
  }
  return names.of(code) ?? code;
}

/** The part of `options` that comes from the settings alone (§3.4), shared by carts and orders (§5.3). */
export interface FormOptions {
  customer_required_fields: string[];
  customer_optional_fields: string[];
  card_types: string[];
  currencies: Array<{ code: string; name: string }>;
}

/**
 * What a checkout or receipt form draws from the settings in effect: the customer field paths,
 * the card types and the enabled currencies named in `locale`. This is an order's whole
 * `options` (receipts offer account creation from `customer_optional_fields`); a cart adds
 * its quotes, payment methods and countries.
 */
export function formOptions(payment: PaymentSettings, locale: string): FormOptions {
  const fields = customerFields(payment);
  return {
    customer_required_fields: fields.required,
    customer_optional_fields: fields.optional,
    card_types: [...payment.card_types],
    currencies: payment.currencies.map((code) => ({ code, name: currencyName(code, locale) })),
  };
}

/** Every country code but the blocked ones (`allowed_customer_countries`). */
export function allowedCustomerCountries(payment: PaymentSettings): string[] {
  const blocked = new Set(payment.blocked_countries.map((code) => code.toUpperCase()));
  return allCountryCodes().filter((code) => !blocked.has(code));
}

/** The `options` object of a cart. `quotes` are the cart's shipping quotes, cheapest first. */
export function cartOptions(cart: CartRecord, payment: PaymentSettings, locale: string, quotes: readonly ShippingQuote[]): Record<string, unknown> {
  const form = formOptions(payment, locale);
  return {
    customer_required_fields: form.customer_required_fields,
    customer_optional_fields: form.customer_optional_fields,
    shipping_quotes: quotes.map((quote) => ({ ...quote })),
    payment_methods: acceptedPaymentMethods(payment),
    card_types: form.card_types,
    allowed_customer_countries: allowedCustomerCountries(payment),
    customer_default_country: cart.customer_ip_country,
    currencies: form.currencies,
  };
}
