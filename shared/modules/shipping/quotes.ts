/**
 * Shipping quotes (commerce.md §3.3, §3.4): which methods quote a sale, at what price, and
 * which quote a sale selects. Pure functions: carts keep the active methods' terms with them
 * (like promotion terms), so every re-price can quote synchronously.
 */
import type { PaymentSettings } from '../accounts';
import { unitPrice, type PriceEntry } from '../catalog';
import type { Address } from '../../rest/addresses';

/** What quoting needs of a shipping method (a cart keeps these for its active methods). */
export interface ShippingMethodTerms {
  shipping_method_id: string;
  name: string;
  description: string | null;
  details: string | null;
  /** Uppercase ISO codes; empty = every country. */
  countries: string[];
  prices: PriceEntry[];
}

/** A method's flat price in the sale currency (§1.1), before tax. */
export interface QuotedMethod {
  method: ShippingMethodTerms;
  priceOriginal: number;
}

/** The shipping country of a sale: shipping address, else billing address, else IP country (§3.3). */
export function shippingCountryOf(input: { shippingAddress: Address | null; billingAddress: Address | null; ipCountry: string | null }): string | null {
  const country = input.shippingAddress?.country || input.billingAddress?.country || input.ipCountry || null;
  return country ? country.toUpperCase() : null;
}

/**
 * The quotes of a sale, cheapest first (ties by method id): none without physical items;
 * otherwise the given (active) methods covering the shipping country. A method restricted to
 * some countries covers no sale whose country is unknown.
 */
export function quoteMethods(
  methods: readonly ShippingMethodTerms[],
  sale: { hasPhysical: boolean; country: string | null; currency: string },
  payment: PaymentSettings,
): QuotedMethod[] {
  if (!sale.hasPhysical) return [];
  return methods
    .filter((method) => method.countries.length === 0 || (sale.country !== null && method.countries.includes(sale.country)))
    .map((method) => ({ method, priceOriginal: unitPrice(method.prices, sale.currency, payment) }))
    .sort((a, b) => a.priceOriginal - b.priceOriginal || (a.method.shipping_method_id < b.method.shipping_method_id ? -1 : a.method.shipping_method_id > b.method.shipping_method_id ? 1 : 0));
}

/** The selected quote: the requested one while quoted, else the cheapest, else none (§3.3). */
export function selectQuote(quotes: readonly QuotedMethod[], requestedId: string | null): QuotedMethod | null {
  return quotes.find((quote) => quote.method.shipping_method_id === requestedId) ?? quotes[0] ?? null;
}
