/**
 * Reading and deleting versions (hosting.md §3.3). A version belongs to one app: asked for
 * under another app it does not exist (404). Deleting one that is live or that an alias is
 * pinned to is 409 in_use; the delete is conditional on the app's revision, so a deploy or a
 * pin of the same version racing it makes one of the two see the other.
 */
import { claimWritten, dueEntry } from '../../../work/due-work-store';
import { runClaimed } from '../../../work/runner';
import { newId } from '../../../core/ids';
import type { Platform } from '../../../platform/ports';
import { RecordNotFoundError, VersionConflictError } from '../../../store/errors';
import { retryOnConflict } from '../../../store/records';
import { transact } from '../../../store/transact';
import type { AppRecord, VersionRecord } from './app-records';
import { versionView, type VersionView } from './apps';
import { changeAppEntry, deleteVersionEntries, findVersion, getApp, readVersionPage } from './apps-store';
import { AppStateError, VersionInUseError } from './errors';
import { dueScope, versionFilesRef, versionFilesWork, VERSION_FILES_LEASE_MS } from './remove-app-files';

/** A version of an app: 404 when there is none with this id under this app. */
export async function getAppVersion(app: Pick<AppRecord, 'account_id' | 'app_id'>, versionId: string): Promise<VersionRecord> {
  const version = await findVersion(app.account_id, versionId);
  if (!version || version.app_id !== app.app_id) throw new RecordNotFoundError('version', versionId, 'version_id');
  return version;
}

/** A version with its `live` flag (404 for an unknown app or version). */
export async function readVersion(accountId: string, appId: string, versionId: string): Promise<VersionView> {
  const app = await getApp(accountId, appId);
  return versionView(await getAppVersion(app, versionId), app);
}

/** One page of an app's versions by number (upload order), and their total. */
export async function listVersions(accountId: string, appId: string, page: { offset: number; limit: number; descending: boolean }): Promise<{ items: VersionView[]; total: number }> {
  const app = await getApp(accountId, appId);
  const { items, total } = await readVersionPage(accountId, appId, page);
  return { items: items.map((version) => versionView(version, app)), total };
}

/**
 * Deletes a version: 409 in_use while it is live or pinned, 422 invalid_state while it is still
 * processing. The record goes with its listing count, and `app-version-files` work is written
 * (claimed by this request, which runs it at once; the sweep is the fallback).
 */
export async function deleteVersion(platform: Platform, accountId: string, appId: string, versionId: string): Promise<void> {
  const claim = await retryOnConflict(async () => {
    const app = await getApp(accountId, appId);
    const version = await getAppVersion(app, versionId);
    if (app.live_version_id === versionId) throw new VersionInUseError(versionId, 'live');
    if (Object.values(app.alias_pins).includes(versionId)) throw new VersionInUseError(versionId, 'pinned');
    if (version.status === 'processing') throw new AppStateError(`The version ${versionId} is still processing.`, { parameter: 'version_id', reason: 'processing' });
    const now = platform.clock.nowMs();
    const work = dueEntry('app-version-files', dueScope(accountId), versionFilesRef(appId, versionId), now + VERSION_FILES_LEASE_MS, now, newId());
    await transact([
      ...deleteVersionEntries(version, () => new VersionConflictError(`Version ${versionId} changed concurrently`)),
      changeAppEntry(app, {}, 'app.version-deleted'),
      work,
    ]);
    return claimWritten(work);
  });
  await runClaimed(platform, versionFilesWork, claim);
}
