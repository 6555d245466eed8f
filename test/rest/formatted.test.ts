import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  formatCountry,
  formatDateTime,
  formatMoney,
  formatPercent,
  isCountryCode,
  resolveLocale,
} from '../../shared/rest/formatted';

// ICU's spacing, spelled out so the expectations are unambiguous.
// ICU's no-break spaces (U+00A0 before € and %, U+202F as the fr-FR thousands separator) are
// written as plain spaces, as in the contract's examples.
const NBSP = ' ';
const NNBSP = ' ';

/** 2026-11-21T14:05:09Z, the contract's example instant. */
const NOV_21 = Date.UTC(2026, 10, 21, 14, 5, 9);
/** 2026-07-04T16:30:00Z, in New York's summer time. */
const JULY_4 = Date.UTC(2026, 6, 4, 16, 30, 0);

describe('locale resolution (conventions §14)', () => {
  const accountDefault = 'en-US';

  it('prefers user_locale over the header and the header over the account default', () => {
    expect(resolveLocale({ userLocale: 'ja-JP', acceptLanguage: 'de-DE', accountDefault })).toBe('ja-JP');
    expect(resolveLocale({ acceptLanguage: 'de-DE', accountDefault })).toBe('de-DE');
    expect(resolveLocale({ accountDefault: 'fr-FR' })).toBe('fr-FR');
    expect(resolveLocale({ userLocale: '', acceptLanguage: '', accountDefault: 'fr-FR' })).toBe('fr-FR');
  });

  it('accepts xx, xx-YY and returns canonical tags', () => {
    expect(resolveLocale({ userLocale: 'de', accountDefault })).toBe('de');
    expect(resolveLocale({ userLocale: 'DE-de', accountDefault })).toBe('de-DE');
    expect(resolveLocale({ userLocale: 'en-gb', accountDefault })).toBe('en-GB');
    expect(resolveLocale({ userLocale: 'ja_JP', accountDefault })).toBe('ja-JP');
    expect(resolveLocale({ userLocale: 'zh-Hant-TW', accountDefault })).toBe('zh-Hant-TW');
    expect(resolveLocale({ userLocale: 'es-419', accountDefault })).toBe('es-419');
    expect(resolveLocale({ userLocale: 'iw-IL', accountDefault })).toBe('he-IL');
  });

  it('drops variants and extensions', () => {
    expect(resolveLocale({ userLocale: 'ja-JP-u-ca-japanese', accountDefault })).toBe('ja-JP');
    expect(resolveLocale({ userLocale: 'de-DE-1996', accountDefault })).toBe('de-DE');
  });

  it('takes the highest-weighted supported entry of a full Accept-Language value', () => {
    expect(resolveLocale({ userLocale: 'de-DE,de;q=0.9,en;q=0.8', accountDefault })).toBe('de-DE');
    expect(resolveLocale({ acceptLanguage: 'en;q=0.8, fr-FR;q=0.9, ja-JP;q=0.7', accountDefault })).toBe('fr-FR');
    expect(resolveLocale({ acceptLanguage: 'tlh;q=1, xx-YY;q=0.95, ja-JP;q=0.5, de;q=0.4', accountDefault })).toBe('ja-JP');
    // Equal weights keep header order; a missing q means 1.
    expect(resolveLocale({ acceptLanguage: 'fr-FR;q=0.5, de-DE;q=0.5, ja', accountDefault })).toBe('ja');
    expect(resolveLocale({ acceptLanguage: 'fr-FR;q=0.5, de-DE;q=0.5', accountDefault })).toBe('fr-FR');
    // q=0 means "not acceptable"; a wildcard names nothing to format with.
    expect(resolveLocale({ acceptLanguage: 'de-DE;q=0, *;q=0.9, fr-FR;q=0.1', accountDefault })).toBe('fr-FR');
  });

  it('falls back from an unsupported xx-YY to xx', () => {
    expect(resolveLocale({ userLocale: 'de-XX', accountDefault })).toBe('de');
    expect(resolveLocale({ userLocale: 'fr-ZZ', accountDefault })).toBe('fr');
    expect(resolveLocale({ acceptLanguage: 'ja-QQ;q=0.9', accountDefault })).toBe('ja');
    // Each range falls back on its own, in weight order, like RFC 4647 lookup.
    expect(resolveLocale({ acceptLanguage: 'de-XX;q=0.9, fr-FR;q=0.8', accountDefault })).toBe('de');
    // Retired region codes are replaced by canonicalisation rather than dropped.
    expect(resolveLocale({ userLocale: 'en-UK', accountDefault: 'de-DE' })).toBe('en-GB');
  });

  it('falls back from an unsupported language to the account default', () => {
    expect(resolveLocale({ userLocale: 'xx-YY', accountDefault: 'de-DE' })).toBe('de-DE');
    expect(resolveLocale({ userLocale: 'tlh', accountDefault: 'ja-JP' })).toBe('ja-JP');
    expect(resolveLocale({ acceptLanguage: 'qaa-US, zxx', accountDefault: 'fr-FR' })).toBe('fr-FR');
    expect(resolveLocale({ userLocale: 'und', accountDefault: 'fr-FR' })).toBe('fr-FR');
  });

  it('lets an unusable user_locale yield to the header before the account default', () => {
    expect(resolveLocale({ userLocale: 'tlh', acceptLanguage: 'fr-FR', accountDefault: 'ja-JP' })).toBe('fr-FR');
  });

  it('never throws on garbage and ends at en-US when nothing is usable', () => {
    const garbage = [
      '!!!', '*', ';q=1', ',,,', 'en-US;q=abc', 'de;q=2', '-', 'x-private', 'i-klingon', '\u0000', '🦄',
      'a'.repeat(10_000), 'en-'.repeat(2_000), 'de-DE;q=0.9'.repeat(500), '12-34', 'root', 'en-US-u-',
    ];
    for (const value of garbage) {
      expect(() => resolveLocale({ userLocale: value, acceptLanguage: value, accountDefault: value })).not.toThrow();
      expect(resolveLocale({ userLocale: value, accountDefault: 'de-DE' })).toBe('de-DE');
    }
    expect(resolveLocale({ userLocale: '!!!', acceptLanguage: '???', accountDefault: '###' })).toBe('en-US');
    const loose = { userLocale: 42, acceptLanguage: null, accountDefault: undefined } as unknown as Parameters<typeof resolveLocale>[0];
    expect(resolveLocale(loose)).toBe('en-US');
  });

  it('drops ranges with malformed weights instead of guessing', () => {
    expect(resolveLocale({ acceptLanguage: 'de-DE;q=2, fr-FR;q=0.5', accountDefault })).toBe('fr-FR');
    expect(resolveLocale({ acceptLanguage: 'de-DE;q=0.0001, ja-JP;q=0.001', accountDefault })).toBe('ja-JP');
  });
});

describe('money', () => {
  it('formats en-US', () => {
    expect(formatMoney(19.99, 'USD', 'en-US')).toBe('$19.99');
    expect(formatMoney(1234.5, 'EUR', 'en-US')).toBe('€1,234.50');
    expect(formatMoney(1234.5, 'JPY', 'en-US')).toBe('¥1,235');
    expect(formatMoney(-5, 'USD', 'en-US')).toBe('-$5.00');
  });

  it('formats de-DE', () => {
    expect(formatMoney(19.99, 'EUR', 'de-DE')).toBe(`19,99${NBSP}€`);
    expect(formatMoney(1234.5, 'EUR', 'de-DE')).toBe(`1.234,50${NBSP}€`);
    expect(formatMoney(19.99, 'USD', 'de-DE')).toBe(`19,99${NBSP}$`);
    expect(formatMoney(1234.5, 'JPY', 'de-DE')).toBe(`1.235${NBSP}¥`);
  });

  it('formats ja-JP', () => {
    expect(formatMoney(1234.5, 'JPY', 'ja-JP')).toBe('￥1,235');
    expect(formatMoney(19.99, 'USD', 'ja-JP')).toBe('$19.99');
    expect(formatMoney(1234.5, 'EUR', 'ja-JP')).toBe('€1,234.50');
  });

  it('formats fr-FR', () => {
    expect(formatMoney(1234.5, 'EUR', 'fr-FR')).toBe(`1${NNBSP}234,50${NBSP}€`);
    expect(formatMoney(19.99, 'USD', 'fr-FR')).toBe(`19,99${NBSP}$US`);
    expect(formatMoney(1234.5, 'JPY', 'fr-FR')).toBe(`1${NNBSP}235${NBSP}JPY`);
  });

  it('shows the currency minor units and rounds like the API', () => {
    expect(formatMoney(1.005, 'USD', 'en-US')).toBe('$1.01');
    expect(formatMoney(-2.5, 'JPY', 'en-US')).toBe('-¥3');
    expect(formatMoney(1.2345, 'BHD', 'en-US')).toBe(`BHD${NBSP}1.235`);
    expect(formatMoney(-0.001, 'USD', 'en-US')).toBe('$0.00');
    expect(formatMoney(0.1 + 0.2, 'EUR', 'de-DE')).toBe(`0,30${NBSP}€`);
  });

  it('accepts lowercase currency codes', () => {
    expect(formatMoney(19.99, 'usd', 'en-US')).toBe('$19.99');
  });

  it('does not throw on a malformed locale', () => {
    expect(formatMoney(19.99, 'USD', '!!bad!!')).toBe('$19.99');
  });
});

describe('dates', () => {
  it('matches the contract example exactly', () => {
    const formatted = formatDateTime(NOV_21, 'UTC', 'en-US');
    expect(formatted).toBe('Nov 21, 2026, 2:05 PM');
    // Plain spaces only, whatever the ICU build puts before AM/PM.
    expect(formatted).not.toMatch(/[\u00a0\u202f]/);
    expect(formatMoney(19.99, 'EUR', 'de-DE')).not.toMatch(/[\u00a0\u202f]/);
  });

  it('formats en-US in three zones', () => {
    expect(formatDateTime(NOV_21, 'America/New_York', 'en-US')).toBe('Nov 21, 2026, 9:05 AM');
    expect(formatDateTime(NOV_21, 'Asia/Tokyo', 'en-US')).toBe('Nov 21, 2026, 11:05 PM');
    expect(formatDateTime(JULY_4, 'America/New_York', 'en-US')).toBe('Jul 4, 2026, 12:30 PM');
  });

  it('formats de-DE in three zones', () => {
    expect(formatDateTime(NOV_21, 'UTC', 'de-DE')).toBe('21.11.2026, 14:05');
    expect(formatDateTime(NOV_21, 'America/New_York', 'de-DE')).toBe('21.11.2026, 09:05');
    expect(formatDateTime(NOV_21, 'Asia/Tokyo', 'de-DE')).toBe('21.11.2026, 23:05');
  });

  it('formats ja-JP in three zones', () => {
    expect(formatDateTime(NOV_21, 'UTC', 'ja-JP')).toBe('2026/11/21 14:05');
    expect(formatDateTime(NOV_21, 'America/New_York', 'ja-JP')).toBe('2026/11/21 9:05');
    expect(formatDateTime(NOV_21, 'Asia/Tokyo', 'ja-JP')).toBe('2026/11/21 23:05');
  });

  it('formats fr-FR in three zones', () => {
    expect(formatDateTime(NOV_21, 'UTC', 'fr-FR')).toBe('21 nov. 2026, 14:05');
    expect(formatDateTime(NOV_21, 'America/New_York', 'fr-FR')).toBe('21 nov. 2026, 09:05');
    expect(formatDateTime(NOV_21, 'Asia/Tokyo', 'fr-FR')).toBe('21 nov. 2026, 23:05');
  });

  it('crosses the date line with the zone', () => {
    const lateUtc = Date.UTC(2026, 10, 21, 20, 0, 0);
    expect(formatDateTime(lateUtc, 'Asia/Tokyo', 'en-US')).toBe('Nov 22, 2026, 5:00 AM');
  });

  it('rejects an unknown zone, which request validation rules out earlier', () => {
    expect(() => formatDateTime(NOV_21, 'Mars/Olympus_Mons', 'en-US')).toThrow(RangeError);
  });
});

describe('percentages', () => {
  it('formats en-US, de-DE, ja-JP and fr-FR', () => {
    expect(formatPercent(0.2, 'en-US')).toBe('20%');
    expect(formatPercent(0.19, 'de-DE')).toBe(`19${NBSP}%`);
    expect(formatPercent(0.2, 'de-DE')).toBe(`20${NBSP}%`);
    expect(formatPercent(0.19, 'ja-JP')).toBe('19%');
    expect(formatPercent(0.2, 'fr-FR')).toBe(`20${NBSP}%`);
  });

  it('keeps up to two fraction digits', () => {
    expect(formatPercent(0.0725, 'en-US')).toBe('7.25%');
    expect(formatPercent(0.0725, 'de-DE')).toBe(`7,25${NBSP}%`);
    expect(formatPercent(0.0725, 'ja-JP')).toBe('7.25%');
    expect(formatPercent(0.075, 'en-US')).toBe('7.5%');
    expect(formatPercent(0.123456, 'en-US')).toBe('12.35%');
    expect(formatPercent(0, 'en-US')).toBe('0%');
  });
});

describe('countries', () => {
  it('names countries in the locale', () => {
    expect(formatCountry('US', 'en-US')).toBe('United States');
    expect(formatCountry('US', 'de-DE')).toBe('Vereinigte Staaten');
    expect(formatCountry('US', 'ja-JP')).toBe('アメリカ合衆国');
    expect(formatCountry('US', 'fr-FR')).toBe('États-Unis');
    expect(formatCountry('DE', 'de-DE')).toBe('Deutschland');
    expect(formatCountry('es', 'en-US')).toBe('Spain');
  });

  it('gives null for null and unknown codes', () => {
    expect(formatCountry(null, 'en-US')).toBeNull();
    for (const code of ['ZZ', 'AA', 'XA', 'EU', 'UK', 'SU', 'USA', 'U', '', '12']) expect(formatCountry(code, 'en-US'), code).toBeNull();
  });

  it('validates ISO 3166-1 alpha-2 codes', () => {
    for (const code of ['US', 'DE', 'JP', 'FR', 'GB', 'AQ', 'XK', 'CW', 'SS', 'us']) expect(isCountryCode(code), code).toBe(true);
    const rejected = ['ZZ', 'AA', 'QO', 'QZ', 'XA', 'XB', 'XZ', 'EU', 'EZ', 'UN', 'UK', 'SU', 'DD', 'YU', 'AN', 'USA', 'U', '', '1A', 'Ü1', ' US'];
    for (const code of rejected) expect(isCountryCode(code), code).toBe(false);
  });

  it('accepts about as many codes as ISO 3166-1 assigns', () => {
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    let count = 0;
    for (const a of letters) for (const b of letters) if (isCountryCode(a + b)) count++;
    // 249 assigned codes plus Kosovo and a few exceptionally reserved territories CLDR names.
    expect(count).toBeGreaterThanOrEqual(249);
    expect(count).toBeLessThanOrEqual(260);
  });
});

describe('formatter caching', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('builds a number formatter once per locale and currency', () => {
    const spy = vi.spyOn(Intl, 'NumberFormat');
    formatMoney(1, 'CHF', 'de-CH');
    const built = spy.mock.calls.length;
    expect(built).toBeGreaterThan(0);
    formatMoney(2, 'CHF', 'de-CH');
    formatMoney(3.5, 'chf', 'de-CH');
    expect(spy.mock.calls.length).toBe(built);
    formatMoney(2, 'EUR', 'de-CH');
    expect(spy.mock.calls.length).toBeGreaterThan(built);
  });

  it('builds a percent formatter once per locale', () => {
    const spy = vi.spyOn(Intl, 'NumberFormat');
    formatPercent(0.1, 'it-IT');
    expect(spy).toHaveBeenCalledTimes(1);
    formatPercent(0.2, 'it-IT');
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('builds a date formatter once per locale and zone', () => {
    const spy = vi.spyOn(Intl, 'DateTimeFormat');
    formatDateTime(NOV_21, 'Europe/Rome', 'it-IT');
    expect(spy).toHaveBeenCalledTimes(1);
    formatDateTime(JULY_4, 'Europe/Rome', 'it-IT');
    expect(spy).toHaveBeenCalledTimes(1);
    formatDateTime(JULY_4, 'Europe/Paris', 'it-IT');
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('builds region names once per locale', () => {
    const spy = vi.spyOn(Intl, 'DisplayNames');
    expect(formatCountry('NL', 'nl-NL')).toBe('Nederland');
    const built = spy.mock.calls.length;
    expect(built).toBeGreaterThan(0);
    expect(formatCountry('BE', 'nl-NL')).toBe('België');
    expect(spy.mock.calls.length).toBe(built);
  });
});
