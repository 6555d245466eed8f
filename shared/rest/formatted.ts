/**
 * Display strings for `formatted=true` output (conventions §14): the locale in effect, money,
 * dates, percentages and country names. Everything comes from the platform's Intl data; the
 * formatters are costly to build and used on every formatted property, so each is built once
 * per locale/currency/zone and reused.
 */
import { roundMoney } from './money';

/** Used when even the account default is unusable, so formatting never fails on a locale. */
const FALLBACK_LOCALE = 'en-US';

/**
 * Caches are keyed partly by request-supplied text, so they are capped; the oldest entry goes
 * first. Real traffic uses a few dozen locales, far below the cap.
 */
const CACHE_LIMIT = 500;

/** At most this many Accept-Language entries are considered; real browsers send under ten. */
const MAX_LANGUAGE_RANGES = 32;

/** Returns the cached value for key, building and storing it on a miss. */
function cached<V>(cache: Map<string, V>, key: string, build: () => V): V {
  const hit = cache.get(key);
  if (hit !== undefined || cache.has(key)) return hit as V;
  const value = build();
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(key, value);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Locale resolution

/** Raw language tag → supported canonical tag, or null when neither it nor its language is. */
const supportedByTag = new Map<string, string | null>();

/** The locale for formatted output, as a canonical tag ('de-DE'): `user_locale` (`xx`, `xx-YY` or an Accept-Language value), else the Accept-Language header, else the account default; never throws. */
export function resolveLocale(input: { userLocale?: string; acceptLanguage?: string; accountDefault: string }): string {
  // A source that names nothing usable yields to the next one rather than jumping straight to
  // the account default: an unusable user_locale should not hide the browser's own preference.
  return (
    firstSupported(input.userLocale) ??
    firstSupported(input.acceptLanguage) ??
    firstSupported(input.accountDefault) ??
    FALLBACK_LOCALE
  );
}

/** The first supported tag of an Accept-Language-style value, by q weight then order. */
function firstSupported(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const ranges: { tag: string; q: number; order: number }[] = [];
  for (const part of value.split(',', MAX_LANGUAGE_RANGES)) {
    const [tagPart, ...params] = part.split(';');
    const tag = tagPart?.trim() ?? '';
    if (tag === '' || tag === '*') continue;
    let q = 1;
    for (const param of params) {
      const [name, weight] = param.split('=').map((s) => s.trim());
      if (name?.toLowerCase() !== 'q') continue;
      // RFC 9110 qvalues: 0 to 1 with up to three decimals; anything else drops the range.
      q = weight !== undefined && /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(weight) ? Number(weight) : 0;
    }
    if (q > 0) ranges.push({ tag, q, order: ranges.length });
  }
  ranges.sort((a, b) => b.q - a.q || a.order - b.order);
  for (const { tag } of ranges) {
    const supported = supportedTag(tag);
    if (supported) return supported;
  }
  return undefined;
}

/**
 * One language tag made canonical and reduced to language[-script][-region]. A region the
 * platform does not know (`de-XX`) falls back to the bare language (`de`); a language without
 * locale data gives null.
 */
function supportedTag(raw: string): string | null {
  return cached(supportedByTag, raw, () => {
    let locale: Intl.Locale;
    try {
      // Underscores are a common slip (`de_DE`); canonicalising fixes case and aliases (iw → he).
      const canonical = Intl.getCanonicalLocales(raw.replaceAll('_', '-'))[0];
      if (canonical === undefined) return null;
      locale = new Intl.Locale(canonical);
    } catch {
      return null;
    }
    const { language, script, region } = locale;
    if (!language || language === 'und') return null;
    const base = script ? `${language}-${script}` : language;
    if (Intl.NumberFormat.supportedLocalesOf(base, { localeMatcher: 'lookup' }).length === 0) return null;
    // Variants and -u- extensions are dropped on purpose: they would switch calendars, digits
    // or hour cycles, and the contract only speaks of `xx` and `xx-YY`.
    return region !== undefined && isKnownRegion(region) ? `${base}-${region}` : base;
  });
}

/** A region subtag the platform can name: a country code, or a UN M.49 area such as 419. */
function isKnownRegion(region: string): boolean {
  if (/^\d{3}$/.test(region)) return regionNames('en').of(region) !== undefined;
  return isCountryCode(region);
}

// ---------------------------------------------------------------------------------------------
// Formatters

const moneyFormatters = new Map<string, Intl.NumberFormat>();
const percentFormatters = new Map<string, Intl.NumberFormat>();
const dateTimeFormatters = new Map<string, Intl.DateTimeFormat>();
const regionNameLists = new Map<string, Intl.DisplayNames>();

/** The locale itself when well-formed, else the fallback, so a bad tag never throws here. */
function usableLocale(locale: string): string {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? FALLBACK_LOCALE;
  } catch {
    return FALLBACK_LOCALE;
  }
}

/** Money for display in the currency's conventions and the locale: '$19.99' (USD, en-US), '19,99 €' (EUR, de-DE), '¥1,235' (JPY, en-US). */
export function formatMoney(amount: number, currency: string, locale: string): string {
  const code = currency.toUpperCase();
  const formatter = cached(moneyFormatters, `${locale}|${code}`, () =>
    new Intl.NumberFormat(usableLocale(locale), { style: 'currency', currency: code }),
  );
  // Round with the API's own rule first so the display always agrees with the JSON number
  // (and -0.001 shows as 0.00, not -0.00).
  return plainSpaces(formatter.format(roundMoney(amount, code)));
}

/**
 * ICU separates with U+00A0 or U+202F, differently across builds; the contract's examples
 * ('19,99 €', '19 %', 'Nov 21, 2026, 2:05 PM') and the storefront clients that compare with
 * them use plain spaces, so every formatted string does.
 */
function plainSpaces(text: string): string {
  return text.replace(/[\u202f\u00a0]/g, ' ');
}

/** A timestamp as a medium date with short time in an IANA zone: 'Nov 21, 2026, 2:05 PM' (en-US), '21.11.2026, 14:05' (de-DE), '2026/11/21 14:05' (ja-JP). */
export function formatDateTime(epochMs: number, zone: string, locale: string): string {
  const formatter = cached(dateTimeFormatters, `${locale}|${zone}`, () =>
    new Intl.DateTimeFormat(usableLocale(locale), { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }),
  );
  // An unknown zone throws RangeError; §13 validation rules that out before rendering.
  return plainSpaces(formatter.format(epochMs));
}

/** A fraction as a percentage with up to two fraction digits: 0.2 → '20%' (en-US), 0.19 → '19 %' (de-DE), 0.0725 → '7.25%'. */
export function formatPercent(fraction: number, locale: string): string {
  const formatter = cached(percentFormatters, locale, () =>
    new Intl.NumberFormat(usableLocale(locale), { style: 'percent', maximumFractionDigits: 2 }),
  );
  return plainSpaces(formatter.format(fraction));
}

/** Region names in a locale; fallback 'none' makes unknown codes come back undefined. */
function regionNames(locale: string): Intl.DisplayNames {
  return cached(regionNameLists, locale, () => new Intl.DisplayNames(usableLocale(locale), { type: 'region', fallback: 'none' }));
}

/** A country's display name in the locale ('US' → 'United States' / 'Vereinigte Staaten'), or null for null or unknown codes. */
export function formatCountry(code: string | null, locale: string): string | null {
  if (code === null || !isCountryCode(code)) return null;
  return regionNames(locale).of(code.toUpperCase()) ?? null;
}

// ---------------------------------------------------------------------------------------------
// Country codes

/** Validity per uppercase two-letter code; at most 676 entries. */
const countryCodeValidity = new Map<string, boolean>();

/**
 * Codes the platform names that are not places a customer can live in: ISO 3166-1's
 * user-assigned ranges (AA, QM–QZ, XA–XZ, ZZ: 'Unknown Region', pseudo-locales), except XK,
 * which CLDR gives to Kosovo, and the groupings EU, EZ and UN.
 */
const NOT_A_COUNTRY = /^(?:AA|Q[M-Z]|X[A-JL-Z]|ZZ|EU|EZ|UN)$/;

/** Whether a code is a known ISO 3166-1 alpha-2 country, case-insensitive ('US', 'XK' yes; 'ZZ', 'EU' and retired codes such as 'UK', 'SU' no). */
export function isCountryCode(code: string): boolean {
  if (typeof code !== 'string' || !/^[A-Za-z]{2}$/.test(code)) return false;
  const upper = code.toUpperCase();
  let valid = countryCodeValidity.get(upper);
  if (valid === undefined) {
    valid =
      !NOT_A_COUNTRY.test(upper) &&
      regionNames('en').of(upper) !== undefined &&
      // Retired codes still have names (DisplayNames maps SU to Russia); canonicalisation
      // replaces them, so a code that survives it unchanged is current.
      new Intl.Locale(`und-${upper}`).region === upper;
    countryCodeValidity.set(upper, valid);
  }
  return valid;
}
