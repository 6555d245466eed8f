/**
 * Aliases (hosting.md §5): besides the primary (`app.alias`, always the live version in the mode
 * `app.test`, changed through the app), an app may have aliases that follow the live version or
 * are pinned to one ready version, each with its own mode; at most 10 per app, the primary
 * included. Every change writes the alias's pointer and the app's `alias_pins` (conditional on
 * the app's revision) in one transaction, so a deploy never misses an alias created meanwhile.
 */
import { InvalidInputError } from '../../../http/errors';
import type { Platform } from '../../../platform/ports';
import { sends } from '../../../rest/input';
import { RecordNotFoundError, VersionConflictError } from '../../../store/errors';
import { retryOnConflict } from '../../../store/records';
import { transact, type TransactEntry } from '../../../store/transact';
import type { AliasRecord, AppRecord } from './app-records';
import { appAliases } from './apps';
import { changeAppEntry, deletePointerEntry, findAliasRecord, findVersion, getApp, newPointerEntry, replacePointerEntry, versionReadyCheck } from './apps-store';
import { copyEdgePointers, edgePointerEntries } from './edge-pointer-work';
import { AliasInUseError, AppStateError, TooManyAliasesError } from './errors';
import { MAX_ALIASES_PER_APP } from './limits';

/** What an alias body may send. */
export interface AliasInput {
  version_id?: string | null | undefined;
  test?: boolean | undefined;
}

/** An alias of the app: 404 when the app has none of this name. */
async function aliasOf(app: AppRecord, alias: string): Promise<AliasRecord> {
  const record = Object.hasOwn(app.alias_pins, alias) ? await findAliasRecord(app.account_id, alias) : undefined;
  if (!record || record.app_id !== app.app_id) throw new RecordNotFoundError('alias', alias, 'alias');
  return record;
}

/** A pinned version must be a ready version of the app (400 invalid_input on `version_id` otherwise); answers the check that keeps it so until the write. */
async function pinCheck(app: AppRecord, versionId: string | null): Promise<TransactEntry[]> {
  if (versionId === null) return [];
  const version = await findVersion(app.account_id, versionId);
  if (!version || version.app_id !== app.app_id) throw new InvalidInputError(`The version ${versionId} does not exist in this app.`, { property: 'version_id', reason: 'not_found' });
  if (version.status !== 'ready') throw new InvalidInputError(`The version ${versionId} is ${version.status}; an alias can only be pinned to a ready version.`, { property: 'version_id', reason: 'not_ready' });
  return [versionReadyCheck(app.account_id, versionId, () => new VersionConflictError(`Version ${versionId} changed concurrently`))];
}

/** The primary alias is changed through `POST /apps/{id}` and never deleted: 422 invalid_state. */
function refusePrimary(app: AppRecord, alias: string, doing: string): void {
  if (alias === app.alias) throw new AppStateError(`The primary alias ${alias} cannot be ${doing}; change the app's alias and test instead.`, { parameter: 'alias', reason: 'primary' });
}

/** The aliases of an app, primary first. */
export async function listAliases(accountId: string, appId: string): Promise<AliasRecord[]> {
  return appAliases(await getApp(accountId, appId));
}

/** One alias of an app. */
export async function readAlias(accountId: string, appId: string, alias: string): Promise<AliasRecord> {
  return aliasOf(await getApp(accountId, appId), alias);
}

/** Adds an alias: 422 account_limit_exceeded past 10, 409 in_use when taken in the account, 400 for a pin that is not a ready version of the app. */
export async function createAlias(platform: Platform, accountId: string, appId: string, body: AliasInput & { alias: string }): Promise<AliasRecord> {
  const { record, copies } = await retryOnConflict(async () => {
    const app = await getApp(accountId, appId);
    if (Object.hasOwn(app.alias_pins, body.alias)) throw new AliasInUseError(body.alias);
    if (Object.keys(app.alias_pins).length >= MAX_ALIASES_PER_APP) throw new TooManyAliasesError();
    const pinned = body.version_id ?? null;
    const checks = await pinCheck(app, pinned);
    const now = platform.clock.nowMs();
    const record: AliasRecord = {
      account_id: accountId,
      alias: body.alias,
      app_id: appId,
      version_id: pinned ?? app.live_version_id,
      test: body.test ?? app.test,
      primary: false,
      pinned_version_id: pinned,
      created_ms: now,
      modified_ms: now,
    };
    const copies = edgePointerEntries(platform, accountId, [body.alias]);
    await transact([newPointerEntry(record), changeAppEntry(app, { set: { [`alias_pins.${body.alias}`]: pinned } }, 'app.alias-added'), ...checks, ...copies]);
    return { record, copies };
  });
  await copyEdgePointers(platform, copies);
  return record;
}

/** Changes an alias's pinned version or mode (not the primary's: 422 invalid_state). */
export async function updateAlias(platform: Platform, accountId: string, appId: string, alias: string, body: AliasInput): Promise<AliasRecord> {
  const { next, copies } = await retryOnConflict(async () => {
    const app = await getApp(accountId, appId);
    const current = await aliasOf(app, alias);
    refusePrimary(app, alias, 'changed here');
    const pinned = sends(body, 'version_id') && body.version_id !== undefined ? body.version_id : current.pinned_version_id;
    const checks = await pinCheck(app, pinned);
    const next: AliasRecord = {
      ...current,
      pinned_version_id: pinned,
      version_id: pinned ?? app.live_version_id,
      test: body.test ?? current.test,
      modified_ms: Math.max(platform.clock.nowMs(), current.modified_ms),
    };
    const copies = edgePointerEntries(platform, accountId, [alias]);
    await transact([replacePointerEntry(next), changeAppEntry(app, { set: { [`alias_pins.${alias}`]: pinned } }, 'app.alias-changed'), ...checks, ...copies]);
    return { next, copies };
  });
  await copyEdgePointers(platform, copies);
  return next;
}

/** Deletes an alias (not the primary: 422 invalid_state); its address answers 404 at once. */
export async function deleteAlias(platform: Platform, accountId: string, appId: string, alias: string): Promise<void> {
  const copies = await retryOnConflict(async () => {
    const app = await getApp(accountId, appId);
    await aliasOf(app, alias);
    refusePrimary(app, alias, 'deleted');
    const copies = edgePointerEntries(platform, accountId, [alias]);
    await transact([deletePointerEntry(accountId, alias, appId), changeAppEntry(app, { remove: [`alias_pins.${alias}`] }, 'app.alias-deleted'), ...copies]);
    return copies;
  });
  await copyEdgePointers(platform, copies);
}
