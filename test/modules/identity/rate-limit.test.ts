import { describe, expect, it } from 'vitest';
import { gcra } from '../../../shared/modules/identity/rate-limit';

describe('GCRA token bucket (conventions.md 18)', () => {
  const limit = { rate: 100, burst: 200 };

  it('allows a burst of exactly `burst` requests at one instant', () => {
    let tat: number | undefined;
    let allowed = 0;
    for (let i = 0; i < 250; i++) {
      const decision = gcra(tat, 1_000_000, limit);
      if (decision.allowed) {
        allowed++;
        tat = decision.nextTat;
      }
    }
    expect(allowed).toBe(200);
  });

  it('refills at `rate` per second and says when to retry', () => {
    let tat: number | undefined;
    for (let i = 0; i < 200; i++) tat = gcra(tat, 0, limit).nextTat;
    const refused = gcra(tat, 0, limit);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeCloseTo(10, 5);
    expect(gcra(tat, 10, limit).allowed).toBe(true);
    // After one second of silence, 100 more are available (and not more than the burst).
    let later = tat;
    let count = 0;
    while (gcra(later, 1000, limit).allowed) {
      later = gcra(later, 1000, limit).nextTat;
      count++;
    }
    expect(count).toBe(100);
  });

  it('never lets an idle bucket bank more than the burst', () => {
    let tat: number | undefined = 0;
    let count = 0;
    while (gcra(tat, 3_600_000, { rate: 2, burst: 3 }).allowed) {
      tat = gcra(tat, 3_600_000, { rate: 2, burst: 3 }).nextTat;
      count++;
    }
    expect(count).toBe(3);
  });
});
