/**
 * Account settings records (commerce.md section 13): their stored shapes, their defaults and
 * typed readers for the modules that need them. Settings are account-wide (shared by both
 * modes), one item per group under the account partition (`settings#<group>`).
 *
 * - `technical` and `general` are written at account creation.
 * - `payment` and `tax` may not exist yet; their defaults apply until the first change.
 * - `cors_allowed_origins` and `oauth_redirect_uris` are stored once, in the technical item;
 *   `/settings/general` shows and writes the same values.
 * - Every item carries a `version` (absent means 0) that each write checks and increments.
 *
 * The settings API lives in `settings-actions.ts`; the request bodies in `settings-schemas.ts`,
 * and the rules joining their fields in `settings-validation.ts`.
 */
import { readSettingsItem } from './account-store';

export { readSettingsItem } from './account-store';

/** The settings groups of `/settings/{group}`. */
export const SETTINGS_GROUPS = ['technical', 'general', 'payment', 'tax'] as const;

/** A settings group name. */
export type SettingsGroup = (typeof SETTINGS_GROUPS)[number];

/** Whether a path word names a settings group. */
export function isSettingsGroup(value: string): value is SettingsGroup {
  return (SETTINGS_GROUPS as readonly string[]).includes(value);
}

/** `/settings/technical` as stored. */
export interface TechnicalSettings {
  timezone: string;
  locale: string;
  /** Exact `scheme://host[:port]` strings, compared as-is with the `Origin` header. */
  cors_allowed_origins: string[];
  oauth_redirect_uris: string[];
  allow_public_limited_test_tokens: boolean;
  /** Sealed with the secrets port (purpose `signature_key:<account_id>`). */
  signature_key_sealed: string;
  invoice_payment_url: string | null;
  /** Write counter for optimistic concurrency (absent on items never changed through the API). */
  version?: number;
}

/** The technical values that the API reads and writes (everything but the sealed key and version). */
export type TechnicalValues = Omit<TechnicalSettings, 'signature_key_sealed' | 'version'>;

/** `/settings/general` as stored (the CORS and redirect lists live in the technical item). */
export interface GeneralSettings {
  company_name: string | null;
  support_email: string | null;
  support_website: string | null;
  /** Verified sender addresses; the first is the default `From`. */
  notification_from_addresses: string[];
  reporting_currency_primary: string | null;
  reporting_currency_secondary: string | null;
  version?: number;
}

/** The general values that the API reads and writes. */
export type GeneralValues = Omit<GeneralSettings, 'version'>;

/** Tokens of `customer_required_fields` (commerce.md section 3.4). */
export const CUSTOMER_FIELD_TOKENS = [
  'name',
  'email',
  'company_name',
  'phone',
  'tax_number',
  'country',
  'postal_code',
  'full_address',
] as const;

/** Tokens of `customer_optional_fields`: the same plus `credentials`. */
export const CUSTOMER_OPTIONAL_FIELD_TOKENS = [...CUSTOMER_FIELD_TOKENS, 'credentials'] as const;

/** A `customer_required_fields` token. */
export type CustomerFieldToken = (typeof CUSTOMER_FIELD_TOKENS)[number];

/** A `customer_optional_fields` token. */
export type CustomerOptionalFieldToken = (typeof CUSTOMER_OPTIONAL_FIELD_TOKENS)[number];

/**
 * Card brand display names the built-in gateway recognises from the leading digits: the
 * default of `/settings/payment.card_types`. The brand detection of the test gateway should
 * use these names so that `payment_method.data.type` matches what storefronts show.
 */
export const CARD_BRANDS: readonly string[] = Object.freeze([
  'Visa',
  'Mastercard',
  'American Express',
  'Discover',
  'JCB',
  'Diners Club',
]);

/** `/settings/payment` with defaults applied. */
export interface PaymentSettings {
  /** ISO 4217, uppercase; always one of `currencies`. */
  default_payment_currency: string;
  currencies: string[];
  settlement_currency: string;
  /** Units per one unit of the default currency; one entry per non-default currency. */
  exchange_rates: Record<string, number>;
  card_types: string[];
  allow_save_cards: boolean;
  /** Seconds; 0 turns duplicate detection off. */
  duplicate_payment_timeout: number;
  ignore_bad_cvv: boolean;
  ignore_bad_avs: boolean;
  /** ISO 3166-1 alpha-2, uppercase. */
  blocked_countries: string[];
  customer_required_fields: CustomerFieldToken[];
  customer_optional_fields: CustomerOptionalFieldToken[];
  allow_customer_subscription_cancel: boolean;
  /** Days after a failed renewal, strictly increasing, each 1–30, at most 5. */
  subscription_payment_retry_days: number[];
  /** The account's own Stripe connection for live-mode charges (commerce.md §4.7), or null. */
  stripe_live: StoredStripeConnection | null;
  /** The same for test mode (Stripe's test mode instead of the built-in gateway), or null. */
  stripe_test: StoredStripeConnection | null;
  /** Raw card numbers may be passed to Stripe (§4.7); otherwise only `pm_…` tokens. */
  allow_raw_card_data: boolean;
  version?: number;
}

/**
 * A Stripe connection as stored: the publishable key in clear, the two secrets sealed with the
 * secrets port (purpose `stripe:<account_id>:<mode>`) and kept as a hint (prefix and last four)
 * for reading back.
 */
export interface StoredStripeConnection {
  publishable_key: string;
  secret_key_sealed: string;
  secret_key_hint: string;
  webhook_secret_sealed: string | null;
  webhook_secret_hint: string | null;
}

/** The secrets purpose of an account's Stripe secrets in `mode`. */
export function stripeSecretPurpose(accountId: string, mode: 'live' | 'test'): string {
  return `stripe:${accountId}:${mode}`;
}

declare module '../../rest/render-context' {
  /** Rendering carries the whole payment settings of the account (see RenderedPaymentSettings). */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface RenderedPaymentSettings extends PaymentSettings {}
}

/** The payment values that the API reads and writes. */
export type PaymentValues = Omit<PaymentSettings, 'version'>;

/** One tax rule: the rate of a country, or of one state or province of it. */
export interface TaxRule {
  /** ISO 3166-1 alpha-2, uppercase. */
  country: string;
  /** Null for the whole country; otherwise compared with the address's `state_prov`. */
  state_prov: string | null;
  /** A fraction, 0 ≤ rate < 1 (0.2 = 20 %). */
  rate: number;
}

/** `/settings/tax` with defaults applied. */
export interface TaxSettings {
  rules: TaxRule[];
  tax_inclusive_countries: string[];
  gross_discount_countries: string[];
  tax_shipping: boolean;
  version?: number;
}

/** The tax values that the API reads and writes. */
export type TaxValues = Omit<TaxSettings, 'version'>;

/** Defaults of a new account's technical settings (the signature key is added by the caller). */
export function defaultTechnicalSettings(): TechnicalValues {
  return {
    timezone: 'UTC',
    locale: 'en-US',
    cors_allowed_origins: [],
    oauth_redirect_uris: [],
    allow_public_limited_test_tokens: false,
    invoice_payment_url: null,
  };
}

/** Defaults of the general settings not written at account creation. */
export function defaultGeneralSettings(): GeneralValues {
  return {
    company_name: null,
    support_email: null,
    support_website: null,
    notification_from_addresses: [],
    reporting_currency_primary: 'USD',
    reporting_currency_secondary: null,
  };
}

/** Defaults of `/settings/payment` (commerce.md section 13.2). */
export function defaultPaymentSettings(): PaymentValues {
  return {
    default_payment_currency: 'USD',
    currencies: ['USD'],
    settlement_currency: 'USD',
    exchange_rates: {},
    card_types: [...CARD_BRANDS],
    allow_save_cards: true,
    duplicate_payment_timeout: 120,
    ignore_bad_cvv: false,
    ignore_bad_avs: false,
    blocked_countries: [],
    customer_required_fields: ['name', 'email', 'country'],
    customer_optional_fields: ['company_name', 'phone', 'postal_code'],
    allow_customer_subscription_cancel: true,
    subscription_payment_retry_days: [1, 3, 5],
    stripe_live: null,
    stripe_test: null,
    allow_raw_card_data: false,
  };
}

/** Defaults of `/settings/tax` (commerce.md section 13.3). */
export function defaultTaxSettings(): TaxValues {
  return { rules: [], tax_inclusive_countries: [], gross_discount_countries: [], tax_shipping: true };
}

/**
 * The defaults overlaid with the stored values of the known fields (stored items may predate
 * a field). Key attributes and unknown attributes are left out; `version` is kept.
 */
export function withDefaults<T extends object>(defaults: T, item: Record<string, unknown> | undefined): T & { version?: number } {
  const out: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  if (!item) return out as T & { version?: number };
  for (const name of Object.keys(defaults)) {
    if (item[name] !== undefined) out[name] = item[name];
  }
  if (typeof item.version === 'number') out.version = item.version;
  return out as T & { version?: number };
}

/** Reads an account's technical settings (undefined for an unknown account). */
export async function readTechnicalSettings(accountId: string): Promise<TechnicalSettings | undefined> {
  const item = await readSettingsItem(accountId, 'technical');
  if (!item) return undefined;
  return { ...withDefaults(defaultTechnicalSettings(), item), signature_key_sealed: String(item.signature_key_sealed ?? '') };
}

/** Reads an account's general settings, defaults applied (all defaults for an unknown account). */
export async function readGeneralSettings(accountId: string): Promise<GeneralSettings> {
  return withDefaults(defaultGeneralSettings(), await readSettingsItem(accountId, 'general'));
}

/** Reads an account's payment settings, defaults applied where nothing was saved yet. */
export async function readPaymentSettings(accountId: string): Promise<PaymentSettings> {
  return withDefaults(defaultPaymentSettings(), await readSettingsItem(accountId, 'payment'));
}

/** Reads an account's tax settings, defaults applied where nothing was saved yet. */
export async function readTaxSettings(accountId: string): Promise<TaxSettings> {
  return withDefaults(defaultTaxSettings(), await readSettingsItem(accountId, 'tax'));
}

/** The secrets purpose of an account's signature key. */
export function signatureKeyPurpose(accountId: string): string {
  return `signature_key:${accountId}`;
}
