/**
 * Validation of settings changes (commerce.md section 13, conventions.md section 15). Each
 * `apply…Changes` takes the current values of a group and a request body, and answers the
 * values as they will be after the change, or throws 400 invalid_input naming the first bad
 * property (`exchange_rates.EUR`, `rules[1].rate`, `cors_allowed_origins[0]`).
 *
 * - A sent property is changed; an omitted one is left alone.
 * - Unknown and read-only properties (`object`, `type`, `url`, `app_hosts`, `signature_key`)
 *   are ignored, so a client can post back a whole object it read.
 * - `null` clears the nullable fields; for the others it is invalid. An empty string for an
 *   optional string stores null.
 * - Types are strict: `"0.92"` is not a number, `"true"` is not a boolean.
 * - Rules that join several fields (currencies and their rates) are checked on the merged
 *   values, so a change that is valid on its own but breaks the whole is refused.
 *
 * Everything here is pure: no reads, no writes.
 */
import { resolveTimeZone } from '../rest/dates';
import { isCountryCode } from '../rest/formatted';
import { booleanValue, invalid, numberValue, sends } from '../rest/input';
import { isCurrencyCode } from '../rest/money';
import {
  CUSTOMER_FIELD_TOKENS,
  CUSTOMER_OPTIONAL_FIELD_TOKENS,
  type CustomerFieldToken,
  type CustomerOptionalFieldToken,
  type GeneralValues,
  type PaymentValues,
  type TaxRule,
  type TaxValues,
  type TechnicalValues,
} from './settings';

/** Longest accepted name-like string (company name, card type, state or province). */
export const MAX_NAME_LENGTH = 200;
/** Longest accepted URL or URL template. */
export const MAX_URL_LENGTH = 2000;
/** Most entries of a list setting (origins, redirect URIs, sender addresses). */
export const MAX_LIST_ENTRIES = 100;
/** Most tax rules. */
export const MAX_TAX_RULES = 1000;

/** A body property parser: the raw sent value and its dot path in, the stored value out. */
type Parse<T> = (value: unknown, property: string) => T;

/** Parsers of a group's writable fields, in the order they are validated. */
type FieldParsers<T> = { [K in keyof T]?: Parse<T[K]> };

/** Applies the parsers of the sent properties to a copy of the current values. */
function applyFields<T extends object>(current: T, body: Record<string, unknown>, parsers: FieldParsers<T>): T {
  const next = { ...current };
  for (const name of Object.keys(parsers) as Array<keyof T & string>) {
    if (!sends(body, name)) continue;
    next[name] = parsers[name]!(body[name], name);
  }
  return next;
}

// ---------------------------------------------------------------------------------------------
// Scalars

/** A value that may not be null (`null` is only for nullable fields). */
function present(value: unknown, property: string, what: string): void {
  if (value === null || value === undefined) invalid(property, `The property ${property} cannot be null; it must be ${what}.`);
}

/** A JSON boolean (null refused). */
export function parseBoolean(value: unknown, property: string): boolean {
  return booleanValue(value, property);
}

/** An optional trimmed string: null, '' or blank → null; at most `max` characters. */
export function parseOptionalText(value: unknown, property: string, max = MAX_NAME_LENGTH): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') invalid(property, `The property ${property} must be a string or null.`);
  const text = value.trim();
  if (text === '') return null;
  if (text.length > max) invalid(property, `The property ${property} must be at most ${max} characters.`, 'too_long');
  return text;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email address (trimmed), at most 254 characters. */
export function parseEmail(value: unknown, property: string): string {
  present(value, property, 'an email address');
  if (typeof value !== 'string') invalid(property, `The property ${property} must be an email address.`);
  const text = value.trim();
  if (text.length > 254) invalid(property, `The property ${property} must be at most 254 characters.`, 'too_long');
  if (!EMAIL.test(text)) invalid(property, `The property ${property} must be a valid email address.`);
  return text;
}

/** An optional email address: null or '' → null. */
export function parseOptionalEmail(value: unknown, property: string): string | null {
  if (value === null || (typeof value === 'string' && value.trim() === '')) return null;
  return parseEmail(value, property);
}

/** Parses an absolute http(s) URL, or undefined when it is not one. */
function httpUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

/** An optional absolute http(s) URL (a website): null or '' → null. */
export function parseOptionalWebsite(value: unknown, property: string): string | null {
  const text = parseOptionalText(value, property, MAX_URL_LENGTH);
  if (text !== null && (!httpUrl(text) || /\s/.test(text))) {
    invalid(property, `The property ${property} must be an absolute http or https URL.`);
  }
  return text;
}

/**
 * The invoice pay-link template: an absolute http(s) URL once `{{invoice_id}}` and `{{token}}`
 * are filled in (both optional), or null.
 */
export function parseInvoicePaymentUrl(value: unknown, property: string): string | null {
  const text = parseOptionalText(value, property, MAX_URL_LENGTH);
  if (text === null) return null;
  const sample = text.replaceAll('{{invoice_id}}', 'INVOICE').replaceAll('{{token}}', 'TOKEN');
  if (!httpUrl(sample) || /\s/.test(text)) {
    invalid(property, `The property ${property} must be an absolute http or https URL (it may contain {{invoice_id}} and {{token}}).`);
  }
  return text;
}

/** An IANA zone name or `UTC`, matched case-insensitively; stored canonical (`america/new_york` → `America/New_York`). */
export function parseTimezone(value: unknown, property: string): string {
  present(value, property, 'an IANA time zone name or UTC');
  if (typeof value === 'string') {
    try {
      return resolveTimeZone(value);
    } catch {
      // resolveTimeZone names the query parameter; a body names the property.
    }
  }
  return invalid(property, `The property ${property} must be an IANA time zone name or UTC.`);
}

/** A BCP 47 language tag, stored canonical (`en-us` → `en-US`). */
export function parseLocale(value: unknown, property: string): string {
  present(value, property, 'a BCP 47 language tag');
  if (typeof value === 'string' && value.length > 0 && value.length <= 64) {
    try {
      const [canonical, ...rest] = Intl.getCanonicalLocales(value);
      if (canonical !== undefined && rest.length === 0) return canonical;
    } catch {
      // RangeError: not a well-formed tag.
    }
  }
  return invalid(property, `The property ${property} must be a BCP 47 language tag such as en-US.`);
}

/** An ISO 4217 currency code, case-insensitive in, uppercase out. */
export function parseCurrency(value: unknown, property: string): string {
  present(value, property, 'an ISO 4217 currency code');
  if (typeof value !== 'string' || !isCurrencyCode(value)) {
    invalid(property, `The property ${property} must be an ISO 4217 currency code such as USD.`);
  }
  return value.toUpperCase();
}

/** An optional currency code: null or '' → null. */
export function parseOptionalCurrency(value: unknown, property: string): string | null {
  if (value === null || value === '') return null;
  return parseCurrency(value, property);
}

/** An ISO 3166-1 alpha-2 country code, case-insensitive in, uppercase out. */
export function parseCountry(value: unknown, property: string): string {
  present(value, property, 'an ISO 3166-1 alpha-2 country code');
  if (typeof value !== 'string' || !isCountryCode(value)) {
    invalid(property, `The property ${property} must be an ISO 3166-1 alpha-2 country code such as US.`);
  }
  return value.toUpperCase();
}

/**
 * A browser origin, exactly as browsers send it: `scheme://host[:port]` with http or https,
 * lowercase host, no default port, no path (not even `/`), query, fragment or credentials.
 * Nothing is normalised: a value that is not already in that form is refused, because the
 * `Origin` header is compared with it character for character.
 */
export function parseOrigin(value: unknown, property: string): string {
  if (typeof value === 'string' && value.length <= MAX_URL_LENGTH && !value.includes('*')) {
    const url = httpUrl(value);
    if (url && url.origin === value) return value;
  }
  return invalid(property, `The property ${property} must be an origin such as https://shop.example.com (scheme, host and optional port; no path or trailing slash).`);
}

/** Hosts where a plain-http sign-in redirect is allowed (a developer's own machine). */
function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname.endsWith('.localhost');
}

/**
 * A sign-in redirect URI: absolute, https (plain http only for localhost, 127.0.0.1 and
 * `*.localhost`), without a fragment. Stored as sent: sign-in compares it exactly.
 */
export function parseRedirectUri(value: unknown, property: string): string {
  if (typeof value === 'string' && value.length <= MAX_URL_LENGTH && !/\s/.test(value)) {
    const url = httpUrl(value);
    if (url && !url.hash && !value.includes('#') && !url.username && !url.password) {
      if (url.protocol === 'https:' || isLoopbackHost(url.hostname)) return value;
      return invalid(property, `The property ${property} must use https (plain http is allowed only for localhost).`, 'not_allowed');
    }
  }
  return invalid(property, `The property ${property} must be an absolute https URL without a fragment.`);
}

// ---------------------------------------------------------------------------------------------
// Lists

/**
 * A JSON array parsed entry by entry (`property[i]`). Duplicates (by `key`) are refused with
 * reason `conflict` at the later index rather than silently merged.
 */
export function parseList<T>(
  value: unknown,
  property: string,
  parseEntry: Parse<T>,
  options: { max?: number; key?: (entry: T) => string } = {},
): T[] {
  present(value, property, 'an array');
  if (!Array.isArray(value)) return invalid(property, `The property ${property} must be an array.`);
  const max = options.max ?? MAX_LIST_ENTRIES;
  if (value.length > max) invalid(property, `The property ${property} may hold at most ${max} entries.`, 'too_long');
  const seen = new Set<string>();
  return value.map((raw, index) => {
    const at = `${property}[${index}]`;
    const entry = parseEntry(raw, at);
    const key = options.key ? options.key(entry) : String(entry);
    if (seen.has(key)) invalid(at, `The property ${at} repeats an earlier entry.`, 'conflict');
    seen.add(key);
    return entry;
  });
}

/** A list of exact origins. */
export const parseOrigins: Parse<string[]> = (value, property) => parseList(value, property, parseOrigin);

/** A list of sign-in redirect URIs. */
export const parseRedirectUris: Parse<string[]> = (value, property) => parseList(value, property, parseRedirectUri);

/** A list of country codes (uppercase out, no repeats). */
export const parseCountries: Parse<string[]> = (value, property) => parseList(value, property, parseCountry, { max: 300 });

/** A string that must be one of `tokens` (exact, lowercase API words). */
function oneOf<T extends string>(tokens: readonly T[]): Parse<T> {
  return (value, property) => {
    if (typeof value !== 'string' || !(tokens as readonly string[]).includes(value)) {
      invalid(property, `The property ${property} must be one of ${tokens.join(', ')}.`);
    }
    return value as T;
  };
}

/** A card brand display name (1–50 characters). */
function parseCardType(value: unknown, property: string): string {
  if (typeof value !== 'string' || value.trim() === '') invalid(property, `The property ${property} must be a card brand name.`);
  const text = value.trim();
  if (text.length > 50) invalid(property, `The property ${property} must be at most 50 characters.`, 'too_long');
  return text;
}

// ---------------------------------------------------------------------------------------------
// Groups

/** The technical values after a change, and whether the signature key is to be rotated. */
export interface TechnicalChanges {
  values: TechnicalValues;
  rotateSignatureKey: boolean;
}

const technicalParsers: FieldParsers<TechnicalValues> = {
  timezone: parseTimezone,
  locale: parseLocale,
  cors_allowed_origins: parseOrigins,
  oauth_redirect_uris: parseRedirectUris,
  allow_public_limited_test_tokens: parseBoolean,
  invoice_payment_url: parseInvoicePaymentUrl,
};

/** `/settings/technical` after a change. `rotate_signature_key` is write-only: `true` rotates, `false` does nothing. */
export function applyTechnicalChanges(current: TechnicalValues, body: Record<string, unknown>): TechnicalChanges {
  const values = applyFields(current, body, technicalParsers);
  const rotateSignatureKey = sends(body, 'rotate_signature_key') && parseBoolean(body.rotate_signature_key, 'rotate_signature_key');
  return { values, rotateSignatureKey };
}

/** What `/settings/general` reads and writes: its own values plus the two shared technical lists. */
export type GeneralView = GeneralValues & Pick<TechnicalValues, 'cors_allowed_origins' | 'oauth_redirect_uris'>;

const generalParsers: FieldParsers<GeneralView> = {
  company_name: (value, property) => parseOptionalText(value, property),
  support_email: parseOptionalEmail,
  support_website: parseOptionalWebsite,
  notification_from_addresses: (value, property) =>
    parseList(value, property, parseEmail, { max: 20, key: (email) => email.toLowerCase() }),
  reporting_currency_primary: parseOptionalCurrency,
  reporting_currency_secondary: parseOptionalCurrency,
  cors_allowed_origins: parseOrigins,
  oauth_redirect_uris: parseRedirectUris,
};

/** `/settings/general` after a change (including the shared CORS and redirect lists). */
export function applyGeneralChanges(current: GeneralView, body: Record<string, unknown>): GeneralView {
  return applyFields(current, body, generalParsers);
}

/** Exchange rates: `{CODE: number > 0}`, codes case-insensitive in, uppercase out. */
export function parseExchangeRates(value: unknown, property: string): Record<string, number> {
  present(value, property, 'an object of rates');
  if (typeof value !== 'object' || Array.isArray(value)) {
    return invalid(property, `The property ${property} must be an object such as {"EUR": 0.92}.`);
  }
  const rates: Record<string, number> = {};
  for (const [code, rate] of Object.entries(value as Record<string, unknown>)) {
    const at = `${property}.${code}`;
    if (!isCurrencyCode(code)) invalid(at, `The key ${code} of ${property} must be an ISO 4217 currency code.`);
    const upper = code.toUpperCase();
    if (Object.hasOwn(rates, upper)) invalid(at, `The property ${property} names ${upper} twice.`, 'conflict');
    if (typeof rate !== 'number' || !Number.isFinite(rate)) invalid(at, `The property ${at} must be a number.`);
    if (rate <= 0 || rate > 1e12) invalid(at, `The property ${at} must be greater than 0.`, 'out_of_range');
    rates[upper] = rate;
  }
  return rates;
}

/** Retry days: at most 5 integers, each 1–30, strictly increasing. */
export function parseRetryDays(value: unknown, property: string): number[] {
  const days = parseList(value, property, (raw, at) => numberValue(raw, at, { integer: true, min: 1, max: 30 }), { max: 5 });
  days.forEach((day, index) => {
    if (index > 0 && day <= days[index - 1]!) {
      invalid(`${property}[${index}]`, `The values of ${property} must be strictly increasing.`);
    }
  });
  return days;
}

const paymentParsers: FieldParsers<PaymentValues> = {
  default_payment_currency: parseCurrency,
  currencies: (value, property) => {
    const codes = parseList(value, property, parseCurrency, { max: 200 });
    if (codes.length === 0) invalid(property, `The property ${property} must name at least one currency.`, 'required');
    return codes;
  },
  settlement_currency: parseCurrency,
  exchange_rates: parseExchangeRates,
  card_types: (value, property) => parseList(value, property, parseCardType, { max: 20, key: (name) => name.toLowerCase() }),
  allow_save_cards: parseBoolean,
  duplicate_payment_timeout: (value, property) => numberValue(value, property, { integer: true, min: 0, max: 86400 }),
  ignore_bad_cvv: parseBoolean,
  ignore_bad_avs: parseBoolean,
  blocked_countries: parseCountries,
  customer_required_fields: (value, property) =>
    parseList<CustomerFieldToken>(value, property, oneOf(CUSTOMER_FIELD_TOKENS)),
  customer_optional_fields: (value, property) =>
    parseList<CustomerOptionalFieldToken>(value, property, oneOf(CUSTOMER_OPTIONAL_FIELD_TOKENS)),
  allow_customer_subscription_cancel: parseBoolean,
  subscription_payment_retry_days: parseRetryDays,
};

/**
 * `/settings/payment` after a change, with the rules that join fields checked on the result:
 * the default currency is one of `currencies`; every other listed currency has a rate, and
 * only listed currencies have one (the default's own rate, if given, is 1); the settlement
 * currency is the default or a currency with a rate. A broken join is reported on the field
 * the request sent (the default or settlement currency when sent, else `currencies`). When
 * `currencies` is sent without `exchange_rates`, the rates of currencies no longer listed go.
 */
export function applyPaymentChanges(current: PaymentValues, body: Record<string, unknown>): PaymentValues {
  const next = applyFields(current, body, paymentParsers);
  const listed = new Set(next.currencies);
  if (sends(body, 'currencies') && !sends(body, 'exchange_rates')) {
    // Removing a currency removes its rate with it; sent rates are checked as they are.
    next.exchange_rates = Object.fromEntries(Object.entries(next.exchange_rates).filter(([code]) => listed.has(code)));
  }
  const blame = (field: 'default_payment_currency' | 'settlement_currency') =>
    sends(body, field) || !sends(body, 'currencies') ? field : 'currencies';
  if (!listed.has(next.default_payment_currency)) {
    const at = blame('default_payment_currency');
    invalid(at, `The default payment currency ${next.default_payment_currency} must be one of currencies.`, 'not_allowed');
  }
  for (const [code, rate] of Object.entries(next.exchange_rates)) {
    const at = `exchange_rates.${code}`;
    if (!listed.has(code)) invalid(at, `There is a rate for ${code}, which is not one of currencies.`, 'not_allowed');
    if (code === next.default_payment_currency && rate !== 1) {
      invalid(at, `The rate of the default payment currency ${code} is 1.`, 'invalid');
    }
  }
  for (const code of next.currencies) {
    if (code !== next.default_payment_currency && next.exchange_rates[code] === undefined) {
      invalid(`exchange_rates.${code}`, `The currency ${code} needs an exchange rate.`, 'required');
    }
  }
  if (!listed.has(next.settlement_currency)) {
    const at = blame('settlement_currency');
    invalid(at, `The settlement currency ${next.settlement_currency} must be the default or a currency with a rate.`, 'not_allowed');
  }
  return next;
}

/** One tax rule `{country, state_prov, rate}`; unknown properties of a rule are ignored. */
export function parseTaxRule(value: unknown, property: string): TaxRule {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(property, `The property ${property} must be an object {country, state_prov, rate}.`);
  }
  const rule = value as Record<string, unknown>;
  if (rule.country === undefined || rule.country === null || rule.country === '') {
    invalid(`${property}.country`, `The property ${property}.country is required.`, 'required');
  }
  const country = parseCountry(rule.country, `${property}.country`);
  const stateProv = rule.state_prov === undefined ? null : parseOptionalText(rule.state_prov, `${property}.state_prov`);
  if (rule.rate === undefined || rule.rate === null) invalid(`${property}.rate`, `The property ${property}.rate is required.`, 'required');
  const rate = numberValue(rule.rate, `${property}.rate`);
  if (rate < 0 || rate >= 1) {
    invalid(`${property}.rate`, `The property ${property}.rate must be a fraction from 0 up to (not including) 1.`, 'out_of_range');
  }
  return { country, state_prov: stateProv, rate };
}

const taxParsers: FieldParsers<TaxValues> = {
  // One rule per country and state/province: a repeat would make "the most specific rule" ambiguous.
  rules: (value, property) =>
    parseList(value, property, parseTaxRule, {
      max: MAX_TAX_RULES,
      key: (rule) => `${rule.country}\u0000${rule.state_prov?.toLowerCase() ?? ''}`,
    }),
  tax_inclusive_countries: parseCountries,
  gross_discount_countries: parseCountries,
  tax_shipping: parseBoolean,
};

/** `/settings/tax` after a change. */
export function applyTaxChanges(current: TaxValues, body: Record<string, unknown>): TaxValues {
  return applyFields(current, body, taxParsers);
}
