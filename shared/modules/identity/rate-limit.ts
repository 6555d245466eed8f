/**
 * Rate limiting as a token bucket (conventions.md section 18), implemented with GCRA: one
 * number per bucket, the theoretical arrival time (TAT). A request at `now` is allowed when
 * `TAT - now <= (burst - 1) * interval`; it then moves TAT to `max(TAT, now) + interval`.
 *
 * The bucket lives in DynamoDB so every Lambda instance shares it. `max()` cannot be written
 * in an UpdateExpression, so a step is one of two conditional updates, chosen from what we
 * last knew of the bucket:
 * - `fresh` (TAT is in the past or absent): `SET rl_tat = :now + interval`;
 * - `increment` (TAT is ahead of now, within the tolerance): `SET rl_tat = rl_tat + interval`.
 * The increment is atomic and commutative, so concurrent requests of one token never fail
 * each other; a condition fails only when the bucket really is empty or the guess was wrong.
 *
 * For tokens the bucket is stored on the token record and updated by the same call that
 * authenticates (authenticate.ts); public endpoints use per-IP bucket items (`takeFromBucket`).
 */
import type { RateLimit } from '../../core/config';
import { RequestLimitExceededError } from '../../http/errors';
import type { Clock } from '../../platform/ports';
import type { ItemKey } from '../../store/keys';
import { takeBucketStep } from './rate-limit-store';

export { bucketClauses } from './rate-limit-store';

/** Outcome of one GCRA step. */
export interface GcraDecision {
  allowed: boolean;
  /** The TAT to store when allowed. */
  nextTat: number;
  /** Milliseconds until a request would be allowed (0 when allowed). */
  retryAfterMs: number;
}

/** Milliseconds between two bucket refills. */
export function intervalMs(limit: RateLimit): number {
  return 1000 / limit.rate;
}

/** The largest TAT at which a request at `now` is still allowed. */
export function latestAllowedTat(now: number, limit: RateLimit): number {
  return now + (limit.burst - 1) * intervalMs(limit);
}

/** One GCRA decision for a bucket whose stored TAT is `tat` (undefined: never used). */
export function gcra(tat: number | undefined, now: number, limit: RateLimit): GcraDecision {
  const current = Math.max(tat ?? now, now);
  const latest = latestAllowedTat(now, limit);
  if (current > latest) return { allowed: false, nextTat: current, retryAfterMs: current - latest };
  return { allowed: true, nextTat: current + intervalMs(limit), retryAfterMs: 0 };
}

/** Which conditional update to try next for a bucket whose TAT was last seen as `tat`. */
export type BucketStep = 'fresh' | 'increment';

/**
 * The step that takes `slots` requests at once from a bucket last seen at `tat`; throws 429
 * (with the wait for one slot) when not even one request fits.
 */
export function nextStep(tat: number | undefined, now: number, limit: RateLimit, slots = 1): BucketStep {
  const decision = gcra(tat, now, limit);
  if (!decision.allowed) throw new RequestLimitExceededError(decision.retryAfterMs / 1000);
  return tat === undefined || tat <= now ? 'fresh' : 'increment';
}

/** Whether `slots` requests fit at once into a bucket last seen at `tat`. */
export function slotsFit(tat: number | undefined, now: number, limit: RateLimit, slots: number): boolean {
  return Math.max(tat ?? now, now) + (slots - 1) * intervalMs(limit) <= latestAllowedTat(now, limit);
}

/** Attempts before giving up; each failed attempt means the bucket moved under us. */
export const MAX_BUCKET_ATTEMPTS = 16;

/** A short random pause after repeated lost races on one bucket, so concurrent requests spread out. */
export async function bucketBackoff(attempt: number): Promise<void> {
  if (attempt >= 2) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * attempt));
}

/**
 * Takes one request from the bucket at `key`, creating it on first use; throws 429 with
 * `Retry-After` when it is empty. Used for the per-IP limit of public endpoints.
 */
export async function takeFromBucket(key: ItemKey, limit: RateLimit, clock: Clock): Promise<void> {
  let known: number | undefined;
  for (let attempt = 0; attempt < MAX_BUCKET_ATTEMPTS; attempt++) {
    const now = clock.nowMs();
    const result = await takeBucketStep(key, nextStep(known, now, limit), now, limit);
    if (result.taken) return;
    known = result.storedTat;
    await bucketBackoff(attempt);
  }
  throw new RequestLimitExceededError(1);
}
