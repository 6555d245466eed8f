/**
 * The account object of `settings/account.js` and `GET /app_installations/public_settings/...`
 * (hosting.md §7.1): public facts of the account, the mode, today's date and what the
 * browser said about itself. Pure: the caller reads the facts and the clock.
 */
import type { AccountFacts } from './types';

const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency' });

/** `[{code, name}]` with English names, e.g. `[{ code: 'EUR', name: 'Euro' }]`. */
export function currencyList(codes: readonly string[]): Array<{ code: string; name: string }> {
  return codes.map((code) => ({ code, name: currencyNames.of(code) ?? code }));
}

/** Today at midnight UTC, e.g. `2026-11-21T00:00:00Z`. */
export function dateUtc(nowMs: number): string {
  return `${new Date(nowMs).toISOString().slice(0, 10)}T00:00:00Z`;
}

/**
 * The first language tag of an `Accept-Language` header normalised to `xx-YY` or `xx`;
 * `en-US` when there is none or it is not a tag.
 *
 * @example localeOf('de-de,de;q=0.9') → 'de-DE'; localeOf('fr') → 'fr'; localeOf(undefined) → 'en-US'
 */
export function localeOf(acceptLanguage: string | undefined): string {
  const first = acceptLanguage?.split(',')[0]?.split(';')[0]?.trim().replace(/_/g, '-');
  if (!first || first === '*') return 'en-US';
  try {
    const locale = new Intl.Locale(first);
    return locale.region ? `${locale.language}-${locale.region}` : locale.language;
  } catch {
    return 'en-US';
  }
}

/** `browser_info`: the raw headers (null when absent) and the locale and language they give. */
export function browserInfo(headers: Readonly<Record<string, string | undefined>>): Record<string, string | null> {
  const locale = localeOf(headers['accept-language']);
  return {
    accept_language: headers['accept-language'] ?? null,
    locale,
    language: locale.split('-')[0]!,
    accept: headers.accept ?? null,
    user_agent: headers['user-agent'] ?? null,
  };
}

/** What the account object is built from besides the stored facts. */
export interface AccountObjectInput {
  accountId: string;
  /** The mode of the alias (or of the public route's path segment). */
  test: boolean;
  facts: AccountFacts;
  nowMs: number;
  headers: Readonly<Record<string, string | undefined>>;
}

/** The account object, every key of §7.1 in its order; `payment_method_types` is always an array. */
export function accountObject(input: AccountObjectInput): Record<string, unknown> {
  const { facts } = input;
  return {
    account_id: input.accountId,
    test: input.test,
    company_name: facts.company_name,
    support_email: facts.support_email,
    support_website: facts.support_website,
    currencies: currencyList(facts.currencies),
    allow_save_cards: facts.allow_save_cards,
    payment_method_types: [...facts.payment_method_types],
    stripe_publishable_key: (input.test ? facts.stripe_publishable_keys?.test : facts.stripe_publishable_keys?.live) ?? null,
    date_utc: dateUtc(input.nowMs),
    browser_info: browserInfo(input.headers),
  };
}
