/**
 * Rate limiting as a token bucket (conventions.md section 18), implemented with GCRA: one
 * number per bucket, the theoretical arrival time (TAT). A request at `now` is allowed when
 * `TAT - now <= (burst - 1) * interval`; it then moves TAT to `max(TAT, now) + interval`.
 *
 * The bucket lives in DynamoDB so every Lambda instance shares it. For tokens it is stored
 * on the token record itself and updated by the same call that authenticates (see
 * authenticate.ts): one write per request does lookup, expiry, sliding and limiting.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nowMs } from '../clock';
import type { RateLimit } from '../config';
import { RequestLimitExceededError } from '../http/errors';
import { db, table } from '../store/client';
import type { ItemKey } from '../store/keys';

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

/** One GCRA decision for a bucket whose stored TAT is `tat` (undefined: never used). */
export function gcra(tat: number | undefined, now: number, limit: RateLimit): GcraDecision {
  const interval = intervalMs(limit);
  const tolerance = (limit.burst - 1) * interval;
  const current = Math.max(tat ?? now, now);
  if (current - now > tolerance) {
    return { allowed: false, nextTat: current, retryAfterMs: current - tolerance - now };
  }
  return { allowed: true, nextTat: current + interval, retryAfterMs: 0 };
}

/**
 * Takes one request from the bucket at `key`, creating it on first use; throws 429 with
 * `Retry-After` when it is empty. Used for the per-IP limit of public endpoints.
 */
export async function takeFromBucket(key: ItemKey, limit: RateLimit): Promise<void> {
  let known: number | undefined;
  for (let attempt = 0; attempt < 8; attempt++) {
    const now = nowMs();
    const decision = gcra(known, now, limit);
    if (!decision.allowed) throw new RequestLimitExceededError(decision.retryAfterMs / 1000);
    try {
      await db().send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: 'SET rl_tat = :next, #ttl = :ttl',
          ConditionExpression:
            known === undefined ? 'attribute_not_exists(rl_tat) OR rl_tat <= :now' : 'rl_tat = :known',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':next': decision.nextTat,
            ':ttl': Math.ceil(decision.nextTat / 1000) + 3600,
            ...(known === undefined ? { ':now': now } : { ':known': known }),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const stored = error.Item?.rl_tat?.N;
      known = stored === undefined ? undefined : Number(stored);
    }
  }
  // Heavy contention on one bucket: refuse rather than spin.
  throw new RequestLimitExceededError(1);
}
