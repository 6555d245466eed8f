/**
 * Where accounts live: the account record and its settings items (one per group, written under
 * their own `version`). Users are the identity module's (its user store gives the owner's entries).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../../store/client';
import { IS_NEW, transact, TransactionRejectedError, writeAll, type TransactEntry } from '../../store/entity';
import { accountKey, settingsKey } from '../../store/keys';
import { recordOf } from '../../store/storage';

/** The stored settings of a group (without its key), or undefined. */
export async function readSettingsItem(accountId: string, group: string, options: { consistent?: boolean } = {}): Promise<Record<string, unknown> | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: settingsKey(accountId, group), ConsistentRead: options.consistent ?? false }));
  return result.Item && recordOf<Record<string, unknown>>(result.Item);
}

/** A changed settings item of an account's group and the item as it was read (undefined: it must still not exist). */
export interface SettingsItemWrite {
  accountId: string;
  group: string;
  item: Record<string, unknown>;
  before: Record<string, unknown> | undefined;
}

function settingsEntry(write: SettingsItemWrite): TransactEntry {
  const key = settingsKey(write.accountId, write.group);
  const version = write.before?.version as number | undefined;
  // Items written before versions existed are replaced only while they still have none.
  const condition = !write.before
    ? { ConditionExpression: IS_NEW.expression }
    : version === undefined
      ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(version)' }
      : { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': version } };
  return { name: `settings.${key.sk}`, item: { Put: { TableName: table(), Item: { ...write.item, ...key }, ...condition } } };
}

/**
 * Writes changed settings items, all or none, each only if it is still as it was read.
 * Answers false when another writer changed one first (or a concurrent transaction kept it
 * from applying), so the caller reads again.
 */
export async function saveSettingsItems(writes: readonly SettingsItemWrite[]): Promise<boolean> {
  try {
    await writeAll(writes.map(settingsEntry), { conflictAttempts: 1 });
    return true;
  } catch (error) {
    if (error instanceof TransactionRejectedError) return false;
    throw error;
  }
}

/** What a new account is made of (items as they will be stored, without keys). */
export interface NewAccount {
  accountId: string;
  account: Record<string, unknown>;
  technicalSettings: Record<string, unknown>;
  generalSettings: Record<string, unknown>;
  /** The owner user's entries (the identity module's user store: the user and its claims). */
  owner: TransactEntry[];
  /** The owner's token entries (token store). */
  tokens: TransactEntry[];
}

/**
 * Creates an account, its settings, its owner user, the user id and email claims and the
 * owner's tokens in one transaction, so either all of it exists or none does. A taken user id
 * or email address answers 409 in_use; any other refusal is a `TransactionRejectedError`.
 */
export async function insertAccount(account: NewAccount): Promise<void> {
  const { accountId } = account;
  await transact([
    { name: 'account.create', item: { Put: { TableName: table(), Item: { ...accountKey(accountId), ...account.account }, ConditionExpression: IS_NEW.expression } } },
    { name: 'settings.technical', item: { Put: { TableName: table(), Item: { ...settingsKey(accountId, 'technical'), ...account.technicalSettings } } } },
    { name: 'settings.general', item: { Put: { TableName: table(), Item: { ...settingsKey(accountId, 'general'), ...account.generalSettings } } } },
    ...account.owner,
    ...account.tokens,
  ]);
}
