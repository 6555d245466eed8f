import { describe, expect, it } from 'vitest';
import { formatTimestamp, parseDateInput } from '../../shared/rest/dates';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

function resolve(value: string, edge: 'first' | 'last', zone: string, now = Date.parse('2026-11-21T14:05:09Z')): number {
  return parseDateInput(value, { edge, zone, now, name: edge === 'first' ? 'date_start' : 'date_end', kind: 'parameter' });
}
const first = (value: string, zone: string, now?: number) => iso(resolve(value, 'first', zone, now));
const last = (value: string, zone: string, now?: number) => iso(resolve(value, 'last', zone, now));
/** Length of a period from its first moment to its last millisecond, inclusive. */
const length = (value: string, zone: string, now?: number) => resolve(value, 'last', zone, now) - resolve(value, 'first', zone, now) + 1;

const NY = 'America/New_York';

describe('America/New_York, spring forward on Sunday 2027-03-14 (02:00 → 03:00)', () => {
  it('the day has 23 hours on the local calendar', () => {
    expect(first('2027-03-14', NY)).toBe('2027-03-14T05:00:00.000Z');
    expect(last('2027-03-14', NY)).toBe('2027-03-15T03:59:59.999Z');
    expect(length('2027-03-14', NY)).toBe(23 * HOUR);
    expect(formatTimestamp(resolve('2027-03-14', 'first', NY), NY)).toBe('2027-03-14T00:00:00-05:00');
    expect(formatTimestamp(resolve('2027-03-14', 'last', NY), NY)).toBe('2027-03-14T23:59:59-04:00');
  });

  it('the days around it have 24 hours', () => {
    expect(length('2027-03-13', NY)).toBe(DAY);
    expect(length('2027-03-15', NY)).toBe(DAY);
    expect(last('2027-03-13', NY)).toBe('2027-03-14T04:59:59.999Z');
    expect(first('2027-03-15', NY)).toBe('2027-03-15T04:00:00.000Z');
  });

  it('output switches from -05:00 to -04:00 at 2 AM', () => {
    expect(formatTimestamp(Date.parse('2027-03-14T06:59:59Z'), NY)).toBe('2027-03-14T01:59:59-05:00');
    expect(formatTimestamp(Date.parse('2027-03-14T07:00:00Z'), NY)).toBe('2027-03-14T03:00:00-04:00');
    expect(formatTimestamp(Date.parse('2027-03-14T04:59:59Z'), NY)).toBe('2027-03-13T23:59:59-05:00');
    expect(formatTimestamp(Date.parse('2027-03-15T03:59:59Z'), NY)).toBe('2027-03-14T23:59:59-04:00');
  });

  it('shorthands on that day: today, yesterday and ±x follow the local calendar', () => {
    const noon = Date.parse('2027-03-14T16:00:00Z');
    expect(first('today', NY, noon)).toBe('2027-03-14T05:00:00.000Z');
    expect(last('today', NY, noon)).toBe('2027-03-15T03:59:59.999Z');
    expect(first('yesterday', NY, noon)).toBe('2027-03-13T05:00:00.000Z');
    expect(last('yesterday', NY, noon)).toBe('2027-03-14T04:59:59.999Z');
    expect(first('+1', NY, noon)).toBe('2027-03-15T04:00:00.000Z');
    // The week of the change starts on that Sunday, before the change.
    expect(first('this_week', NY, noon)).toBe('2027-03-14T05:00:00.000Z');
    expect(last('this_week', NY, noon)).toBe('2027-03-21T03:59:59.999Z');
    expect(length('this_week', NY, noon)).toBe(7 * DAY - HOUR);
  });

  it('date_start=-7&date_end=-1 spanning the change covers seven local days, one hour short', () => {
    const wednesday = Date.parse('2027-03-17T16:00:00Z');
    const start = resolve('-7', 'first', NY, wednesday);
    const end = resolve('-1', 'last', NY, wednesday);
    expect(iso(start)).toBe('2027-03-10T05:00:00.000Z');
    expect(iso(end)).toBe('2027-03-17T03:59:59.999Z');
    expect(end - start + 1).toBe(7 * DAY - HOUR);
  });

  it('March 2027 is one hour short of 31 days', () => {
    expect(first('2027-03', NY)).toBe('2027-03-01T05:00:00.000Z');
    expect(last('2027-03', NY)).toBe('2027-04-01T03:59:59.999Z');
    expect(length('2027-03', NY)).toBe(31 * DAY - HOUR);
  });

  it('hours next to the gap', () => {
    expect(first('2027-03-14T01', NY)).toBe('2027-03-14T06:00:00.000Z');
    expect(last('2027-03-14T01', NY)).toBe('2027-03-14T06:59:59.999Z');
    expect(first('2027-03-14T03', NY)).toBe('2027-03-14T07:00:00.000Z');
    expect(last('2027-03-14T03', NY)).toBe('2027-03-14T07:59:59.999Z');
  });

  it('the skipped hour 02 has no instants: it starts where 03:00 starts and ends just before', () => {
    expect(first('2027-03-14T02', NY)).toBe('2027-03-14T07:00:00.000Z');
    expect(last('2027-03-14T02', NY)).toBe('2027-03-14T06:59:59.999Z');
    expect(first('2027-03-14T02:30', NY)).toBe('2027-03-14T07:00:00.000Z');
  });

  it('a full timestamp in the skipped hour moves forward by the gap (02:30 is read as 03:30 EDT)', () => {
    expect(first('2027-03-14T02:30:00', NY)).toBe('2027-03-14T07:30:00.000Z');
    expect(last('2027-03-14T02:30:00', NY)).toBe('2027-03-14T07:30:00.000Z');
  });
});

describe('America/New_York, fall back on Sunday 2027-11-07 (02:00 → 01:00)', () => {
  it('the day has 25 hours on the local calendar', () => {
    expect(first('2027-11-07', NY)).toBe('2027-11-07T04:00:00.000Z');
    expect(last('2027-11-07', NY)).toBe('2027-11-08T04:59:59.999Z');
    expect(length('2027-11-07', NY)).toBe(25 * HOUR);
    expect(formatTimestamp(resolve('2027-11-07', 'first', NY), NY)).toBe('2027-11-07T00:00:00-04:00');
    expect(formatTimestamp(resolve('2027-11-07', 'last', NY), NY)).toBe('2027-11-07T23:59:59-05:00');
  });

  it('output switches from -04:00 to -05:00 and repeats 01:xx', () => {
    expect(formatTimestamp(Date.parse('2027-11-07T05:59:59Z'), NY)).toBe('2027-11-07T01:59:59-04:00');
    expect(formatTimestamp(Date.parse('2027-11-07T06:00:00Z'), NY)).toBe('2027-11-07T01:00:00-05:00');
  });

  it('shorthands on that day', () => {
    const evening = Date.parse('2027-11-08T01:00:00Z'); // 20:00 EST on the 7th
    expect(first('today', NY, evening)).toBe('2027-11-07T04:00:00.000Z');
    expect(last('today', NY, evening)).toBe('2027-11-08T04:59:59.999Z');
    expect(length('today', NY, evening)).toBe(25 * HOUR);
    expect(length('this_week', NY, evening)).toBe(7 * DAY + HOUR);
    expect(length('this_month', NY, evening)).toBe(30 * DAY + HOUR);
  });

  it('the repeated hour 01 covers both passes', () => {
    expect(first('2027-11-07T01', NY)).toBe('2027-11-07T05:00:00.000Z');
    expect(last('2027-11-07T01', NY)).toBe('2027-11-07T06:59:59.999Z');
  });

  it('a repeated minute runs from its first pass to the end of its second', () => {
    expect(first('2027-11-07T01:30', NY)).toBe('2027-11-07T05:30:00.000Z');
    expect(last('2027-11-07T01:30', NY)).toBe('2027-11-07T06:30:59.999Z');
  });

  it('a full timestamp in the repeated hour is its earlier instant (EDT)', () => {
    expect(first('2027-11-07T01:30:00', NY)).toBe('2027-11-07T05:30:00.000Z');
    expect(last('2027-11-07T01:30:00', NY)).toBe('2027-11-07T05:30:00.000Z');
    // An explicit offset picks the second pass.
    expect(first('2027-11-07T01:30:00-05:00', NY)).toBe('2027-11-07T06:30:00.000Z');
  });
});

describe('other zones across their changes', () => {
  it('Europe/London: 2027-03-28 has 23 hours; winter is +00:00, summer +01:00', () => {
    expect(first('2027-03-28', 'Europe/London')).toBe('2027-03-28T00:00:00.000Z');
    expect(last('2027-03-28', 'Europe/London')).toBe('2027-03-28T22:59:59.999Z');
    expect(formatTimestamp(Date.parse('2027-03-28T00:59:59Z'), 'Europe/London')).toBe('2027-03-28T00:59:59+00:00');
    expect(formatTimestamp(Date.parse('2027-03-28T01:00:00Z'), 'Europe/London')).toBe('2027-03-28T02:00:00+01:00');
  });

  it('Australia/Sydney: 2027-04-04 has 25 hours (southern autumn)', () => {
    expect(length('2027-04-04', 'Australia/Sydney')).toBe(25 * HOUR);
    expect(first('2027-04-04', 'Australia/Sydney')).toBe('2027-04-03T13:00:00.000Z');
  });

  it('Asia/Kolkata has no daylight-saving time: every day is 24 hours at +05:30', () => {
    for (const day of ['2027-03-14', '2027-11-07', '2028-02-29']) {
      expect(length(day, 'Asia/Kolkata')).toBe(DAY);
    }
    expect(formatTimestamp(Date.parse('2027-07-01T00:00:00Z'), 'Asia/Kolkata')).toBe('2027-07-01T05:30:00+05:30');
  });
});

describe('days whose local midnight does not exist start at their first existing instant', () => {
  it('America/Sao_Paulo 2018-11-04: clocks went from 00:00 to 01:00, the day starts at 01:00 -02:00', () => {
    expect(first('2018-11-04', 'America/Sao_Paulo')).toBe('2018-11-04T03:00:00.000Z');
    expect(formatTimestamp(resolve('2018-11-04', 'first', 'America/Sao_Paulo'), 'America/Sao_Paulo')).toBe('2018-11-04T01:00:00-02:00');
    expect(length('2018-11-04', 'America/Sao_Paulo')).toBe(23 * HOUR);
    // The day before ends just before it, with nothing lost between them.
    expect(last('2018-11-03', 'America/Sao_Paulo')).toBe('2018-11-04T02:59:59.999Z');
  });

  it('America/Sao_Paulo: shorthands resolved on that day (a Sunday) use the same first moment', () => {
    const now = Date.parse('2018-11-04T15:00:00Z');
    expect(first('today', 'America/Sao_Paulo', now)).toBe('2018-11-04T03:00:00.000Z');
    expect(first('this_week', 'America/Sao_Paulo', now)).toBe('2018-11-04T03:00:00.000Z');
    expect(first('this_month', 'America/Sao_Paulo', now)).toBe('2018-11-01T03:00:00.000Z');
    expect(first('-0', 'America/Sao_Paulo', now)).toBe('2018-11-04T03:00:00.000Z');
  });

  it('Asia/Beirut 2026-03-29: the day starts at 01:00 +03:00', () => {
    expect(first('2026-03-29', 'Asia/Beirut')).toBe('2026-03-28T22:00:00.000Z');
    expect(formatTimestamp(resolve('2026-03-29', 'first', 'Asia/Beirut'), 'Asia/Beirut')).toBe('2026-03-29T01:00:00+03:00');
    expect(last('2026-03-28', 'Asia/Beirut')).toBe('2026-03-28T21:59:59.999Z');
    expect(first('2026-03-29T00', 'Asia/Beirut')).toBe('2026-03-28T22:00:00.000Z');
  });

  it('Asia/Beirut 2026-10-24: falling back at midnight gives Saturday 25 hours and Sunday its single midnight', () => {
    expect(length('2026-10-24', 'Asia/Beirut')).toBe(25 * HOUR);
    expect(last('2026-10-24', 'Asia/Beirut')).toBe('2026-10-24T21:59:59.999Z');
    expect(first('2026-10-25', 'Asia/Beirut')).toBe('2026-10-24T22:00:00.000Z');
  });

  it('a month containing a missing midnight still starts at its own midnight and loses one hour', () => {
    expect(first('2026-03', 'Asia/Beirut')).toBe('2026-02-28T22:00:00.000Z');
    expect(last('2026-03', 'Asia/Beirut')).toBe('2026-03-31T20:59:59.999Z');
    expect(length('2026-03', 'Asia/Beirut')).toBe(31 * DAY - HOUR);
  });

  it('consecutive local days always meet: last + 1 ms is the next first, across a year of DST zones', () => {
    for (const zone of [NY, 'America/Sao_Paulo', 'Asia/Beirut', 'Europe/London', 'Australia/Lord_Howe', 'America/Havana']) {
      let day = Date.parse('2018-01-01T00:00:00Z');
      for (let i = 0; i < 366; i += 1, day += DAY) {
        const today = iso(day).slice(0, 10);
        const tomorrow = iso(day + DAY).slice(0, 10);
        expect(resolve(today, 'last', zone) + 1, `${zone} ${today}`).toBe(resolve(tomorrow, 'first', zone));
      }
    }
  });
});
