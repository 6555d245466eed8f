import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatTimestamp, resolveTimeZone, timestamp, zoneInEffect } from '../../shared/rest/dates';

// The system database may be newer or older than the runtime's ICU; only names both know count.
function isIntlZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const invalidTimezone = expect.objectContaining({
  status: 400,
  code: 'invalid_input',
  meta: { parameter: 'timezone', reason: 'invalid' },
});

describe('resolveTimeZone (conventions.md 13)', () => {
  it('matches IANA names case-insensitively and answers the canonical spelling', () => {
    expect(resolveTimeZone('America/New_York')).toBe('America/New_York');
    expect(resolveTimeZone('america/new_york')).toBe('America/New_York');
    expect(resolveTimeZone('AMERICA/NEW_YORK')).toBe('America/New_York');
    expect(resolveTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(resolveTimeZone('america/sao_paulo')).toBe('America/Sao_Paulo');
    expect(resolveTimeZone('Africa/Dar_es_Salaam'.toUpperCase())).toBe('Africa/Dar_es_Salaam');
    expect(resolveTimeZone('america/port-au-prince')).toBe('America/Port-au-Prince');
  });

  it('accepts UTC in any case', () => {
    expect(resolveTimeZone('UTC')).toBe('UTC');
    expect(resolveTimeZone('utc')).toBe('UTC');
    expect(resolveTimeZone('Utc')).toBe('UTC');
  });

  it('keeps the IANA name the client chose, in its IANA spelling, rather than an older ICU id', () => {
    // Intl alone would answer Asia/Calcutta, Europe/Kiev, Asia/Saigon, America/Buenos_Aires.
    expect(resolveTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(resolveTimeZone('asia/kolkata')).toBe('Asia/Kolkata');
    expect(resolveTimeZone('asia/calcutta')).toBe('Asia/Calcutta');
    expect(resolveTimeZone('europe/kyiv')).toBe('Europe/Kyiv');
    expect(resolveTimeZone('asia/ho_chi_minh')).toBe('Asia/Ho_Chi_Minh');
    expect(resolveTimeZone('america/argentina/buenos_aires')).toBe('America/Argentina/Buenos_Aires');
    expect(resolveTimeZone('AMERICA/INDIANA/INDIANAPOLIS')).toBe('America/Indiana/Indianapolis');
  });

  it('spells links and legacy names as IANA does', () => {
    expect(resolveTimeZone('us/eastern')).toBe('US/Eastern');
    expect(resolveTimeZone('etc/utc')).toBe('Etc/UTC');
    expect(resolveTimeZone('etc/gmt+5')).toBe('Etc/GMT+5');
    expect(resolveTimeZone('gmt')).toBe('GMT');
    expect(resolveTimeZone('est5edt')).toBe('EST5EDT');
    expect(resolveTimeZone('australia/nsw')).toBe('Australia/NSW');
    expect(resolveTimeZone('america/knox_in')).toBe('America/Knox_IN');
    expect(resolveTimeZone('nz-chat')).toBe('NZ-CHAT');
    expect(resolveTimeZone('brazil/denoronha')).toBe('Brazil/DeNoronha');
    expect(resolveTimeZone('pacific/yap')).toBe('Pacific/Yap');
  });

  const tzdata = '/usr/share/zoneinfo/tzdata.zi';
  it.skipIf(!existsSync(tzdata))('spells every name of the system zone database exactly, from any case', () => {
    const names = readFileSync(tzdata, 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .flatMap(([kind, a, b]) => (kind === 'Z' ? [a] : kind === 'L' ? [b] : []))
      .filter((name): name is string => name !== undefined && isIntlZone(name));
    expect(names.length).toBeGreaterThan(400);
    for (const name of names) {
      expect(resolveTimeZone(name.toLowerCase()), name).toBe(name);
      expect(resolveTimeZone(name.toUpperCase()), name).toBe(name);
      expect(resolveTimeZone(name), name).toBe(name);
    }
  });

  it('answers the same name on repeated calls (cached) whatever the spelling', () => {
    expect(resolveTimeZone('EUROPE/LONDON')).toBe('Europe/London');
    expect(resolveTimeZone('europe/london')).toBe('Europe/London');
    expect(resolveTimeZone('Europe/London')).toBe('Europe/London');
  });

  it('fails an unknown zone with 400 invalid_input, meta {parameter: timezone, reason: invalid}', () => {
    for (const name of ['Mars/Olympus_Mons', 'America/NewYork', 'Europe', 'EST+5', 'UTC+5', 'Z', 'nowhere', '', ' UTC', 'UTC ']) {
      expect(() => resolveTimeZone(name), name).toThrowError(invalidTimezone);
    }
  });

  it('refuses raw offsets, which Intl would accept but the contract does not', () => {
    for (const name of ['+05:00', '-0500', '+00:00', '05:30']) {
      expect(() => resolveTimeZone(name), name).toThrowError(invalidTimezone);
    }
  });

  it('throws an InvalidInputError with the exact meta', () => {
    try {
      resolveTimeZone('Atlantis/Capital');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).name).toBe('InvalidInputError');
      expect((error as { meta: unknown }).meta).toEqual({ parameter: 'timezone', reason: 'invalid' });
      expect((error as Error).message).toMatch(/timezone/);
    }
  });
});

describe('zoneInEffect (conventions.md 13)', () => {
  it('uses the timezone query parameter when present, canonicalised', () => {
    expect(zoneInEffect({ timezone: 'europe/berlin' }, 'UTC')).toBe('Europe/Berlin');
    expect(zoneInEffect({ timezone: 'utc' }, 'America/New_York')).toBe('UTC');
  });

  it('falls back to the account default when the parameter is absent or empty', () => {
    expect(zoneInEffect({}, 'America/New_York')).toBe('America/New_York');
    expect(zoneInEffect({ timezone: '' }, 'Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(zoneInEffect({ limit: '10' }, 'UTC')).toBe('UTC');
  });

  it('validates the parameter: an unknown zone fails even though the account has a default', () => {
    expect(() => zoneInEffect({ timezone: 'Nowhere/Land' }, 'UTC')).toThrowError(invalidTimezone);
    expect(() => zoneInEffect({ timezone: '+02:00' }, 'UTC')).toThrowError(invalidTimezone);
  });
});

describe('formatTimestamp (conventions.md 13 output)', () => {
  const instant = Date.parse('2026-11-21T14:05:09Z');

  it('writes Z in UTC, with second precision', () => {
    expect(formatTimestamp(instant, 'UTC')).toBe('2026-11-21T14:05:09Z');
    expect(formatTimestamp(instant, 'utc')).toBe('2026-11-21T14:05:09Z');
  });

  it('writes Z for every name of UTC (Intl counts the GMT names among them, as ECMA-402 says)', () => {
    for (const name of ['Etc/UTC', 'etc/utc', 'Etc/UCT', 'UCT', 'Etc/Universal', 'Universal', 'Zulu', 'Etc/Zulu', 'Etc/GMT', 'GMT', 'Etc/GMT+0', 'Greenwich']) {
      expect(formatTimestamp(instant, name), name).toBe('2026-11-21T14:05:09Z');
    }
  });

  it('writes +00:00, not Z, for a zone that sits at offset zero in winter (Europe/London)', () => {
    expect(formatTimestamp(Date.parse('2026-01-15T00:30:00Z'), 'Europe/London')).toBe('2026-01-15T00:30:00+00:00');
    expect(formatTimestamp(instant, 'Europe/London')).toBe('2026-11-21T14:05:09+00:00');
    // ...and British Summer Time in July.
    expect(formatTimestamp(Date.parse('2026-07-01T09:00:00Z'), 'Europe/London')).toBe('2026-07-01T10:00:00+01:00');
  });

  it('writes ±hh:mm with half-hour and quarter-hour offsets (Asia/Kolkata, Asia/Kathmandu)', () => {
    expect(formatTimestamp(instant, 'Asia/Kolkata')).toBe('2026-11-21T19:35:09+05:30');
    expect(formatTimestamp(Date.parse('2026-11-21T20:00:00Z'), 'Asia/Kolkata')).toBe('2026-11-22T01:30:00+05:30');
    expect(formatTimestamp(instant, 'Asia/Kathmandu')).toBe('2026-11-21T19:50:09+05:45');
  });

  it('writes +00:00 for a zone at offset zero that is not UTC by name (Africa/Abidjan)', () => {
    expect(formatTimestamp(instant, 'Africa/Abidjan')).toBe('2026-11-21T14:05:09+00:00');
    expect(formatTimestamp(instant, 'Atlantic/Reykjavik')).toBe('2026-11-21T14:05:09+00:00');
  });

  it('writes the whole-hour fixed zones Etc/GMT±n with their inverted sign', () => {
    expect(formatTimestamp(instant, 'Etc/GMT+5')).toBe('2026-11-21T09:05:09-05:00');
  });

  it('writes negative offsets (the contract example, America/New_York in summer)', () => {
    expect(formatTimestamp(Date.parse('2026-07-01T14:00:00Z'), 'America/New_York')).toBe('2026-07-01T10:00:00-04:00');
    expect(formatTimestamp(instant, 'America/New_York')).toBe('2026-11-21T09:05:09-05:00');
  });

  it('follows daylight-saving time per instant: New York spring forward on 2027-03-14', () => {
    expect(formatTimestamp(Date.parse('2027-03-14T06:59:59Z'), 'America/New_York')).toBe('2027-03-14T01:59:59-05:00');
    expect(formatTimestamp(Date.parse('2027-03-14T07:00:00Z'), 'America/New_York')).toBe('2027-03-14T03:00:00-04:00');
  });

  it('follows daylight-saving time per instant: New York fall back on 2027-11-07 shows 01:30 twice', () => {
    expect(formatTimestamp(Date.parse('2027-11-07T05:30:00Z'), 'America/New_York')).toBe('2027-11-07T01:30:00-04:00');
    expect(formatTimestamp(Date.parse('2027-11-07T06:30:00Z'), 'America/New_York')).toBe('2027-11-07T01:30:00-05:00');
    expect(formatTimestamp(Date.parse('2027-11-07T07:00:00Z'), 'America/New_York')).toBe('2027-11-07T02:00:00-05:00');
  });

  it('follows daylight-saving time in the southern hemisphere (Australia/Sydney)', () => {
    expect(formatTimestamp(Date.parse('2026-01-15T00:00:00Z'), 'Australia/Sydney')).toBe('2026-01-15T11:00:00+11:00');
    expect(formatTimestamp(Date.parse('2026-07-15T00:00:00Z'), 'Australia/Sydney')).toBe('2026-07-15T10:00:00+10:00');
  });

  it('drops fractional seconds by truncation, never rounding up', () => {
    expect(formatTimestamp(instant + 999, 'UTC')).toBe('2026-11-21T14:05:09Z');
    expect(formatTimestamp(instant + 999, 'Asia/Kolkata')).toBe('2026-11-21T19:35:09+05:30');
    expect(formatTimestamp(-1, 'UTC')).toBe('1969-12-31T23:59:59Z');
  });

  it('accepts the zone in any case', () => {
    expect(formatTimestamp(instant, 'asia/kolkata')).toBe('2026-11-21T19:35:09+05:30');
  });

  it('fails an unknown zone like the timezone parameter does', () => {
    expect(() => formatTimestamp(instant, 'Nowhere/Land')).toThrowError(invalidTimezone);
  });

  it('always matches the contract shape', () => {
    const shape = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/;
    for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata', 'Europe/London', 'Pacific/Chatham', 'America/St_Johns']) {
      for (let ms = Date.parse('2026-01-01T00:00:00Z'); ms < Date.parse('2027-01-01T00:00:00Z'); ms += 7 * 86_400_000 + 3_723_456) {
        expect(formatTimestamp(ms, zone)).toMatch(shape);
      }
    }
  });

  it('round-trips: the written local time and offset name the same second', () => {
    for (const zone of ['America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns', 'Australia/Lord_Howe']) {
      for (let ms = Date.parse('2027-01-01T00:00:00Z'); ms < Date.parse('2028-01-01T00:00:00Z'); ms += 86_400_000 + 1_234_567) {
        expect(Date.parse(formatTimestamp(ms, zone))).toBe(Math.floor(ms / 1000) * 1000);
      }
    }
  });
});

describe('timestamp (UTC output, kept for existing callers)', () => {
  it('writes UTC with Z and second precision', () => {
    expect(timestamp(Date.parse('2026-11-21T14:05:09.456Z'))).toBe('2026-11-21T14:05:09Z');
    expect(timestamp(0)).toBe('1970-01-01T00:00:00Z');
  });

  it('passes null and undefined through as null', () => {
    expect(timestamp(null)).toBeNull();
    expect(timestamp(undefined)).toBeNull();
  });

  it('equals formatTimestamp in UTC', () => {
    const ms = Date.parse('2027-03-14T07:00:00.5Z');
    expect(timestamp(ms)).toBe(formatTimestamp(ms, 'UTC'));
  });
});
