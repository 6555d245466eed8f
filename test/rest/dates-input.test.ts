import { describe, expect, it } from 'vitest';
import { edgeFor, parseDateInput, parseTimestampInput, type DateInputOptions } from '../../shared/rest/dates';

const DAY = 86_400_000;
/** The platform clock for most tests: Saturday 2026-11-21, 14:05:09 UTC (09:05 in New York). */
const SATURDAY = Date.parse('2026-11-21T14:05:09Z');

const iso = (ms: number) => new Date(ms).toISOString();

function parse(value: string, options: Partial<DateInputOptions> = {}): string {
  return iso(parseDateInput(value, { edge: 'first', zone: 'UTC', now: SATURDAY, name: 'date_start', kind: 'parameter', ...options }));
}
const first = (value: string, zone = 'UTC', now = SATURDAY) => parse(value, { edge: 'first', zone, now });
const last = (value: string, zone = 'UTC', now = SATURDAY) => parse(value, { edge: 'last', zone, now, name: 'date_end' });

const invalid = (meta: Record<string, unknown>) => expect.objectContaining({ status: 400, code: 'invalid_input', meta });

describe('edgeFor (conventions.md 13, first and last moment)', () => {
  it('is first for date_start and last for every other date input', () => {
    expect(edgeFor('date_start')).toBe('first');
    for (const name of ['date_end', 'date_due', 'expires', 'date_shipped', 'date_paid']) expect(edgeFor(name)).toBe('last');
  });
});

describe('shorthands in UTC, now = Saturday 2026-11-21 14:05:09Z', () => {
  it.each([
    ['today', '2026-11-21T00:00:00.000Z', '2026-11-21T23:59:59.999Z'],
    ['yesterday', '2026-11-20T00:00:00.000Z', '2026-11-20T23:59:59.999Z'],
    ['this_week', '2026-11-15T00:00:00.000Z', '2026-11-21T23:59:59.999Z'],
    ['last_week', '2026-11-08T00:00:00.000Z', '2026-11-14T23:59:59.999Z'],
    ['this_month', '2026-11-01T00:00:00.000Z', '2026-11-30T23:59:59.999Z'],
    ['last_month', '2026-10-01T00:00:00.000Z', '2026-10-31T23:59:59.999Z'],
    ['this_year', '2026-01-01T00:00:00.000Z', '2026-12-31T23:59:59.999Z'],
    ['last_year', '2025-01-01T00:00:00.000Z', '2025-12-31T23:59:59.999Z'],
    ['+0', '2026-11-21T00:00:00.000Z', '2026-11-21T23:59:59.999Z'],
    ['-0', '2026-11-21T00:00:00.000Z', '2026-11-21T23:59:59.999Z'],
    ['+1', '2026-11-22T00:00:00.000Z', '2026-11-22T23:59:59.999Z'],
    ['-1', '2026-11-20T00:00:00.000Z', '2026-11-20T23:59:59.999Z'],
    ['+10', '2026-12-01T00:00:00.000Z', '2026-12-01T23:59:59.999Z'],
    ['-30', '2026-10-22T00:00:00.000Z', '2026-10-22T23:59:59.999Z'],
    ['-365', '2025-11-21T00:00:00.000Z', '2025-11-21T23:59:59.999Z'],
  ])('%s: first %s, last %s', (value, start, end) => {
    expect(first(value)).toBe(start);
    expect(last(value)).toBe(end);
  });
});

describe('shorthands in America/New_York (EST, -05:00), same now (09:05 local)', () => {
  const zone = 'America/New_York';
  it.each([
    ['today', '2026-11-21T05:00:00.000Z', '2026-11-22T04:59:59.999Z'],
    ['yesterday', '2026-11-20T05:00:00.000Z', '2026-11-21T04:59:59.999Z'],
    ['this_week', '2026-11-15T05:00:00.000Z', '2026-11-22T04:59:59.999Z'],
    ['last_week', '2026-11-08T05:00:00.000Z', '2026-11-15T04:59:59.999Z'],
    // November began in daylight time (-04:00); the clocks went back on the 1st at 2 AM.
    ['this_month', '2026-11-01T04:00:00.000Z', '2026-12-01T04:59:59.999Z'],
    ['last_month', '2026-10-01T04:00:00.000Z', '2026-11-01T03:59:59.999Z'],
    ['this_year', '2026-01-01T05:00:00.000Z', '2027-01-01T04:59:59.999Z'],
    ['last_year', '2025-01-01T05:00:00.000Z', '2026-01-01T04:59:59.999Z'],
    ['-0', '2026-11-21T05:00:00.000Z', '2026-11-22T04:59:59.999Z'],
    ['+3', '2026-11-24T05:00:00.000Z', '2026-11-25T04:59:59.999Z'],
    ['-7', '2026-11-14T05:00:00.000Z', '2026-11-15T04:59:59.999Z'],
  ])('%s: first %s, last %s', (value, start, end) => {
    expect(first(value, zone)).toBe(start);
    expect(last(value, zone)).toBe(end);
  });
});

describe('shorthands in Asia/Kolkata (+05:30) when the local date is already Sunday', () => {
  // 2026-11-21T20:00Z is Saturday in UTC but Sunday 2026-11-22 01:30 in Kolkata.
  const zone = 'Asia/Kolkata';
  const now = Date.parse('2026-11-21T20:00:00Z');
  it.each([
    ['today', '2026-11-21T18:30:00.000Z', '2026-11-22T18:29:59.999Z'],
    ['yesterday', '2026-11-20T18:30:00.000Z', '2026-11-21T18:29:59.999Z'],
    ['this_week', '2026-11-21T18:30:00.000Z', '2026-11-28T18:29:59.999Z'],
    ['last_week', '2026-11-14T18:30:00.000Z', '2026-11-21T18:29:59.999Z'],
    ['this_month', '2026-10-31T18:30:00.000Z', '2026-11-30T18:29:59.999Z'],
    ['last_month', '2026-09-30T18:30:00.000Z', '2026-10-31T18:29:59.999Z'],
    ['this_year', '2025-12-31T18:30:00.000Z', '2026-12-31T18:29:59.999Z'],
    ['last_year', '2024-12-31T18:30:00.000Z', '2025-12-31T18:29:59.999Z'],
    ['+1', '2026-11-22T18:30:00.000Z', '2026-11-23T18:29:59.999Z'],
    ['-1', '2026-11-20T18:30:00.000Z', '2026-11-21T18:29:59.999Z'],
  ])('%s: first %s, last %s', (value, start, end) => {
    expect(first(value, zone, now)).toBe(start);
    expect(last(value, zone, now)).toBe(end);
  });

  it('resolves the same instant to a different day in UTC', () => {
    expect(first('today', 'UTC', now)).toBe('2026-11-21T00:00:00.000Z');
    expect(first('this_week', 'UTC', now)).toBe('2026-11-15T00:00:00.000Z');
  });
});

describe('date_start=-7&date_end=-1', () => {
  it('covers exactly the seven full days before today (UTC)', () => {
    const start = parseDateInput('-7', { edge: edgeFor('date_start'), zone: 'UTC', now: SATURDAY, name: 'date_start', kind: 'parameter' });
    const end = parseDateInput('-1', { edge: edgeFor('date_end'), zone: 'UTC', now: SATURDAY, name: 'date_end', kind: 'parameter' });
    expect(iso(start)).toBe('2026-11-14T00:00:00.000Z');
    expect(iso(end)).toBe('2026-11-20T23:59:59.999Z');
    expect(end - start + 1).toBe(7 * DAY);
    // Today is not included: it starts one millisecond after the range.
    expect(first('today')).toBe(iso(end + 1));
  });

  it('covers the seven local days in a non-UTC zone', () => {
    expect(first('-7', 'Asia/Kolkata')).toBe('2026-11-13T18:30:00.000Z');
    expect(last('-1', 'Asia/Kolkata')).toBe('2026-11-20T18:29:59.999Z');
  });
});

describe('weeks run from Sunday 00:00 to Saturday end', () => {
  it('today is Sunday: this week starts today', () => {
    const sunday = Date.parse('2026-11-22T10:00:00Z');
    expect(first('this_week', 'UTC', sunday)).toBe('2026-11-22T00:00:00.000Z');
    expect(last('this_week', 'UTC', sunday)).toBe('2026-11-28T23:59:59.999Z');
    expect(first('last_week', 'UTC', sunday)).toBe('2026-11-15T00:00:00.000Z');
    expect(last('last_week', 'UTC', sunday)).toBe('2026-11-21T23:59:59.999Z');
  });

  it('today is Saturday: this week ends today', () => {
    expect(first('this_week')).toBe('2026-11-15T00:00:00.000Z');
    expect(last('this_week')).toBe('2026-11-21T23:59:59.999Z');
    expect(first('last_week')).toBe('2026-11-08T00:00:00.000Z');
    expect(last('last_week')).toBe('2026-11-14T23:59:59.999Z');
  });

  it('the first and the last millisecond of a week belong to it', () => {
    const sundayStart = Date.parse('2026-11-22T00:00:00.000Z');
    expect(first('this_week', 'UTC', sundayStart)).toBe('2026-11-22T00:00:00.000Z');
    expect(first('this_week', 'UTC', sundayStart - 1)).toBe('2026-11-15T00:00:00.000Z');
  });

  it('a midweek day', () => {
    const wednesday = Date.parse('2026-11-18T12:00:00Z');
    expect(first('this_week', 'UTC', wednesday)).toBe('2026-11-15T00:00:00.000Z');
    expect(last('this_week', 'UTC', wednesday)).toBe('2026-11-21T23:59:59.999Z');
  });

  it('a week across the turn of the year', () => {
    const newYearsDay = Date.parse('2027-01-01T12:00:00Z'); // a Friday
    expect(first('this_week', 'UTC', newYearsDay)).toBe('2026-12-27T00:00:00.000Z');
    expect(last('this_week', 'UTC', newYearsDay)).toBe('2027-01-02T23:59:59.999Z');
    expect(first('last_week', 'UTC', newYearsDay)).toBe('2026-12-20T00:00:00.000Z');
    expect(last('last_week', 'UTC', newYearsDay)).toBe('2026-12-26T23:59:59.999Z');
  });

  it('the local weekday decides, not the UTC one (Saturday night in New York is Sunday in UTC)', () => {
    const now = Date.parse('2026-11-22T03:00:00Z');
    expect(first('this_week', 'America/New_York', now)).toBe('2026-11-15T05:00:00.000Z');
    expect(first('this_week', 'UTC', now)).toBe('2026-11-22T00:00:00.000Z');
  });
});

describe('month and year ends', () => {
  const leapFebruary = Date.parse('2028-02-10T12:00:00Z');

  it('February of the leap year 2028 ends on the 29th', () => {
    expect(first('this_month', 'UTC', leapFebruary)).toBe('2028-02-01T00:00:00.000Z');
    expect(last('this_month', 'UTC', leapFebruary)).toBe('2028-02-29T23:59:59.999Z');
    expect(last('2028-02')).toBe('2028-02-29T23:59:59.999Z');
    expect(first('2028-02-29')).toBe('2028-02-29T00:00:00.000Z');
    expect(last('last_month', 'UTC', Date.parse('2028-03-31T12:00:00Z'))).toBe('2028-02-29T23:59:59.999Z');
  });

  it('February of a common year ends on the 28th', () => {
    expect(last('2026-02')).toBe('2026-02-28T23:59:59.999Z');
    expect(last('last_month', 'UTC', Date.parse('2027-03-01T00:00:00Z'))).toBe('2027-02-28T23:59:59.999Z');
  });

  it('day offsets step over month and year ends', () => {
    expect(first('+1', 'UTC', Date.parse('2028-02-28T12:00:00Z'))).toBe('2028-02-29T00:00:00.000Z');
    expect(first('-1', 'UTC', Date.parse('2028-03-01T12:00:00Z'))).toBe('2028-02-29T00:00:00.000Z');
    expect(first('+1', 'UTC', Date.parse('2026-12-31T23:59:59Z'))).toBe('2027-01-01T00:00:00.000Z');
    expect(first('yesterday', 'UTC', Date.parse('2027-01-01T00:00:00Z'))).toBe('2026-12-31T00:00:00.000Z');
  });

  it('last_month in January is December of last year; this_year of a leap year has 366 days', () => {
    const january = Date.parse('2027-01-15T00:00:00Z');
    expect(first('last_month', 'UTC', january)).toBe('2026-12-01T00:00:00.000Z');
    expect(last('last_month', 'UTC', january)).toBe('2026-12-31T23:59:59.999Z');
    const start = Date.parse(first('this_year', 'UTC', leapFebruary));
    const end = Date.parse(last('this_year', 'UTC', leapFebruary));
    expect(iso(end)).toBe('2028-12-31T23:59:59.999Z');
    expect(end - start + 1).toBe(366 * DAY);
  });

  it('months of 30 and 31 days', () => {
    expect(last('2026-04')).toBe('2026-04-30T23:59:59.999Z');
    expect(last('2026-12')).toBe('2026-12-31T23:59:59.999Z');
    expect(last('this_month', 'UTC', Date.parse('2026-04-30T23:00:00Z'))).toBe('2026-04-30T23:59:59.999Z');
  });
});

describe('the ±x day shorthand (x an integer 0–9999)', () => {
  it('reaches 9999 days either way', () => {
    expect(first('+9999')).toBe(iso(Date.parse('2026-11-21T00:00:00Z') + 9999 * DAY));
    expect(first('-9999')).toBe(iso(Date.parse('2026-11-21T00:00:00Z') - 9999 * DAY));
  });

  it('reads a space followed by digits as +x (a literal + in a query string decodes to a space)', () => {
    expect(first(' 5')).toBe(first('+5'));
    expect(last(' 5')).toBe(last('+5'));
    expect(first(' 5')).toBe('2026-11-26T00:00:00.000Z');
    expect(first(' 0')).toBe(first('today'));
    expect(first(' 5', 'America/New_York')).toBe('2026-11-26T05:00:00.000Z');
    expect(first(' 9999')).toBe(first('+9999'));
  });

  it('reads leading zeros by value', () => {
    expect(first('+007')).toBe(first('+7'));
    expect(first('-0000')).toBe(first('today'));
  });

  it.each(['+10000', '-10000', ' 10000', '+99999999999999999999', '+', '-', '+-1', '--1', '+1.5', '-1e3', '+ 1', '  5', ' -5', '5'])(
    'refuses %j',
    (value) => {
      expect(() => first(value)).toThrowError(invalid({ parameter: 'date_start', reason: 'invalid' }));
    },
  );
});

describe('shorthands are matched case-insensitively', () => {
  it.each(['TODAY', 'Today', 'YESTERDAY', 'This_Week', 'LAST_WEEK', 'this_MONTH', 'Last_Month', 'THIS_YEAR', 'last_YEAR'])('%s', (value) => {
    expect(first(value)).toBe(first(value.toLowerCase()));
    expect(last(value)).toBe(last(value.toLowerCase()));
  });
});

describe('ISO 8601 partial values: the period they name', () => {
  it.each([
    ['2026', '2026-01-01T00:00:00.000Z', '2026-12-31T23:59:59.999Z'],
    ['2026-11', '2026-11-01T00:00:00.000Z', '2026-11-30T23:59:59.999Z'],
    ['2026-11-21', '2026-11-21T00:00:00.000Z', '2026-11-21T23:59:59.999Z'],
    ['2026-11-21T10', '2026-11-21T10:00:00.000Z', '2026-11-21T10:59:59.999Z'],
    ['2026-11-21T10:30', '2026-11-21T10:30:00.000Z', '2026-11-21T10:30:59.999Z'],
    ['2026-11-21T00', '2026-11-21T00:00:00.000Z', '2026-11-21T00:59:59.999Z'],
    ['2026-11-21T23:59', '2026-11-21T23:59:00.000Z', '2026-11-21T23:59:59.999Z'],
    ['1999-12-31T23', '1999-12-31T23:00:00.000Z', '1999-12-31T23:59:59.999Z'],
  ])('UTC %s: first %s, last %s', (value, start, end) => {
    expect(first(value)).toBe(start);
    expect(last(value)).toBe(end);
  });

  it.each([
    ['2026', '2026-01-01T05:00:00.000Z', '2027-01-01T04:59:59.999Z'],
    ['2026-11', '2026-11-01T04:00:00.000Z', '2026-12-01T04:59:59.999Z'],
    ['2026-07', '2026-07-01T04:00:00.000Z', '2026-08-01T03:59:59.999Z'],
    ['2026-11-21', '2026-11-21T05:00:00.000Z', '2026-11-22T04:59:59.999Z'],
    ['2026-11-21T10', '2026-11-21T15:00:00.000Z', '2026-11-21T15:59:59.999Z'],
    ['2026-07-01T10:30', '2026-07-01T14:30:00.000Z', '2026-07-01T14:30:59.999Z'],
  ])('America/New_York %s: first %s, last %s', (value, start, end) => {
    expect(first(value, 'America/New_York')).toBe(start);
    expect(last(value, 'America/New_York')).toBe(end);
  });

  it('Asia/Kolkata partial values', () => {
    expect(first('2026-11-21', 'Asia/Kolkata')).toBe('2026-11-20T18:30:00.000Z');
    expect(last('2026-11-21', 'Asia/Kolkata')).toBe('2026-11-21T18:29:59.999Z');
    expect(first('2026-11-21T10', 'Asia/Kolkata')).toBe('2026-11-21T04:30:00.000Z');
    expect(last('2026-11-21T10:30', 'Asia/Kolkata')).toBe('2026-11-21T05:00:59.999Z');
  });

  it('the zone name may be written in any case', () => {
    expect(first('2026-11-21', 'asia/kolkata')).toBe('2026-11-20T18:30:00.000Z');
    expect(first('today', 'utc')).toBe('2026-11-21T00:00:00.000Z');
  });

  it('every name of UTC gives the same answer as UTC', () => {
    for (const zone of ['UTC', 'Etc/UTC', 'etc/utc', 'Zulu', 'Etc/Universal']) {
      expect(first('today', zone), zone).toBe('2026-11-21T00:00:00.000Z');
      expect(last('2026-11', zone), zone).toBe('2026-11-30T23:59:59.999Z');
    }
  });

  it('Europe/London in winter resolves like UTC, in summer one hour earlier', () => {
    expect(first('2026-11-21', 'Europe/London')).toBe('2026-11-21T00:00:00.000Z');
    expect(first('2026-07-01', 'Europe/London')).toBe('2026-06-30T23:00:00.000Z');
  });
});

describe('the offset written in the value beats the zone', () => {
  it.each([
    ['2026-11-21T10Z', '2026-11-21T10:00:00.000Z', '2026-11-21T10:59:59.999Z'],
    ['2026-11-21T10:30Z', '2026-11-21T10:30:00.000Z', '2026-11-21T10:30:59.999Z'],
    ['2026-11-21T10+05:30', '2026-11-21T04:30:00.000Z', '2026-11-21T05:29:59.999Z'],
    ['2026-11-21T10:30+05:30', '2026-11-21T05:00:00.000Z', '2026-11-21T05:00:59.999Z'],
    ['2026-11-21T10:30+0530', '2026-11-21T05:00:00.000Z', '2026-11-21T05:00:59.999Z'],
    ['2026-11-21T10:30-05', '2026-11-21T15:30:00.000Z', '2026-11-21T15:30:59.999Z'],
    ['2026-11-21Z', '2026-11-21T00:00:00.000Z', '2026-11-21T23:59:59.999Z'],
    ['2026-11-21+05:30', '2026-11-20T18:30:00.000Z', '2026-11-21T18:29:59.999Z'],
    ['2026-11-21-05:00', '2026-11-21T05:00:00.000Z', '2026-11-22T04:59:59.999Z'],
    ['2026-11Z', '2026-11-01T00:00:00.000Z', '2026-11-30T23:59:59.999Z'],
    ['2026Z', '2026-01-01T00:00:00.000Z', '2026-12-31T23:59:59.999Z'],
  ])('%s in any zone: first %s, last %s', (value, start, end) => {
    for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
      expect(first(value, zone), zone).toBe(start);
      expect(last(value, zone), zone).toBe(end);
    }
  });

  it('a full timestamp with an offset is that instant in any zone', () => {
    for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
      expect(first('2026-11-21T10:30:15+05:30', zone)).toBe('2026-11-21T05:00:15.000Z');
      expect(last('2026-11-21T10:30:15-04:00', zone)).toBe('2026-11-21T14:30:15.000Z');
      expect(last('2026-11-21T10:30:15Z', zone)).toBe('2026-11-21T10:30:15.000Z');
    }
  });

  it('a day written with `-hh:mm` stays a day, and yyyy-MM-dd is never read as a month with an offset', () => {
    expect(first('2026-11-05')).toBe('2026-11-05T00:00:00.000Z');
    expect(last('2026-11-05')).toBe('2026-11-05T23:59:59.999Z');
  });
});

describe('full timestamps (with seconds) are taken exactly, whatever the edge', () => {
  it('without an offset: in the zone', () => {
    expect(first('2026-11-21T10:30:15')).toBe('2026-11-21T10:30:15.000Z');
    expect(last('2026-11-21T10:30:15')).toBe('2026-11-21T10:30:15.000Z');
    expect(first('2026-11-21T10:30:15', 'America/New_York')).toBe('2026-11-21T15:30:15.000Z');
    expect(last('2026-07-01T10:30:15', 'America/New_York')).toBe('2026-07-01T14:30:15.000Z');
    expect(last('2026-11-21T10:30:15', 'Asia/Kolkata')).toBe('2026-11-21T05:00:15.000Z');
  });

  it('accepts fractional seconds (to the millisecond; further digits are dropped)', () => {
    expect(first('2026-11-21T10:30:15.5Z')).toBe('2026-11-21T10:30:15.500Z');
    expect(last('2026-11-21T10:30:15.123Z')).toBe('2026-11-21T10:30:15.123Z');
    expect(last('2026-11-21T10:30:15.123456Z')).toBe('2026-11-21T10:30:15.123Z');
    expect(last('2026-11-21T10:30:15.999999999')).toBe('2026-11-21T10:30:15.999Z');
    expect(first('2026-11-21T10:30:15.25+05:30')).toBe('2026-11-21T05:00:15.250Z');
    expect(first('2026-11-21T10:30:15.75', 'America/New_York')).toBe('2026-11-21T15:30:15.750Z');
    expect(first('2026-11-21T10:30:15,5Z')).toBe('2026-11-21T10:30:15.500Z');
  });

  it('accepts the T and Z designators in lower case', () => {
    expect(first('2026-11-21t10:30:15z')).toBe('2026-11-21T10:30:15.000Z');
  });

  it('accepts -00:00 as zero offset', () => {
    expect(first('2026-11-21T10:30:15-00:00', 'Asia/Kolkata')).toBe('2026-11-21T10:30:15.000Z');
  });
});

describe('the clock comes from options.now', () => {
  it('resolves today from now, not from the machine clock', () => {
    const leapDay2000 = Date.parse('2000-02-29T12:00:00Z');
    expect(first('today', 'UTC', leapDay2000)).toBe('2000-02-29T00:00:00.000Z');
    expect(last('this_month', 'UTC', leapDay2000)).toBe('2000-02-29T23:59:59.999Z');
    expect(first('-1', 'UTC', leapDay2000)).toBe('2000-02-28T00:00:00.000Z');
  });

  it('the first and last millisecond of a local day are that day', () => {
    const midnight = Date.parse('2026-11-21T05:00:00.000Z'); // 00:00 in New York
    expect(first('today', 'America/New_York', midnight)).toBe('2026-11-21T05:00:00.000Z');
    expect(first('today', 'America/New_York', midnight - 1)).toBe('2026-11-20T05:00:00.000Z');
  });
});

describe('invalid date inputs give 400 invalid_input naming the parameter or property', () => {
  const values = [
    '',
    ' ',
    'tomorrow',
    'now',
    'next_week',
    'this week',
    'today ',
    ' today',
    'todays',
    '2026-13',
    '2026-00',
    '2026-11-00',
    '2026-02-30',
    '2027-02-29',
    '2026-11-31',
    '2026-11-21T24',
    '2026-11-21T10:60',
    '2026-11-21T10:30:60',
    '2026-11-21T10:30+24:00',
    '2026-11-21T10:30+05:60',
    '2026-11-21T10:30:15+5',
    '2026-11-21T10:30:15.',
    '2026-11-21T10:30:15.1234567890',
    '2026-11-21T',
    '2026-11-21 10:30:15',
    '2026-1',
    '2026-11-1',
    '20261121',
    '202',
    '20261',
    '2026/11/21',
    '21.11.2026',
    '2026-11-05-05',
    'Sat, 21 Nov 2026 10:00:00 GMT',
    '1700000000000',
  ];

  it.each(values)('parameter: %j', (value) => {
    expect(() => parse(value, { name: 'date_start', kind: 'parameter' })).toThrowError(
      invalid({ parameter: 'date_start', reason: 'invalid' }),
    );
  });

  it.each(values)('property: %j', (value) => {
    expect(() => parse(value, { name: 'date_due', kind: 'property', edge: 'last' })).toThrowError(
      invalid({ property: 'date_due', reason: 'invalid' }),
    );
  });

  it('the meta has exactly the kind key and the reason', () => {
    try {
      parse('tomorrow', { name: 'date_end', kind: 'parameter', edge: 'last' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).name).toBe('InvalidInputError');
      expect((error as { meta: unknown }).meta).toEqual({ parameter: 'date_end', reason: 'invalid' });
      expect((error as Error).message).toContain('date_end');
    }
    try {
      parse('2026-02-30', { name: 'date_shipped', kind: 'property' });
      expect.unreachable();
    } catch (error) {
      expect((error as { meta: unknown }).meta).toEqual({ property: 'date_shipped', reason: 'invalid' });
      expect((error as Error).message).toContain('date_shipped');
    }
  });

  it('a value that is not a string (from a JSON body) is invalid, not a crash', () => {
    for (const value of [20261121, null, undefined, {}, ['today']]) {
      expect(() => parse(value as unknown as string, { name: 'date_due', kind: 'property' })).toThrowError(
        invalid({ property: 'date_due', reason: 'invalid' }),
      );
    }
  });

  it('an unknown zone in the options fails on the timezone parameter', () => {
    expect(() => first('today', 'Nowhere/Land')).toThrowError(invalid({ parameter: 'timezone', reason: 'invalid' }));
    expect(() => first('2026-11-21', 'Mars/Olympus_Mons')).toThrowError(invalid({ parameter: 'timezone', reason: 'invalid' }));
  });
});

describe('parseTimestampInput (body property expires), unchanged', () => {
  it('takes ISO 8601 timestamps with an explicit offset', () => {
    expect(iso(parseTimestampInput('2026-11-21T10:30:15Z', 'expires'))).toBe('2026-11-21T10:30:15.000Z');
    expect(iso(parseTimestampInput('2026-11-21T10:30:15.250Z', 'expires'))).toBe('2026-11-21T10:30:15.250Z');
    expect(iso(parseTimestampInput('2026-11-21T10:30:15+05:30', 'expires'))).toBe('2026-11-21T05:00:15.000Z');
    expect(iso(parseTimestampInput('2026-11-21T10:30:15+0530', 'expires'))).toBe('2026-11-21T05:00:15.000Z');
    expect(iso(parseTimestampInput('2026-11-21T10:30:15-05', 'expires'))).toBe('2026-11-21T15:30:15.000Z');
    expect(iso(parseTimestampInput('2026-11-21T10:30Z', 'expires'))).toBe('2026-11-21T10:30:00.000Z');
  });

  it.each(['2026-11-21T10:30:15', '2026-11-21', 'today', '+1', '', 'soon'])('refuses %j naming the property', (value) => {
    expect(() => parseTimestampInput(value, 'expires')).toThrowError(invalid({ property: 'expires', reason: 'invalid' }));
  });

  it('refuses values that are not strings', () => {
    for (const value of [1_800_000_000_000, null, undefined, {}]) {
      expect(() => parseTimestampInput(value, 'expires')).toThrowError(invalid({ property: 'expires', reason: 'invalid' }));
    }
  });
});
