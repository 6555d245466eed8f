/**
 * Where users live (auth.md 9): one item per user, keyed platform-wide by the lower-case user
 * id (so a user id is unique on the whole platform), listed in its account by creation (gsi1),
 * and a platform-wide claim per lower-case email address that makes the email unique and finds
 * the user signing in by email. A taken user id or email is a 409 in_use naming the property;
 * every change is written over the version read (`modified_ms`).
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { InUseError } from '../../http/errors';
import { db, table } from '../../store/client';
import { byDate, defineEntity, EXISTS, IS_NEW, transact, type TransactEntry } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import { userEmailKey, userKey } from '../../store/keys';
import type { UserRecord } from './users';

const users = defineEntity<UserRecord>({
  name: 'user',
  collection: 'users',
  scope: 'account',
  idField: 'user_id',
  indexes: { gsi1: 'users of an account by creation' },
  keyOf: (user) => userKey(user.user_id),
  // Users are account-wide: the mode does not enter their partition.
  indexKeys: (user, partition) => ({ gsi1: byDate(partition, user.created_ms, user.user_id.toLowerCase()) }),
});

const lostRace = () => new VersionConflictError('User changed concurrently');

function emailClaimEntry(user: Pick<UserRecord, 'user_id' | 'account_id' | 'email'>): TransactEntry {
  return {
    name: 'user.claim-email',
    item: { Put: { TableName: table(), Item: { ...userEmailKey(user.email), user_id: user.user_id, account_id: user.account_id }, ConditionExpression: IS_NEW.expression } },
    onConditionFailed: () => new InUseError(`The email address ${user.email} is already taken.`, { property: 'email', reason: 'conflict' }),
  };
}

function emailReleaseEntry(email: string): TransactEntry {
  return { name: 'user.release-email', item: { Delete: { TableName: table(), Key: userEmailKey(email) } } };
}

/** The entries that store a new user and claim its user id and email (409 in_use when taken), for the caller's transaction. */
export function newUserEntries(user: UserRecord): TransactEntry[] {
  return [
    users.putEntry(user, {
      name: 'user.create',
      ifNew: true,
      onConditionFailed: () => new InUseError(`The user id ${user.user_id} is already taken.`, { property: 'user_id', reason: 'conflict' }),
    }),
    emailClaimEntry(user),
  ];
}

/** Stores a new user (409 in_use for a taken user id or email). */
export async function insertUser(user: UserRecord): Promise<void> {
  await transact(newUserEntries(user));
}

/** A user by user id on the whole platform (case-insensitive), or undefined (strongly consistent). */
export async function findUser(userId: string): Promise<UserRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: userKey(userId), ConsistentRead: true }));
  return result.Item && users.recordOf(result.Item);
}

/** The user id an email address belongs to (case-insensitive), or undefined. */
export async function userIdOfEmail(email: string): Promise<string | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: userEmailKey(email), ConsistentRead: true }));
  return result.Item?.user_id as string | undefined;
}

/** The users of an account in creation order (an account has few; bounded by `max`). */
export async function listUsers(accountId: string, max: number): Promise<UserRecord[]> {
  return users.query(
    'gsi1',
    { KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': users.partition({ accountId, mode: 'live' }) }, Limit: 1000 },
    max,
  );
}

/**
 * Replaces `current` by `next` over the version read (`VersionConflictError` after a lost race),
 * moving the email claim when the address changes (409 in_use when the new one is taken).
 */
export async function saveUser(current: UserRecord, next: UserRecord): Promise<void> {
  const moved = current.email.toLowerCase() !== next.email.toLowerCase();
  await transact([
    users.putEntry(next, { name: 'user.save', ifVersion: current.modified_ms, onConditionFailed: lostRace }),
    ...(moved ? [emailClaimEntry(next), emailReleaseEntry(current.email)] : []),
  ]);
}

/** Deletes a user and releases its email over the version read (`VersionConflictError` after a lost race). */
export async function removeUser(current: UserRecord): Promise<void> {
  await transact([
    { name: 'user.delete', item: { Delete: { TableName: table(), Key: userKey(current.user_id), ConditionExpression: 'modified_ms = :version', ExpressionAttributeValues: { ':version': current.modified_ms } } }, onConditionFailed: lostRace },
    emailReleaseEntry(current.email),
  ]);
}

/**
 * Records a successful sign-in: `last_login_ms`, and with `rehashed` the password hash rewritten
 * with the current parameters while it is still `before` (a concurrent password change wins).
 * Not a change of the user: `date_modified` stays.
 */
export async function recordUserLogin(userId: string, now: number, rehash?: { before: string; after: string }): Promise<void> {
  const write = (withHash: boolean) =>
    db().send(
      new UpdateCommand({
        TableName: table(),
        Key: userKey(userId),
        UpdateExpression: withHash ? 'SET last_login_ms = :now, password_hash = :after' : 'SET last_login_ms = :now',
        ConditionExpression: withHash ? `${EXISTS.expression} AND password_hash = :before` : EXISTS.expression,
        ExpressionAttributeValues: { ':now': now, ...(withHash ? { ':before': rehash!.before, ':after': rehash!.after } : {}) },
      }),
    );
  try {
    await write(rehash !== undefined);
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    // The hash changed meanwhile (or the user went): record the login alone, if the user is still there.
    if (rehash) await write(false).catch(() => undefined);
  }
}
