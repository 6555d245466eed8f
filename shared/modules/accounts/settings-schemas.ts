/**
 * Request bodies of `POST /settings/{group}` (commerce.md §13), one per group, declared once:
 * validation, types and OpenAPI. Every property is optional (a partial update); unknown and
 * read-only ones (`object`, `type`, `url`, `app_hosts`, `signature_key`) are discarded, so a
 * client can post back a whole object it read. `null` clears the nullable fields and is
 * refused by the others; an empty or blank optional string is null.
 *
 * What is checked here is what one value shows on its own (form, range, repeats in a list).
 * The rules that join fields (currencies and their rates) need the stored values and stay in
 * `settings-validation.ts`, over the parsed body.
 */
import { body, nested, freeRecord, countryCode, currencyCode, decimal, flag, languageTag, list, oneOf, reason, type Reason, z } from '../../rest/fields';
import { timeZoneName } from '../../rest/dates';
import { isCurrencyCode } from '../../rest/money';
import { CUSTOMER_FIELD_TOKENS, CUSTOMER_OPTIONAL_FIELD_TOKENS, type SettingsGroup } from './settings';

/** Longest accepted name-like string (company name, state or province). */
export const MAX_NAME_LENGTH = 200;
/** Longest accepted URL or URL template. */
export const MAX_URL_LENGTH = 2000;
/** Most entries of a list setting (origins, redirect URIs, field tokens). */
export const MAX_LIST_ENTRIES = 100;
/** Most tax rules. */
export const MAX_TAX_RULES = 1000;
/** Largest exchange rate (units per one unit of the default currency). */
const MAX_RATE = 1e12;

// ---------------------------------------------------------------------------------------------
// Values

/**
 * A list whose entries must differ by `key`: a repeat is refused at its own index with reason
 * `conflict` rather than silently merged.
 */
function distinctList<T extends z.ZodType>(entry: T, max = MAX_LIST_ENTRIES, key: (value: z.output<T>) => string = String) {
  return list(entry, max).superRefine((entries, context) => {
    const seen = new Set<string>();
    entries.forEach((value, index) => {
      const name = key(value);
      if (seen.has(name)) context.addIssue({ code: 'custom', path: [index], message: 'repeats an earlier entry', params: { reason: 'conflict' } });
      seen.add(name);
    });
  });
}

/** An optional text, trimmed: null, `''` and blank are null; at most `max` characters. */
function trimmedText(max = MAX_NAME_LENGTH) {
  return z
    .string({ error: 'must be a string or null' })
    .transform((value) => value.trim())
    .pipe(z.string().max(max, { error: `must be at most ${max} characters` }))
    .transform((value) => (value === '' ? null : value))
    .nullable();
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email address (trimmed), at most 254 characters. */
function emailAddress() {
  return z
    .string({ error: 'must be an email address' })
    .transform((value) => value.trim())
    .pipe(z.string().max(254, { error: 'must be at most 254 characters' }).regex(EMAIL, { error: 'must be a valid email address' }));
}

/** An optional email address: null, `''` or blank is null. */
function optionalEmailAddress() {
  return z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? null : value), emailAddress().nullable());
}

/** An absolute http(s) URL, or undefined when the text is not one. */
function httpUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

/** An optional absolute http(s) URL (a website); null or `''` is null. */
const website = trimmedText(MAX_URL_LENGTH).refine((text) => text === null || (httpUrl(text) !== undefined && !/\s/.test(text)), {
  message: 'must be an absolute http or https URL',
});

/**
 * The invoice pay-link template: an absolute http(s) URL once `{{invoice_id}}` and `{{token}}`
 * are filled in (both optional), or null.
 */
const invoicePaymentUrl = trimmedText(MAX_URL_LENGTH).refine(
  (text) => text === null || (httpUrl(text.replaceAll('{{invoice_id}}', 'INVOICE').replaceAll('{{token}}', 'TOKEN')) !== undefined && !/\s/.test(text)),
  { message: 'must be an absolute http or https URL (it may contain {{invoice_id}} and {{token}})' },
);

const ZONE_MESSAGE = 'must be an IANA time zone name or UTC';

/** An IANA zone name or `UTC`, matched case-insensitively; stored canonical (`america/new_york` → `America/New_York`). */
const timeZone = z
  .string({ error: ZONE_MESSAGE })
  .refine((name) => timeZoneName(name) !== undefined, { message: ZONE_MESSAGE })
  .transform((name) => timeZoneName(name)!);

const ORIGIN_MESSAGE = 'must be an origin such as https://shop.example.com (scheme, host and optional port; no path or trailing slash)';

/**
 * A browser origin, exactly as browsers send it: `scheme://host[:port]` with http or https,
 * lowercase host, no default port, no path (not even `/`), query, fragment or credentials.
 * Nothing is normalised: a value that is not already in that form is refused, because the
 * `Origin` header is compared with it character for character.
 */
const origin = z
  .string({ error: ORIGIN_MESSAGE })
  .refine((value) => value.length <= MAX_URL_LENGTH && !value.includes('*') && httpUrl(value)?.origin === value, { message: ORIGIN_MESSAGE });

/** Hosts where a plain-http sign-in redirect is allowed (a developer's own machine). */
function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname.endsWith('.localhost');
}

const REDIRECT_MESSAGE = 'must be an absolute https URL without a fragment';

/** What is wrong with a sign-in redirect URI, or undefined when nothing is. */
function redirectProblem(value: string): { message: string; reason: Reason } | undefined {
  const url = value.length <= MAX_URL_LENGTH && !/\s/.test(value) ? httpUrl(value) : undefined;
  if (!url || url.hash || value.includes('#') || url.username || url.password) return { message: REDIRECT_MESSAGE, reason: 'invalid' };
  if (url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) return { message: 'must use https (plain http is allowed only for localhost)', reason: 'not_allowed' };
  return undefined;
}

/**
 * A sign-in redirect URI: absolute, https (plain http only for localhost, 127.0.0.1 and
 * `*.localhost`), without a fragment. Stored as sent: sign-in compares it exactly.
 */
const redirectUri = z.string({ error: REDIRECT_MESSAGE }).superRefine((value, context) => {
  const problem = redirectProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem.message, params: { reason: problem.reason } });
});

/** A card brand display name (1–50 characters, trimmed). */
const cardType = z
  .string({ error: 'must be a card brand name' })
  .transform((value) => value.trim())
  .pipe(z.string().refine((name) => name !== '', { message: 'must be a card brand name' }).max(50, { error: 'must be at most 50 characters' }));

/** Exchange rates: `{CODE: number > 0}`, codes case-insensitive in, uppercase out, each currency once. */
const exchangeRates = freeRecord(
  decimal().refine((rate) => rate > 0 && rate <= MAX_RATE, reason('out_of_range', 'must be greater than 0')),
  'must be an object such as {"EUR": 0.92}',
)
  .superRefine((rates, context) => {
    const seen = new Set<string>();
    for (const code of Object.keys(rates)) {
      if (!isCurrencyCode(code)) {
        context.addIssue({ code: 'custom', path: [code], message: 'is not named by an ISO 4217 currency code' });
        continue;
      }
      const upper = code.toUpperCase();
      if (seen.has(upper)) context.addIssue({ code: 'custom', path: [code], message: `names ${upper} a second time`, params: { reason: 'conflict' } });
      seen.add(upper);
    }
  })
  .transform((rates) => Object.fromEntries(Object.entries(rates).map(([code, rate]) => [code.toUpperCase(), rate])));

/** Retry days: at most 5 integers, each 1–30, strictly increasing. */
const retryDays = list(decimal({ integer: true, min: 1, max: 30 }), 5).superRefine((days, context) => {
  days.forEach((day, index) => {
    if (index > 0 && day <= days[index - 1]!) context.addIssue({ code: 'custom', path: [index], message: 'must be greater than the day before it' });
  });
});

/** One tax rule `{country, state_prov, rate}`; `state_prov` may be absent or null (the whole country). */
const taxRule = z
  .object(
    {
      country: countryCode(),
      state_prov: trimmedText().optional(),
      rate: decimal().refine((rate) => rate >= 0 && rate < 1, reason('out_of_range', 'must be a fraction from 0 up to (not including) 1')),
    },
    { error: 'must be an object {country, state_prov, rate}' },
  )
  .transform((rule) => ({ country: rule.country, state_prov: rule.state_prov ?? null, rate: rule.rate }));

/** A list of country codes (uppercase out, no repeats). */
const countries = () => distinctList(countryCode(), 300);
const origins = () => distinctList(origin);
const redirectUris = () => distinctList(redirectUri);

// ---------------------------------------------------------------------------------------------
// Bodies

/** `POST /settings/technical`; `rotate_signature_key: true` rotates the key (write-only). */
export const technicalSettingsUpdate = body({
  timezone: timeZone.optional(),
  locale: languageTag(64).optional(),
  cors_allowed_origins: origins().optional(),
  oauth_redirect_uris: redirectUris().optional(),
  allow_public_limited_test_tokens: flag().optional(),
  invoice_payment_url: invoicePaymentUrl.optional(),
  rotate_signature_key: flag().optional(),
});

/** `POST /settings/general`, including the CORS and redirect lists it shares with technical. */
export const generalSettingsUpdate = body({
  company_name: trimmedText().optional(),
  support_email: optionalEmailAddress().optional(),
  support_website: website.optional(),
  notification_from_addresses: distinctList(emailAddress(), 20, (address) => address.toLowerCase()).optional(),
  reporting_currency_primary: z.preprocess((value) => (value === '' ? null : value), currencyCode().nullable()).optional(),
  reporting_currency_secondary: z.preprocess((value) => (value === '' ? null : value), currencyCode().nullable()).optional(),
  cors_allowed_origins: origins().optional(),
  oauth_redirect_uris: redirectUris().optional(),
});

/** A key of a Stripe connection: its prefix, then letters, digits and underscores (Stripe's key alphabet). */
function stripeKey(prefix: RegExp, what: string) {
  return z.string({ error: 'must be a string' }).max(255, { error: 'must be at most 255 characters' })
    .regex(prefix, { error: `must be a Stripe ${what}` });
}

/**
 * `stripe_live` / `stripe_test` (commerce.md §4.7): `{publishable_key, secret_key, webhook_secret}`,
 * or null to disconnect. A connection already saved may be changed in part (an omitted secret is kept).
 */
const stripeConnection = nested({
  publishable_key: stripeKey(/^pk_(live|test)_[A-Za-z0-9_]{4,}$/, 'publishable key (pk_live_… or pk_test_…)').optional(),
  secret_key: stripeKey(/^(sk|rk)_(live|test)_[A-Za-z0-9_]{4,}$/, 'secret key (sk_… or a restricted rk_…)').optional(),
  webhook_secret: stripeKey(/^whsec_[A-Za-z0-9_]{4,}$/, 'webhook signing secret (whsec_…)').nullable().optional(),
});

/** A parsed `stripe_live` / `stripe_test`. */
export type StripeConnectionInput = z.output<typeof stripeConnection>;

/** `POST /settings/payment`; how the currencies, rates and default fit together is checked on the merged result. */
export const paymentSettingsUpdate = body({
  default_payment_currency: currencyCode().optional(),
  currencies: distinctList(currencyCode(), 200)
    .min(1, { error: 'must name at least one currency' })
    .optional(),
  settlement_currency: currencyCode().optional(),
  exchange_rates: exchangeRates.optional(),
  card_types: distinctList(cardType, 20, (name) => name.toLowerCase()).optional(),
  allow_save_cards: flag().optional(),
  duplicate_payment_timeout: decimal({ integer: true, min: 0, max: 86_400 }).optional(),
  ignore_bad_cvv: flag().optional(),
  ignore_bad_avs: flag().optional(),
  blocked_countries: countries().optional(),
  customer_required_fields: distinctList(oneOf(CUSTOMER_FIELD_TOKENS)).optional(),
  customer_optional_fields: distinctList(oneOf(CUSTOMER_OPTIONAL_FIELD_TOKENS)).optional(),
  allow_customer_subscription_cancel: flag().optional(),
  subscription_payment_retry_days: retryDays.optional(),
  stripe_live: stripeConnection.optional(),
  stripe_test: stripeConnection.optional(),
  allow_raw_card_data: flag().optional(),
});

/** `POST /settings/tax`. One rule per country and state/province: a repeat would make "the most specific rule" ambiguous. */
export const taxSettingsUpdate = body({
  rules: distinctList(taxRule, MAX_TAX_RULES, (rule) => `${rule.country}\u0000${rule.state_prov?.toLowerCase() ?? ''}`).optional(),
  tax_inclusive_countries: countries().optional(),
  gross_discount_countries: countries().optional(),
  tax_shipping: flag().optional(),
});

/** The body schema of each group: the group is a path word, so the action picks the schema. */
export const settingsUpdates = {
  technical: technicalSettingsUpdate,
  general: generalSettingsUpdate,
  payment: paymentSettingsUpdate,
  tax: taxSettingsUpdate,
} as const satisfies Record<SettingsGroup, z.ZodType>;

/** The parsed body of each group's update. */
export type SettingsInputs = { [G in SettingsGroup]: z.output<(typeof settingsUpdates)[G]> };
