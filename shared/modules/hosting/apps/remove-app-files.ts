/**
 * The clean-up work of hosted apps, as due work (shared/work). Apps are account-wide, so
 * their work is filed under the account's `live` scope.
 *
 * - `app-version-files` (ref `<app_id>/<version_id>`): written with every `processing` version,
 *   due an hour later, and removed in the transaction that makes the version `ready`. If it
 *   comes due, the upload never finished: the version becomes `failed` (one conditional write,
 *   which either it or the upload's own last step wins) and its files and manifest are removed.
 *   Deleting a version writes the same work, due at once: the record is gone, the files follow.
 * - `app-files` (ref `<app_id>`): written in the transaction that deletes an app. It removes
 *   every version's files and manifest, then the version and deployment records and their
 *   listing counters, a budget of objects per run; the next run carries on where it stopped.
 *
 * Removing a file that is already gone is fine, so a run cut short anywhere runs again.
 */
import { finishEntry, retryLater, type DueClaim } from '../../../work/due-work-store';
import type { DueHandler } from '../../../work/runner';
import type { Platform } from '../../../platform/ports';
import type { RecordScope } from '../../../store/entity';
import { TransactionRejectedError } from '../../../store/errors';
import { writeOne } from '../../../store/transact';
import {
  allDeployments,
  allVersions,
  deploymentsPartition,
  findVersion,
  removeDeploymentRecord,
  removeListingCounters,
  removeVersionRecord,
  versionStatusEntry,
  versionsPartition,
} from './apps-store';
import { removeVersionFiles } from './version-files';

/** The due-work scope of an account's app work (apps have no mode). */
export function dueScope(accountId: string): RecordScope {
  return { accountId, mode: 'live' };
}

/** The due-work reference of a version's files. */
export function versionFilesRef(appId: string, versionId: string): string {
  return `${appId}/${versionId}`;
}

/** How long an unfinished upload waits before its version is failed and its files removed (far beyond one request). */
export const PROCESSING_GRACE_MS = 60 * 60_000;

/** How long a run holds version-files work (removing 5,000 objects, 16 at a time). */
export const VERSION_FILES_LEASE_MS = 10 * 60_000;

/** How long a run holds app-files work. */
export const APP_FILES_LEASE_MS = 10 * 60_000;

/** Objects the deleting request removes itself; the sweep removes the rest. */
export const APP_FILES_BUDGET_PER_REQUEST = 500;

/** Objects one sweep run removes before it hands the rest to the next run. */
const APP_FILES_BUDGET_PER_RUN = 20_000;

/** Why a version that never finished processing failed. */
export const UNFINISHED_MESSAGE = 'Processing did not finish; upload the package again.';

/** A lease that lapsed mid-run passed the work on: whoever holds it now finishes it. */
function ignoreLostClaim(error: unknown): void {
  if (!(error instanceof TransactionRejectedError)) throw error;
}

/** The version became ready meanwhile (the upload's own last step won). */
class NoLongerProcessing extends Error {}

async function removeVersionFilesClaimed(platform: Platform, claim: DueClaim): Promise<void> {
  const accountId = claim.record.account_id;
  const [appId, versionId] = claim.record.ref.split('/') as [string, string];
  let version = await findVersion(accountId, versionId);
  if (version?.status === 'processing') {
    try {
      await writeOne(versionStatusEntry(version, 'processing', { status: 'failed', status_message: UNFINISHED_MESSAGE, modified_ms: platform.clock.nowMs() }, () => new NoLongerProcessing()));
    } catch (error) {
      if (!(error instanceof NoLongerProcessing)) throw error;
      version = await findVersion(accountId, versionId);
    }
  }
  if (version?.status === 'ready') {
    // The upload finished: its files are served, nothing to remove.
    await writeOne(finishEntry(claim)).catch(ignoreLostClaim);
    return;
  }
  await removeVersionFiles(platform.objects, accountId, appId, versionId);
  await writeOne(finishEntry(claim)).catch(ignoreLostClaim);
}

/** Failing a version whose upload never finished, and removing the files of failed and deleted versions. */
export const versionFilesWork: DueHandler = { kind: 'app-version-files', leaseMs: VERSION_FILES_LEASE_MS, run: removeVersionFilesClaimed };

async function removeAppFilesClaimed(platform: Platform, claim: DueClaim, known?: unknown): Promise<void> {
  const accountId = claim.record.account_id;
  const appId = claim.record.ref;
  let budget = (known as { budget?: number } | undefined)?.budget ?? APP_FILES_BUDGET_PER_RUN;
  const versions = await allVersions(accountId, appId);
  for (const version of versions) {
    if (budget <= 0) {
      await retryLater(claim, platform.clock.nowMs(), `${versions.length} versions of a deleted app still to remove; the next run continues`);
      return;
    }
    budget -= await removeVersionFiles(platform.objects, accountId, appId, version.version_id);
    await removeVersionRecord(version);
  }
  for (const deployment of await allDeployments(accountId, appId)) await removeDeploymentRecord(deployment);
  await removeListingCounters(versionsPartition(accountId, appId));
  await removeListingCounters(deploymentsPartition(accountId, appId));
  await writeOne(finishEntry(claim)).catch(ignoreLostClaim);
}

/** Removing everything a deleted app left: files, manifests, version and deployment records. */
export const appFilesWork: DueHandler = { kind: 'app-files', leaseMs: APP_FILES_LEASE_MS, run: removeAppFilesClaimed };
