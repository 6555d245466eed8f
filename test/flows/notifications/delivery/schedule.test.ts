/** The notification retry schedule (events.md §6.1). */
import { describe, expect, it } from 'vitest';
import { MAX_AUTOMATIC_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS } from '../../../../shared/flows/notifications/delivery/schedule';

const MINUTE = 60_000;

describe('the retry schedule', () => {
  it('waits the contract table after each failed attempt, eleven attempts in all', () => {
    expect(MAX_AUTOMATIC_ATTEMPTS).toBe(11);
    const nominal = Array.from({ length: 10 }, (_, index) => nextAttemptAt(index + 1, 0, () => 0.5));
    expect(nominal).toEqual([1, 5, 15, 60, 180, 360, 720, 1440, 1440, 1440].map((minutes) => minutes * MINUTE));
    // Nominal time since the first attempt of attempt 11: 94 h 21 min.
    expect(RETRY_DELAYS_MS.reduce((sum, wait) => sum + wait, 0)).toBe((94 * 60 + 21) * MINUTE);
  });

  it('ends after the eleventh attempt', () => {
    expect(nextAttemptAt(11, 1_000)).toBeNull();
    expect(nextAttemptAt(12, 1_000)).toBeNull();
  });

  it('multiplies each wait by a factor between 0.9 and 1.1', () => {
    expect(nextAttemptAt(4, 0, () => 0)).toBe(0.9 * 60 * MINUTE);
    expect(nextAttemptAt(4, 0, () => 0.999999)).toBeCloseTo(1.1 * 60 * MINUTE, -2);
    const spread = new Set(Array.from({ length: 50 }, () => nextAttemptAt(2, 0)));
    expect(spread.size).toBeGreaterThan(40);
    for (const at of spread) expect(at! / (5 * MINUTE)).toBeGreaterThanOrEqual(0.9);
    for (const at of spread) expect(at! / (5 * MINUTE)).toBeLessThan(1.1);
  });

  it('gives the whole schedule between about 85 and 104 hours', () => {
    const total = (random: () => number) => RETRY_DELAYS_MS.reduce((at, _, index) => nextAttemptAt(index + 1, at, random)!, 0);
    expect(total(() => 0) / (60 * MINUTE)).toBeCloseTo(84.9, 1);
    expect(total(() => 0.999999) / (60 * MINUTE)).toBeCloseTo(103.8, 1);
  });

  it('refuses a count that is not a positive integer', () => {
    expect(() => nextAttemptAt(0, 0)).toThrow();
    expect(() => nextAttemptAt(1.5, 0)).toThrow();
  });
});
