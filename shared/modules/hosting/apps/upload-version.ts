/**
 * Uploading a version (hosting.md §3): everything that can refuse the package runs first, in
 * memory, so a refused upload changes nothing (no record, no object); then it is stored in four
 * steps with a recovery story for a crash between any two of them. Uploading never changes what
 * is served.
 *
 *   0. check      the zip's directory (shared/core/packages/zip-package), the hosting rules (root,
 *                 ignored paths), then every kept file inflated once, counting, to learn its
 *                 size and ETag: every refusal (400, 422) happens here.
 *   1. processing one transaction: the version record as `processing` (listed, numbered from the
 *                 app's upload counter, which advances in the same write) and `app-version-files`
 *                 work due in an hour (the clean-up if step 4 never happens).
 *   2. manifest   `app-manifests/<account>/<app>/<version>.json`, before the files, so whoever
 *                 cleans up finds every file that may have been written.
 *   3. files      each file inflated again and written under `apps/<account>/<app>/<version>/`
 *                 with its content type (paths nobody else writes; a rerun writes the same bytes).
 *   4. ready      one transaction: the version becomes `ready` (only if the app still exists) and
 *                 the clean-up work goes.
 *
 * A process killed after 1, 2 or 3 leaves a `processing` version: an hour later the sweep fails
 * it and removes its manifest and whatever files exist (./remove-app-files). A step that fails
 * in the request (an object store error, the app deleted meanwhile) fails the version at once
 * and removes every object the upload may have written, from its own file list.
 */
import { claimWritten, doneEntry, dueEntry } from '../../../work/due-work-store';
import { runClaimed } from '../../../work/runner';
import { newId } from '../../../core/ids';
import { logger } from '../../../core/logging';
import { InvalidPackageError } from '../../../core/packages/errors';
import { openZipPackage, type ZipPackage } from '../../../core/packages/zip-package';
import type { Platform } from '../../../platform/ports';
import { retryOnConflict } from '../../../store/records';
import { transact } from '../../../store/transact';
import { contentTypeOf } from '../content-types';
import { planAppPackage, type AppPackagePlan } from '../package-rules';
import type { AppRecord, ManifestFile, VersionManifest, VersionRecord } from './app-records';
import { appExistsCheck, getApp, newVersionEntries, versionStatusEntry } from './apps-store';
import { dueScope, PROCESSING_GRACE_MS, versionFilesRef, versionFilesWork, VERSION_FILES_LEASE_MS } from './remove-app-files';
import { etagOf, inParallel, manifestKey, versionFileKey, writeManifest } from './version-files';

/** What an upload needs besides the platform. */
export interface UploadVersionInput {
  accountId: string;
  appId: string;
  /** The zip as uploaded. */
  zip: Buffer;
  label: string | null;
  comments: string | null;
}

/** A checked package: what will be stored, and the manifest it will have. */
interface CheckedPackage {
  zip: ZipPackage;
  plan: AppPackagePlan;
  files: Record<string, ManifestFile>;
  bytes: number;
}

/** The version's step failed because it changed meanwhile (the sweep failed it, or the app is gone). */
class VersionChanged extends Error {}

/** Step 0: every check, nothing written. */
async function checkPackage(data: Buffer): Promise<CheckedPackage> {
  const zip = await openZipPackage(data);
  const plan = planAppPackage(zip);
  const files: Record<string, ManifestFile> = {};
  let bytes = 0;
  for (const file of plan.files) {
    const content = await zip.read(file.entry);
    files[file.path] = { bytes: content.length, etag: etagOf(content), content_type: contentTypeOf(file.path) };
    bytes += content.length;
  }
  return { zip, plan, files, bytes };
}

/** Step 1: the processing record, its number and its clean-up, together (retried when a concurrent upload took the number). */
async function writeProcessing(platform: Pick<Platform, 'clock'>, input: UploadVersionInput, checked: CheckedPackage): Promise<VersionRecord> {
  const versionId = newId();
  return retryOnConflict(async () => {
    const app = await getApp(input.accountId, input.appId);
    const number = app.versions_uploaded + 1;
    const now = platform.clock.nowMs();
    const version: VersionRecord = {
      version_id: versionId,
      app_id: input.appId,
      account_id: input.accountId,
      number,
      label: input.label,
      comments: input.comments,
      status: 'processing',
      status_message: null,
      files: checked.plan.files.length,
      bytes: checked.bytes,
      package_bytes: checked.zip.packageBytes,
      ignored_paths: checked.plan.ignoredPaths,
      ignored_count: checked.plan.ignoredCount,
      created_ms: now,
      modified_ms: now,
    };
    await transact([...newVersionEntries(version), dueEntry('app-version-files', dueScope(input.accountId), versionFilesRef(input.appId, versionId), now + PROCESSING_GRACE_MS, now)]);
    return version;
  });
}

/** Step 3: every file again, checked against the manifest, written with its content type. */
async function putFiles(platform: Pick<Platform, 'objects'>, version: VersionRecord, checked: CheckedPackage): Promise<void> {
  // One file inflated at a time keeps memory to the largest file; the writes overlap.
  const pending: Array<{ path: string; content: Buffer }> = [];
  const flush = () => inParallel(pending.splice(0), ({ path, content }) => platform.objects.put('apps', versionFileKey(version.account_id, version.app_id, version.version_id, path), content, checked.files[path]!.content_type));
  let held = 0;
  for (const file of checked.plan.files) {
    const content = await checked.zip.read(file.entry);
    if (etagOf(content) !== checked.files[file.path]!.etag) throw new InvalidPackageError('unreadable', `The entry ${file.entry.path} read differently the second time.`);
    pending.push({ path: file.path, content });
    held += content.length;
    if (pending.length >= 16 || held >= 16 * 1024 * 1024) {
      await flush();
      held = 0;
    }
  }
  await flush();
}

/** Step 4: ready, the clean-up dropped, if the version is still processing and the app still exists. */
async function makeReady(platform: Pick<Platform, 'clock'>, version: VersionRecord): Promise<VersionRecord> {
  const modified = Math.max(platform.clock.nowMs(), version.modified_ms);
  await transact([
    versionStatusEntry(version, 'processing', { status: 'ready', modified_ms: modified }, () => new VersionChanged('The version is no longer processing')),
    appExistsCheck(version.account_id, version.app_id, () => new VersionChanged('The app was deleted')),
    doneEntry('app-version-files', dueScope(version.account_id), versionFilesRef(version.app_id, version.version_id)),
  ]);
  return { ...version, status: 'ready', modified_ms: modified };
}

/**
 * A step failed in the request: the version fails now (unless it changed meanwhile: deleted
 * with its app) and everything this upload may have written goes at once, from the file list it
 * holds (a clean-up that ran meanwhile may have missed files written after it). Best effort: the
 * version's `app-version-files` work is the fallback.
 */
async function failNow(platform: Platform, version: VersionRecord, checked: CheckedPackage, error: unknown): Promise<void> {
  const { account_id: accountId, app_id: appId, version_id: versionId } = version;
  try {
    const now = platform.clock.nowMs();
    const work = dueEntry('app-version-files', dueScope(accountId), versionFilesRef(appId, versionId), now + VERSION_FILES_LEASE_MS, now, newId());
    const failed = await transact([versionStatusEntry(version, 'processing', { status: 'failed', status_message: 'Storing the files failed; upload the package again.', modified_ms: now }, () => new VersionChanged()), work]).then(
      () => true,
      (refused: unknown) => {
        if (refused instanceof VersionChanged) return false;
        throw refused;
      },
    );
    await inParallel(Object.keys(checked.files), (path) => platform.objects.delete('apps', versionFileKey(accountId, appId, versionId, path)));
    await platform.objects.delete('apps', manifestKey(accountId, appId, versionId));
    if (failed) await runClaimed(platform, versionFilesWork, claimWritten(work));
  } catch (cleanupError) {
    logger.error('Failing an unfinished version failed; the sweep cleans it up', { versionId, error: cleanupError as Error, cause: error as Error });
  }
}

/**
 * Uploads a version of an app (404 when the app does not exist): refusals (400 invalid_input on
 * `file`, 422 account_limit_exceeded) happen before anything is written; answers the version,
 * normally `ready`, and the app as it was read.
 */
export async function uploadVersion(platform: Platform, input: UploadVersionInput): Promise<{ version: VersionRecord; app: AppRecord }> {
  const app = await getApp(input.accountId, input.appId);
  const checked = await checkPackage(input.zip);
  const version = await writeProcessing(platform, input, checked);
  try {
    const manifest: VersionManifest = { version_id: version.version_id, uploaded_ms: version.created_ms, files: checked.files };
    await writeManifest(platform.objects, input.accountId, input.appId, manifest);
    await putFiles(platform, version, checked);
    const ready = await makeReady(platform, version);
    return { version: ready, app };
  } catch (error) {
    await failNow(platform, version, checked, error);
    // The app deleted meanwhile answers 404, as it would a moment later.
    if (error instanceof VersionChanged) await getApp(input.accountId, input.appId);
    throw error;
  }
}
