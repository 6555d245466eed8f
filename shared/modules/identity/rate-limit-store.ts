/**
 * Where rate-limit buckets live: the GCRA state (`rl_tat`) on a token record or on a per-IP
 * bucket item, moved by one conditional update per step. rate-limit.ts decides which step to
 * try; this file owns the update and condition expressions that take it.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimit } from '../../core/config';
import { db, table } from '../../store/client';
import type { ItemKey } from '../../store/keys';
import { intervalMs, latestAllowedTat, type BucketStep } from './rate-limit';

/** The update and condition clauses that take `slots` requests, with their placeholder values. */
export function bucketClauses(step: BucketStep, now: number, limit: RateLimit, slots = 1) {
  const interval = intervalMs(limit);
  return step === 'fresh'
    ? {
        set: 'rl_tat = :rl_next',
        condition: '(attribute_not_exists(rl_tat) OR rl_tat <= :rl_now)',
        values: { ':rl_next': now + slots * interval, ':rl_now': now },
      }
    : {
        set: 'rl_tat = rl_tat + :rl_add',
        condition: '(rl_tat > :rl_now AND rl_tat <= :rl_latest)',
        values: { ':rl_add': slots * interval, ':rl_now': now, ':rl_latest': latestAllowedTat(now, limit) - (slots - 1) * interval },
      };
}

/**
 * Takes one request from the per-IP bucket at `key` with `step` (creating the bucket on first
 * use, kept an hour). Answers whether it was taken and, when not, the stored TAT the bucket
 * really had, so the caller can decide again.
 */
export async function takeBucketStep(key: ItemKey, step: BucketStep, now: number, limit: RateLimit): Promise<{ taken: true } | { taken: false; storedTat: number | undefined }> {
  const clauses = bucketClauses(step, now, limit);
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: `SET ${clauses.set}, #ttl = :ttl`,
        ConditionExpression: clauses.condition,
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ...clauses.values, ':ttl': Math.ceil(now / 1000) + 3600 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { taken: true };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const stored = error.Item?.rl_tat?.N;
    return { taken: false, storedTat: stored === undefined ? undefined : Number(stored) };
  }
}
