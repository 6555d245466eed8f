/**
 * The automatic retry schedule of notifications (events.md §6.1): eleven attempts over about
 * 3.9 days, each wait multiplied by a random factor between 0.9 and 1.1, so receivers that
 * failed together do not all come back in the same second.
 */

/** Wait after failed attempt n (index n - 1), nominal: 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h, then 24 h three times. */
export const RETRY_DELAYS_MS: readonly number[] = [1, 5, 15, 60, 180, 360, 720, 1440, 1440, 1440].map((minutes) => minutes * 60_000);

/** Automatic attempts in all: the first, then one after each wait. */
export const MAX_AUTOMATIC_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The jitter band: the wait is multiplied by a factor in [0.9, 1.1). */
export const JITTER = 0.1;

/**
 * When the next automatic attempt is due after automatic attempt `attemptsMade` failed at
 * `failedAtMs`, or null when the schedule is over (the event becomes `failed`). `random` is a
 * number in [0, 1), `Math.random()` by default; tests pass their own.
 *
 * @example nextAttemptAt(1, now, () => 0.5) // now + 60 000 (the 1-minute wait, factor 1.0)
 */
export function nextAttemptAt(attemptsMade: number, failedAtMs: number, random: () => number = Math.random): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) throw new Error(`attemptsMade must be a positive integer, got ${attemptsMade}`);
  const wait = RETRY_DELAYS_MS[attemptsMade - 1];
  if (wait === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return failedAtMs + Math.round(wait * factor);
}
