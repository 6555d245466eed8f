/**
 * Where hosted apps live (hosting.md §2–§5, §10, §11). Everything is account-wide (no mode in
 * any key):
 *
 * - **app** `<account>#apps#<app_id>` / `record`: the app, listed in creation order through the
 *   bucketed offset index (`<account>#apps`). Its custom CSS and JavaScript (up to 256 KB each,
 *   too much for one item next to the rest) are items of the same partition, sort keys
 *   `custom_css` and `custom_javascript`, so one Query reads the whole app. `revision` is bumped
 *   by every change that moves a pointer; such writes are conditional on it.
 * - **app version** `<account>#app_versions#<version_id>` / `record`, listed per app under
 *   `<account>#apps#<app_id>#versions` by its `number` (the bucketed index, the number being the
 *   sequence: the app record's `versions_uploaded` counter, advanced in the same transaction).
 * - **app deployment** `<account>#app_deployments#<deployment_id>` / `record`, listed per app under
 *   `<account>#apps#<app_id>#deployments` (sequence: the app's `deployments_made`).
 * - **alias pointer** `apphost#<account, lower case>#<alias>` / `alias`: what serving reads per
 *   request (one strongly consistent GetItem), and the claim that makes an alias unique in the
 *   account. Its key uses the lower-cased account id because app hosts arrive lower-cased
 *   (hosting.md §1); generated account ids are upper case, so no two accounts share a key.
 */
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../../../store/client';
import { bySequence, defineEntity, type RecordScope, type TransactEntry } from '../../../store/entity';
import { RecordNotFoundError, VersionConflictError } from '../../../store/errors';
import { batchGetItems } from '../../../store/batch';
import { bucketCounterWrite, readOffsetCollection, readWholeListing, reserveSequence } from '../../../store/offset-index';
import { queryItems } from '../../../store/query';
import { recordOf } from '../../../store/storage';
import type { AliasRecord, AppRecord, DeploymentRecord, VersionRecord, VersionStatus } from './app-records';
import { AliasInUseError } from './errors';

/** The app item as stored: settings and style as compact JSON text, custom code in items of its own. */
interface StoredApp extends Omit<AppRecord, 'settings' | 'style' | 'custom_css' | 'custom_javascript'> {
  settings_json: string;
  style_json: string;
  has_custom_css: boolean;
  has_custom_javascript: boolean;
}

/** The listing partition of an app's versions (`suffix` `versions`) or deployments (`deployments`), under the account's apps. */
const appListing = (appsListing: string, appId: string, suffix: 'versions' | 'deployments') => `${appsListing}#${appId}#${suffix}`;

const apps = defineEntity<StoredApp>({ name: 'app', collection: 'apps', scope: 'account', idField: 'app_id',
  indexes: { gsi1: 'apps by creation sequence (offset list)' },
  indexKeys: (app, partition) => ({ gsi1: bySequence(partition, app.seq) }) });
const versions = defineEntity<VersionRecord>({ name: 'app version', collection: 'app_versions', scope: 'account', idField: 'version_id',
  indexes: { gsi1: 'versions of an app by number (offset list): <account>#apps#<app_id>#versions' },
  indexKeys: (version) => ({ gsi1: bySequence(appListing(appsPartition(version.account_id), version.app_id, 'versions'), version.number) }) });
const deployments = defineEntity<DeploymentRecord>({ name: 'app deployment', collection: 'app_deployments', scope: 'account', idField: 'deployment_id',
  indexes: { gsi1: 'deployments of an app in order (offset list): <account>#apps#<app_id>#deployments' },
  indexKeys: (deployment) => ({ gsi1: bySequence(appListing(appsPartition(deployment.account_id), deployment.app_id, 'deployments'), deployment.seq) }) });

/** The custom code kinds, stored beside the app record. */
const CODE_KINDS = ['custom_css', 'custom_javascript'] as const;
type CodeKind = (typeof CODE_KINDS)[number];

/** Account-wide records carry no mode; the entity helper still takes a scope. */
function account(accountId: string): RecordScope {
  return { accountId, mode: 'live' };
}

const revisionIs = (revision: number) => ({ expression: 'revision = :expected_revision', values: { ':expected_revision': revision } });
const conflict = (appId: string) => () => new VersionConflictError(`App ${appId} changed concurrently`);

// --- apps

/** The listing partition of an account's apps. */
export function appsPartition(accountId: string): string {
  return apps.partition(account(accountId));
}

/** Reserves the listing position of a new app. */
export async function reserveAppPosition(accountId: string): Promise<number> {
  return reserveSequence(appsPartition(accountId));
}

function toStored(app: AppRecord): StoredApp {
  const { settings, style, custom_css, custom_javascript, ...rest } = app;
  return {
    ...rest,
    settings_json: JSON.stringify(settings),
    style_json: JSON.stringify(style),
    has_custom_css: custom_css !== null,
    has_custom_javascript: custom_javascript !== null,
  };
}

function fromStored(stored: StoredApp, code: Partial<Record<CodeKind, string>>): AppRecord {
  const { settings_json, style_json, has_custom_css: _css, has_custom_javascript: _js, ...rest } = stored;
  return {
    ...rest,
    settings: JSON.parse(settings_json) as Record<string, unknown>,
    style: JSON.parse(style_json) as Record<string, unknown>,
    custom_css: code.custom_css ?? null,
    custom_javascript: code.custom_javascript ?? null,
    alias_pins: { ...(rest.alias_pins ?? {}) },
  };
}

/** One strongly consistent Query of the app's partition: the record and its custom code. */
export async function findApp(accountId: string, appId: string): Promise<AppRecord | undefined> {
  const key = apps.key(account(accountId), appId);
  const items = await queryItems({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': key.pk }, ConsistentRead: true });
  const record = items.find((item) => item.sk === 'record');
  if (!record) return undefined;
  const code = Object.fromEntries(items.filter((item) => item.sk !== 'record').map((item) => [item.sk as string, item.code as string]));
  return fromStored(recordOf<StoredApp>(record), code);
}

/** The app; 404 resource_not_found when the account has none with this id. */
export async function getApp(accountId: string, appId: string): Promise<AppRecord> {
  const app = await findApp(accountId, appId);
  if (!app) throw new RecordNotFoundError('app', appId, 'app_id');
  return app;
}

/** Stored apps made readable: custom code read in one batch for those that have any. */
async function withCode(items: StoredApp[]): Promise<AppRecord[]> {
  const pkOf = (item: StoredApp) => apps.key(account(item.account_id), item.app_id).pk;
  const keys = items.flatMap((item) =>
    CODE_KINDS.filter((kind) => (kind === 'custom_css' ? item.has_custom_css : item.has_custom_javascript)).map((kind) => ({ pk: pkOf(item), sk: kind })),
  );
  // batchGetItems answers by pk; read each kind apart so the two items of one app do not collide.
  const byKind = await Promise.all(CODE_KINDS.map((kind) => batchGetItems(keys.filter((key) => key.sk === kind))));
  return items.map((item) =>
    fromStored(item, Object.fromEntries(CODE_KINDS.flatMap((kind, index) => (byKind[index]!.has(pkOf(item)) ? [[kind, byKind[index]!.get(pkOf(item))!.code as string]] : [])))),
  );
}

/** How a page of apps is read. */
export interface AppPageRead {
  offset: number;
  limit: number;
  descending: boolean;
  filter?: (app: Pick<AppRecord, 'name' | 'alias'>) => boolean;
  sortKey?: (app: Pick<AppRecord, 'name' | 'created_ms' | 'deployed_ms'>) => string | number;
}

/** One page of an account's apps and their total (the bucket index for the default order). */
export async function readAppPage(accountId: string, read: AppPageRead): Promise<{ items: AppRecord[]; total: number }> {
  const page = await readOffsetCollection<StoredApp>({ partition: appsPartition(accountId), counted: true, idOf: (app) => app.app_id, ...read });
  return { items: await withCode(page.items), total: page.total };
}

/** Entries that write the custom code items of `next` that differ from `current`'s. */
function codeEntries(next: AppRecord, current: AppRecord | undefined): TransactEntry[] {
  const pk = apps.key(account(next.account_id), next.app_id).pk;
  return CODE_KINDS.flatMap((kind): TransactEntry[] => {
    const value = next[kind];
    if (current && current[kind] === value) return [];
    if (value === null) return current ? [{ name: `app.${kind}.delete`, item: { Delete: { TableName: table(), Key: { pk, sk: kind } } } }] : [];
    return [{ name: `app.${kind}.put`, item: { Put: { TableName: table(), Item: { pk, sk: kind, code: value } } } }];
  });
}

/** The entries that create an app: its record and listing count, its primary alias's pointer (409 when taken), its custom code. */
export function newAppEntries(app: AppRecord, primary: AliasRecord): TransactEntry[] {
  return [
    apps.putEntry(toStored(app), { ifNew: true, name: 'app.create' }),
    { name: 'app.bucket-counter', item: bucketCounterWrite(appsPartition(app.account_id), app.seq, 1) },
    newPointerEntry(primary),
    ...codeEntries(app, undefined),
  ];
}

/** The entries that replace `current` by `next` (its revision advanced), if nobody changed it meanwhile (`VersionConflictError`). */
export function saveAppEntries(current: AppRecord, next: AppRecord): TransactEntry[] {
  return [
    apps.putEntry(toStored({ ...next, revision: current.revision + 1 }), { name: 'app.save', condition: revisionIs(current.revision), onConditionFailed: conflict(current.app_id) }),
    ...codeEntries(next, current),
  ];
}

/**
 * The entry that changes some of the app's attributes and advances its revision, if nobody
 * changed it meanwhile (`VersionConflictError`). Dotted paths reach into `alias_pins`.
 */
export function changeAppEntry(app: AppRecord, change: { set?: Record<string, unknown>; remove?: string[] }, name = 'app.change'): TransactEntry {
  return apps.updateEntry(account(app.account_id), app.app_id, {
    name,
    set: { ...change.set, revision: app.revision + 1 },
    ...(change.remove?.length ? { remove: change.remove } : {}),
    condition: revisionIs(app.revision),
    onConditionFailed: conflict(app.app_id),
  });
}

/** A check, in a transaction, that the app still exists (an upload finishing after a delete fails). */
export function appExistsCheck(accountId: string, appId: string, onGone: () => Error): TransactEntry {
  return { name: 'app.exists', item: { ConditionCheck: { TableName: table(), Key: apps.key(account(accountId), appId), ConditionExpression: 'attribute_exists(pk)' } }, onConditionFailed: onGone };
}

/** The entries that delete an app (if nobody changed it meanwhile): record, listing count, custom code and every alias pointer. */
export function deleteAppEntries(app: AppRecord): TransactEntry[] {
  const pk = apps.key(account(app.account_id), app.app_id).pk;
  return [
    apps.deleteEntry(account(app.account_id), app.app_id, { name: 'app.delete', condition: revisionIs(app.revision), onConditionFailed: conflict(app.app_id) }),
    { name: 'app.bucket-counter', item: bucketCounterWrite(appsPartition(app.account_id), app.seq, -1) },
    ...CODE_KINDS.map((kind): TransactEntry => ({ name: `app.${kind}.delete`, item: { Delete: { TableName: table(), Key: { pk, sk: kind } } } })),
    ...Object.keys(app.alias_pins).map((alias) => deletePointerEntry(app.account_id, alias, app.app_id)),
  ];
}

// --- alias pointers

/** The key of the pointer of (account, alias). */
export function pointerKey(accountId: string, alias: string): { pk: string; sk: string } {
  return { pk: `apphost#${accountId.toLowerCase()}#${alias}`, sk: 'alias' };
}

/** The pointer of (account, alias) with the alias's facts, or undefined (one strongly consistent GetItem). */
export async function findAliasRecord(accountId: string, alias: string): Promise<AliasRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: pointerKey(accountId, alias), ConsistentRead: true }));
  return result.Item && recordOf<AliasRecord>(result.Item);
}

/** The entry that writes a new alias pointer; a taken alias is 409 in_use. */
export function newPointerEntry(record: AliasRecord, property = 'alias'): TransactEntry {
  return {
    name: 'alias.create',
    item: { Put: { TableName: table(), Item: { ...record, ...pointerKey(record.account_id, record.alias) }, ConditionExpression: 'attribute_not_exists(pk)' } },
    onConditionFailed: () => new AliasInUseError(record.alias, property),
  };
}

/** The entry that replaces an alias pointer of the app (it must still be the app's). */
export function replacePointerEntry(record: AliasRecord): TransactEntry {
  return {
    name: 'alias.replace',
    item: {
      Put: {
        TableName: table(),
        Item: { ...record, ...pointerKey(record.account_id, record.alias) },
        ConditionExpression: 'app_id = :app',
        ExpressionAttributeValues: { ':app': record.app_id },
      },
    },
    onConditionFailed: conflict(record.app_id),
  };
}

/** The entry that points an alias of the app that follows the live version at `versionId`. */
export function followPointerEntry(accountId: string, alias: string, appId: string, versionId: string | null, modifiedMs: number): TransactEntry {
  return {
    name: 'alias.follow',
    item: {
      Update: {
        TableName: table(),
        Key: pointerKey(accountId, alias),
        UpdateExpression: 'SET version_id = :version, modified_ms = :modified',
        ConditionExpression: 'app_id = :app',
        ExpressionAttributeValues: { ':version': versionId, ':modified': modifiedMs, ':app': appId },
      },
    },
    onConditionFailed: conflict(appId),
  };
}

/** The entry that removes an alias pointer of the app. */
export function deletePointerEntry(accountId: string, alias: string, appId: string): TransactEntry {
  return {
    name: 'alias.delete',
    item: { Delete: { TableName: table(), Key: pointerKey(accountId, alias), ConditionExpression: 'app_id = :app', ExpressionAttributeValues: { ':app': appId } } },
    onConditionFailed: conflict(appId),
  };
}

// --- versions

/** The listing partition of an app's versions (listed by their number). */
export function versionsPartition(accountId: string, appId: string): string {
  return appListing(appsPartition(accountId), appId, 'versions');
}

/** A version by id (any app of the account), or undefined (strongly consistent). */
export async function findVersion(accountId: string, versionId: string): Promise<VersionRecord | undefined> {
  return versions.find(account(accountId), versionId);
}

/**
 * The entries that write a new `processing` version: its record and listing count, and the
 * app's upload counter advanced to its number, if it still stands where it was read (a
 * concurrent upload took the number: `VersionConflictError`; the app is gone: the same, and the
 * caller's re-read answers 404).
 */
export function newVersionEntries(version: VersionRecord): TransactEntry[] {
  const scope = account(version.account_id);
  return [
    versions.putEntry(version, { ifNew: true, name: 'app version.create' }),
    { name: 'app version.bucket-counter', item: bucketCounterWrite(versionsPartition(version.account_id, version.app_id), version.number, 1) },
    apps.updateEntry(scope, version.app_id, {
      name: 'app.count-upload',
      set: { versions_uploaded: version.number },
      condition: { expression: 'versions_uploaded = :previous_number', values: { ':previous_number': version.number - 1 } },
      onConditionFailed: conflict(version.app_id),
    }),
  ];
}

/** The entry that moves a version from `from` to `status` with its facts; `onChanged` when it is no longer in `from`. */
export function versionStatusEntry(version: Pick<VersionRecord, 'account_id' | 'version_id'>, from: VersionStatus, set: Partial<VersionRecord> & { status: VersionStatus; modified_ms: number }, onChanged: () => Error): TransactEntry {
  return versions.updateEntry(account(version.account_id), version.version_id, {
    name: `app version.${set.status}`,
    set,
    condition: { expression: '#status = :from', names: { '#status': 'status' }, values: { ':from': from } },
    onConditionFailed: onChanged,
  });
}

/** A check, in a transaction, that the version exists and is ready (a deploy or pin of a version deleted meanwhile fails). */
export function versionReadyCheck(accountId: string, versionId: string, onChanged: () => Error): TransactEntry {
  return {
    name: 'app version.ready',
    item: {
      ConditionCheck: {
        TableName: table(),
        Key: versions.key(account(accountId), versionId),
        ConditionExpression: '#status = :ready',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':ready': 'ready' },
      },
    },
    onConditionFailed: onChanged,
  };
}

/** The entries that delete a version (if it is still in the status read) and count it out of its listing. */
export function deleteVersionEntries(version: VersionRecord, onChanged: () => Error): TransactEntry[] {
  return [
    versions.deleteEntry(account(version.account_id), version.version_id, {
      name: 'app version.delete',
      condition: { expression: '#status = :status', names: { '#status': 'status' }, values: { ':status': version.status } },
      onConditionFailed: onChanged,
    }),
    { name: 'app version.bucket-counter', item: bucketCounterWrite(versionsPartition(version.account_id, version.app_id), version.number, -1) },
  ];
}

/** One page of an app's versions by number, and their total. */
export async function readVersionPage(accountId: string, appId: string, read: { offset: number; limit: number; descending: boolean }): Promise<{ items: VersionRecord[]; total: number }> {
  return readOffsetCollection<VersionRecord>({ partition: versionsPartition(accountId, appId), counted: true, idOf: (version) => version.version_id, ...read });
}

/** Every version record of an app still listed (for removing a deleted app). */
export async function allVersions(accountId: string, appId: string): Promise<VersionRecord[]> {
  return (await readWholeListing(versionsPartition(accountId, appId))) as unknown as VersionRecord[];
}

/** Removes a version record for good (the app is gone; no listing count is kept for it). */
export async function removeVersionRecord(version: VersionRecord): Promise<void> {
  await db().send(new DeleteCommand({ TableName: table(), Key: versions.key(account(version.account_id), version.version_id) }));
}

// --- deployments

/** The listing partition of an app's deployments. */
export function deploymentsPartition(accountId: string, appId: string): string {
  return appListing(appsPartition(accountId), appId, 'deployments');
}

/** The entries that record a deployment and count it into its listing. */
export function newDeploymentEntries(deployment: DeploymentRecord): TransactEntry[] {
  return [
    deployments.putEntry(deployment, { ifNew: true, name: 'app deployment.create' }),
    { name: 'app deployment.bucket-counter', item: bucketCounterWrite(deploymentsPartition(deployment.account_id, deployment.app_id), deployment.seq, 1) },
  ];
}

/** A deployment by id (any app of the account), or undefined. */
export async function findDeployment(accountId: string, deploymentId: string): Promise<DeploymentRecord | undefined> {
  return deployments.find(account(accountId), deploymentId);
}

/** One page of an app's deployments in order, and their total. */
export async function readDeploymentPage(accountId: string, appId: string, read: { offset: number; limit: number; descending: boolean }): Promise<{ items: DeploymentRecord[]; total: number }> {
  return readOffsetCollection<DeploymentRecord>({ partition: deploymentsPartition(accountId, appId), counted: true, idOf: (deployment) => deployment.deployment_id, ...read });
}

/** Every deployment record of an app (for removing a deleted app). */
export async function allDeployments(accountId: string, appId: string): Promise<DeploymentRecord[]> {
  return (await readWholeListing(deploymentsPartition(accountId, appId))) as unknown as DeploymentRecord[];
}

/** Removes a deployment record for good (the app is gone). */
export async function removeDeploymentRecord(deployment: DeploymentRecord): Promise<void> {
  await db().send(new DeleteCommand({ TableName: table(), Key: deployments.key(account(deployment.account_id), deployment.deployment_id) }));
}

/** Removes the bucket counters of a listing partition nobody lists any more (a deleted app's versions or deployments). */
export async function removeListingCounters(partition: string): Promise<void> {
  const counters = await queryItems({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `${partition}#buckets` } });
  await Promise.all(counters.map((item) => db().send(new DeleteCommand({ TableName: table(), Key: { pk: item.pk, sk: item.sk } }))));
}
