/**
 * Where OAuth apps live (auth.md 6.1): one item per app, account-wide
 * (`<account>#oauth_apps#<id>` / `record`), listed in its account by creation (gsi1), and a
 * platform-wide pointer from its `client_id` (`oauthclient#<client_id>` / `client`), which the
 * authorize page and the token endpoint know before they know the account. Both are written in
 * one transaction; every change is written over the version read (`modified_ms`).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../../../store/client';
import { byDate, defineEntity, IS_NEW, transact, type RecordScope, type TransactEntry } from '../../../store/entity';
import { VersionConflictError } from '../../../store/errors';
import type { ItemKey } from '../../../store/keys';
import type { OAuthAppRecord } from './oauth-records';

const apps = defineEntity<OAuthAppRecord>({
  name: 'oauth app',
  collection: 'oauth_apps',
  scope: 'account',
  idField: 'oauth_app_id',
  indexes: { gsi1: 'OAuth apps of an account by creation' },
  indexKeys: (app, partition) => ({ gsi1: byDate(partition, app.created_ms, app.oauth_app_id) }),
});

/** Account-wide records carry no mode; the entity helper still takes a scope. */
function account(accountId: string): RecordScope {
  return { accountId, mode: 'live' };
}

/** The platform-wide pointer from a client id to its app. */
function clientKey(clientId: string): ItemKey {
  return { pk: `oauthclient#${clientId}`, sk: 'client' };
}

const lostRace = (appId: string) => () => new VersionConflictError(`OAuth app ${appId} changed concurrently`);

/** Stores a new app and its client id pointer in one transaction. */
export async function insertOAuthApp(app: OAuthAppRecord): Promise<void> {
  await transact([
    apps.putEntry(app, { ifNew: true, name: 'oauth-app.create' }),
    {
      name: 'oauth-app.client-pointer',
      item: { Put: { TableName: table(), Item: { ...clientKey(app.client_id), account_id: app.account_id, oauth_app_id: app.oauth_app_id }, ConditionExpression: IS_NEW.expression } },
    },
  ]);
}

/** An app of the account by id, or undefined (strongly consistent). */
export function findOAuthApp(accountId: string, appId: string): Promise<OAuthAppRecord | undefined> {
  return apps.find(account(accountId), appId);
}

/** The app a client id names on the whole platform, or undefined. */
export async function findOAuthAppByClientId(clientId: string): Promise<OAuthAppRecord | undefined> {
  const pointer = await db().send(new GetCommand({ TableName: table(), Key: clientKey(clientId), ConsistentRead: true }));
  const accountId = pointer.Item?.account_id as string | undefined;
  const appId = pointer.Item?.oauth_app_id as string | undefined;
  if (!accountId || !appId) return undefined;
  return findOAuthApp(accountId, appId);
}

/** The apps of an account in creation order (an account has few; bounded by `max`). */
export function listOAuthApps(accountId: string, max: number): Promise<OAuthAppRecord[]> {
  return apps.query('gsi1', { KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': apps.partition(account(accountId)) }, Limit: 1000 }, max);
}

/** Replaces `current` by `next` over the version read (`VersionConflictError` after a lost race). */
export async function saveOAuthApp(current: OAuthAppRecord, next: OAuthAppRecord): Promise<void> {
  await transact([apps.putEntry(next, { name: 'oauth-app.save', ifVersion: current.modified_ms, onConditionFailed: lostRace(current.oauth_app_id) })]);
}

/** Deletes an app and its client id pointer over the version read (`VersionConflictError` after a lost race). */
export async function removeOAuthApp(current: OAuthAppRecord): Promise<void> {
  const entries: TransactEntry[] = [
    apps.deleteEntry(account(current.account_id), current.oauth_app_id, {
      name: 'oauth-app.delete',
      condition: { expression: 'modified_ms = :version', values: { ':version': current.modified_ms } },
      onConditionFailed: lostRace(current.oauth_app_id),
    }),
    { name: 'oauth-app.client-pointer-delete', item: { Delete: { TableName: table(), Key: clientKey(current.client_id) } } },
  ];
  await transact(entries);
}
