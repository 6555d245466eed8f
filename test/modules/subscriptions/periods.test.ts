/** Billing periods (commerce.md §10.2): UTC steps from the anchor, the anchor day kept and clamped. */
import { describe, expect, it } from 'vitest';
import { periodEnd, periodStart } from '../../../shared/modules/subscriptions/periods';

const iso = (ms: number) => new Date(ms).toISOString();
const monthly = { billing_interval: 1, billing_interval_unit: 'month' as const };

describe('periodEnd', () => {
  it('keeps the 31st across short months, leap years included', () => {
    const anchor = Date.parse('2028-01-31T12:00:00Z');
    expect([1, 2, 3, 4, 5].map((n) => iso(periodEnd(anchor, monthly, n)))).toEqual([
      '2028-02-29T12:00:00.000Z', '2028-03-31T12:00:00.000Z', '2028-04-30T12:00:00.000Z', '2028-05-31T12:00:00.000Z', '2028-06-30T12:00:00.000Z',
    ]);
    expect(iso(periodEnd(Date.parse('2027-01-31T00:00:00Z'), monthly, 1))).toBe('2027-02-28T00:00:00.000Z');
  });

  it('steps years from 29 February to 28 February and back', () => {
    const anchor = Date.parse('2028-02-29T00:00:00Z');
    const yearly = { billing_interval: 1, billing_interval_unit: 'year' as const };
    expect([1, 4].map((n) => iso(periodEnd(anchor, yearly, n)))).toEqual(['2029-02-28T00:00:00.000Z', '2032-02-29T00:00:00.000Z']);
  });

  it('counts days, weeks and hours in UTC, whatever the zone does', () => {
    const anchor = Date.parse('2027-03-13T12:00:00Z');
    expect(iso(periodEnd(anchor, { billing_interval: 1, billing_interval_unit: 'day' }, 2))).toBe('2027-03-15T12:00:00.000Z');
    expect(iso(periodEnd(anchor, { billing_interval: 2, billing_interval_unit: 'week' }, 1))).toBe('2027-03-27T12:00:00.000Z');
    expect(iso(periodEnd(anchor, { billing_interval: 6, billing_interval_unit: 'hour' }, 3))).toBe('2027-03-14T06:00:00.000Z');
  });

  it('starts each period at the previous end', () => {
    const anchor = Date.parse('2028-01-31T12:00:00Z');
    expect(periodStart(anchor, monthly, 1)).toBe(anchor);
    expect(periodStart(anchor, { ...monthly, billing_interval: 3 }, 2)).toBe(periodEnd(anchor, { ...monthly, billing_interval: 3 }, 1));
  });
});
