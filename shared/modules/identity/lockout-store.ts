/**
 * Where login lockouts live: one item per login name (`lockoutKey`), written under its own
 * `version` so concurrent failures on one name never overwrite each other's count.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../../store/client';
import { TransactionRejectedError, writeOne } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import type { ItemKey } from '../../store/keys';
import { recordOf } from '../../store/storage';

/** How long after it stops mattering DynamoDB TTL may remove a lockout item. */
const TTL_GRACE_SECONDS = 3600;

/**
 * The key of a login name's lockout item: `realm` names what signs in (`customers`, `users`),
 * `partition` where its names are unique (`<account>#<mode>` for customers). Names are
 * compared case-insensitively.
 */
export function lockoutKey(partition: string, realm: string, loginName: string): ItemKey {
  return { pk: `${partition}#login-lockout#${realm}#${loginName.toLowerCase()}`, sk: 'lockout' };
}

/** The lockout state of one login name. */
export interface LockoutState {
  /** Failure instants (epoch ms) still inside the window when last written, oldest first. */
  failures_ms: number[];
  /** End of the current lock (epoch ms); absent or past when not locked. */
  locked_until_ms?: number;
  /** Optimistic-concurrency version, incremented by every write. */
  version: number;
}

/** The lockout state of a name, or undefined when it has none (strongly consistent). */
export async function readLockout(key: ItemKey): Promise<LockoutState | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  return result.Item && recordOf<LockoutState>(result.Item);
}

/**
 * Stores `next` if the state is still `current` (else `VersionConflictError`, for
 * `retryOnConflict`); the item may go after `keepUntilMs` (the table's TTL, with a grace period).
 */
export async function recordFailedLogin(key: ItemKey, current: LockoutState | undefined, next: LockoutState, keepUntilMs: number): Promise<void> {
  await writeOne({
    name: 'lockout.count-failure',
    item: {
      Put: {
        TableName: table(),
        Item: { ...key, ...next, ttl: Math.ceil(keepUntilMs / 1000) + TTL_GRACE_SECONDS },
        ConditionExpression: current ? 'version = :version' : 'attribute_not_exists(pk)',
        ...(current ? { ExpressionAttributeValues: { ':version': current.version } } : {}),
      },
    },
    onConditionFailed: () => new VersionConflictError(`Lockout ${key.pk} changed concurrently`),
  });
}

/** Forgets the failures of a name after a success, unless a concurrent failure locked it meanwhile (then nothing changes). */
export async function clearFailedLogins(key: ItemKey, now: number): Promise<void> {
  try {
    await writeOne({
      name: 'lockout.reset',
      item: {
        Delete: {
          TableName: table(),
          Key: key,
          ConditionExpression: 'attribute_not_exists(locked_until_ms) OR locked_until_ms <= :now',
          ExpressionAttributeValues: { ':now': now },
        },
      },
    });
  } catch (error) {
    if (!(error instanceof TransactionRejectedError)) throw error;
  }
}
