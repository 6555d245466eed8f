/**
 * The tax model of a sale (commerce.md §1.4): where a sale is taxed, at which rate, and whether
 * its prices contain tax. Pure functions over `/settings/tax`; no I/O.
 */
import type { TaxRule, TaxSettings } from '../accounts';

/** The address properties the tax location reads (an `Address` fits). */
export interface TaxAddress {
  country?: string | null;
  state_prov?: string | null;
}

/** Where a sale is taxed; `country: null` means nowhere (rate 0). */
export interface TaxLocation {
  country: string | null;
  stateProv: string | null;
}

/** What `taxLocationOf` needs to know about a sale. */
export interface TaxLocationSource {
  hasPhysical: boolean;
  shippingAddress?: TaxAddress | null;
  billingAddress?: TaxAddress | null;
  /** `customer_ip_country` of the sale. */
  ipCountry: string | null;
}

/** How tax applies to one sale, as `computeSale` and the promotion engine both need it. */
export interface TaxTreatment {
  /** The uppercase tax country, or null when the sale has no tax location. */
  country: string | null;
  /** The rate charged on product lines: the location's rate, or 0 for a tax-exempt customer. */
  rate: number;
  /** The location's rate regardless of exemption: the tax portion an exempt customer's inclusive prices drop by. */
  locationRate: number;
  /** Prices contain tax: the tax country is in `tax_inclusive_countries`. */
  tax_inclusive: boolean;
  /** A tax-inclusive sale whose country is in `gross_discount_countries` (§11 amount discounts are not grossed up). */
  discount_on_gross: boolean;
  /** The customer pays no tax. */
  tax_exempt: boolean;
}

/** A blank string counts as absent: a country must be a real code to locate tax. */
function present(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function locationOf(address: TaxAddress | null | undefined): TaxLocation | null {
  const country = present(address?.country);
  if (country === null) return null;
  return { country: country.toUpperCase(), stateProv: present(address?.state_prov) };
}

/**
 * The tax location (§1.4): the shipping address when the sale has physical items and a shipping
 * country; else the billing address (when it has a country); else the IP country; else none.
 * @example taxLocationOf({ hasPhysical: false, billingAddress: { country: 'us', state_prov: 'CA' }, ipCountry: 'DE' }) // { country: 'US', stateProv: 'CA' }
 */
export function taxLocationOf(sale: TaxLocationSource): TaxLocation {
  const shipping = sale.hasPhysical ? locationOf(sale.shippingAddress) : null;
  if (shipping) return shipping;
  const billing = locationOf(sale.billingAddress);
  if (billing) return billing;
  const ip = present(sale.ipCountry);
  return { country: ip === null ? null : ip.toUpperCase(), stateProv: null };
}

function sameCountry(a: string, b: string): boolean {
  return a.toUpperCase() === b.toUpperCase();
}

/** State names are compared case-insensitively, as settings validation treats them as one key. */
function sameStateProv(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** The most specific matching rule: `country` + `state_prov` beats `country` alone; undefined when none matches. */
export function taxRuleFor(location: TaxLocation, rules: readonly TaxRule[]): TaxRule | undefined {
  const country = present(location.country);
  if (country === null) return undefined;
  const stateProv = present(location.stateProv);
  let countryWide: TaxRule | undefined;
  for (const rule of rules) {
    if (!sameCountry(rule.country, country)) continue;
    if (rule.state_prov === null || present(rule.state_prov) === null) {
      countryWide ??= rule;
    } else if (stateProv !== null && sameStateProv(rule.state_prov, stateProv)) {
      return rule;
    }
  }
  return countryWide;
}

/**
 * The tax rate of a location (§1.4): the most specific rule's rate, or 0 when no rule matches
 * or there is no location.
 * @example taxRateFor({ country: 'US', stateProv: 'CA' }, tax) // the US/CA rule's rate, else the US rule's, else 0
 */
export function taxRateFor(location: TaxLocation, tax: TaxSettings): number {
  return taxRuleFor(location, tax.rules)?.rate ?? 0;
}

function listed(country: string | null, countries: readonly string[]): boolean {
  return country !== null && countries.some((entry) => sameCountry(entry, country));
}

/** How tax applies to a sale at `location` for a customer who is, or is not, tax-exempt. */
export function taxTreatmentOf(location: TaxLocation, customerTaxExempt: boolean, tax: TaxSettings): TaxTreatment {
  const raw = present(location.country);
  const country = raw === null ? null : raw.toUpperCase();
  const locationRate = taxRateFor(location, tax);
  const taxInclusive = listed(country, tax.tax_inclusive_countries);
  return {
    country,
    rate: customerTaxExempt ? 0 : locationRate,
    locationRate,
    tax_inclusive: taxInclusive,
    discount_on_gross: taxInclusive && listed(country, tax.gross_discount_countries),
    tax_exempt: customerTaxExempt,
  };
}
