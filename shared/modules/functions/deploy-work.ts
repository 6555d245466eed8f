/**
 * Deploying and removing hosted functions as due work (shared/work), so a crash at any point
 * leaves nothing half-made (functions.md §5, §10, §11).
 *
 * A create or update writes, in ONE transaction, the function with its `pending` deployment and
 * `function-deploy` work claimed by the request; then it stores the zip (under a key never
 * written before) and runs the work at once. The work deploys through the runner port and
 * commits the outcome together with its own removal, conditional on the deployment still being
 * the pending one: `serving` moves to it (status `active`), or the failure is recorded (`failed`
 * for a first deployment; for an update the previous deployment keeps serving, `active` with a
 * `status_message`). If the process dies anywhere in between, the claim's lease lapses and the
 * sweep runs the work again (deploying is safe to repeat for the same deployment), so the
 * function always ends `active` or `failed`, never stuck `pending`; a zip that was never stored
 * fails the deployment with a message to upload again.
 *
 * A delete removes the record and writes `function-removal` work in one transaction; the work
 * removes the deployed function and every stored zip, again after a crash.
 */
import { newId } from '../../core/ids';
import { logger } from '../../core/logging';
import type { FunctionRunner, Platform } from '../../platform/ports';
import { RecordNotFoundError, TransactionRejectedError } from '../../store/errors';
import type { RecordScope } from '../../store/records';
import { writeOne, type TransactEntry } from '../../store/transact';
import { claimWritten, dueEntry, finishEntry, type DueClaim } from '../../work/due-work-store';
import { runHere, type DueHandler } from '../../work/runner';
import type { DeploymentSpec, FunctionCodeAndSettings, HostedFunctionRecord } from './records';
import { findHostedFunction, updateHostedFunction } from './hosted-function-store';
import { openVariables } from './variables';

/** How long a deployment may take before the sweep runs it again (cloud deployments wait for Lambda's states). */
export const DEPLOY_LEASE_MS = 5 * 60_000;
/** How long a removal may take. */
const REMOVAL_LEASE_MS = 2 * 60_000;

/** The runner of this platform (every composition gives one). */
export function runnerOf(platform: Pick<Platform, 'functions'>): FunctionRunner {
  if (!platform.functions) throw new Error('This process has no hosted function runner');
  return platform.functions;
}

/** The key of an uploaded zip: one per deployment with new code, never written twice. */
export function codeKeyOf(scope: RecordScope, functionId: string, deploymentId: string): string {
  return `functions/${scope.accountId}/${scope.mode}/${functionId}/${deploymentId}.zip`;
}

const scopeOf = (claim: DueClaim): RecordScope => ({ accountId: claim.record.account_id, mode: claim.record.mode });

/** Removes the claim's record; a newer claim holding it (a newer deployment) is not ours to remove. */
async function finishQuietly(claim: DueClaim): Promise<void> {
  await writeOne(finishEntry(claim)).catch((error: unknown) => {
    if (!(error instanceof TransactionRejectedError)) throw error;
  });
}

/** Deletes objects that nothing references any more; a failure leaves an unreferenced zip (logged). */
async function deleteCode(platform: Pick<Platform, 'objects'>, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    await platform.objects.delete('functions', key).catch((error: unknown) => logger.error('A superseded function package could not be deleted', { key, error: error as Error }));
  }
}

/** The code and settings of a deployment (what a failed update shows again). */
function codeAndSettingsOf(spec: DeploymentSpec): FunctionCodeAndSettings {
  const { deployment_id: _id, settings_only: _settingsOnly, ...shown } = spec;
  return shown;
}

async function deployClaimed(platform: Platform, claim: DueClaim): Promise<void> {
  const scope = scopeOf(claim);
  const functionId = claim.record.ref;
  const record = await findHostedFunction(scope, functionId);
  const spec = record?.pending;
  if (!spec) return finishQuietly(claim);
  const runner = runnerOf(platform);
  const environment = await openVariables(spec.secrets_sealed, scope, functionId, platform.secrets);
  const outcome = await runner.deploy({
    accountId: scope.accountId,
    mode: scope.mode,
    functionId,
    deploymentId: spec.deployment_id,
    codeKey: spec.code_key,
    runtime: spec.runtime,
    handler: spec.handler,
    timeoutSeconds: spec.timeout,
    memoryMb: spec.memory_mb,
    environment,
    settingsOnly: spec.settings_only,
  });
  let superseded: string[] = [];
  let committed = false;
  try {
    await updateHostedFunction(scope, functionId, (current) => {
      superseded = [];
      committed = false;
      // A newer deployment replaced this one meanwhile; it runs (and commits) itself.
      if (current.pending?.deployment_id !== spec.deployment_id) return { next: current, write: false };
      committed = true;
      const modified = Math.max(platform.clock.nowMs(), current.modified_ms + 1);
      let next: HostedFunctionRecord;
      if (outcome.ok) {
        const previous = current.serving;
        if (previous && previous.code_key !== spec.code_key) superseded = [previous.code_key];
        next = { ...current, serving: spec, pending: null, status: 'active', status_message: null, deployed_ms: modified, modified_ms: modified };
      } else if (current.serving) {
        // §5: the previous deployment stays live; the function says why the update failed.
        if (spec.code_key !== current.serving.code_key) superseded = [spec.code_key];
        next = { ...current, ...codeAndSettingsOf(current.serving), pending: null, status: 'active', status_message: `The last update failed: ${outcome.message}`, modified_ms: modified };
      } else {
        next = { ...current, pending: null, status: 'failed', status_message: outcome.message, modified_ms: modified };
      }
      next.code_keys = current.code_keys.filter((key) => !superseded.includes(key));
      return { next, extra: [finishEntry(claim)] };
    });
  } catch (error) {
    if (!(error instanceof RecordNotFoundError)) throw error;
    // Deleted while deploying: what this run deployed goes too (the removal may have run before it).
    await runner.remove({ accountId: scope.accountId, mode: scope.mode, functionId });
    await deleteCode(platform, [spec.code_key]);
    return finishQuietly(claim);
  }
  // Not committed: a newer deployment holds the work, and nothing is left for this claim.
  if (!committed) await finishQuietly(claim);
  await deleteCode(platform, superseded);
}

/** Deploying a function's pending deployment (ref: the function id). */
export const functionDeployWork: DueHandler = { kind: 'function-deploy', leaseMs: DEPLOY_LEASE_MS, run: deployClaimed };

/** The claimed work entry of a new pending deployment, for the transaction that records it. */
export function deployEntry(platform: Pick<Platform, 'clock'>, scope: RecordScope, functionId: string): TransactEntry {
  const now = platform.clock.nowMs();
  return dueEntry('function-deploy', scope, functionId, now + DEPLOY_LEASE_MS, now, newId());
}

/** Runs the deployment whose claimed entry just committed; a failure leaves it to the sweep. */
export async function deployNow(platform: Platform, entry: TransactEntry): Promise<void> {
  await runHere(platform, functionDeployWork, claimWritten(entry));
}

async function removeClaimed(platform: Platform, claim: DueClaim): Promise<void> {
  const scope = scopeOf(claim);
  await runnerOf(platform).remove({ accountId: scope.accountId, mode: scope.mode, functionId: claim.record.ref });
  const keys = JSON.parse(claim.record.related?.code_keys ?? '[]') as string[];
  for (const key of keys) await platform.objects.delete('functions', key);
  await finishQuietly(claim);
}

/** Removing a deleted function: its deployment and its stored zips (ref: the function id). */
export const functionRemovalWork: DueHandler = { kind: 'function-removal', leaseMs: REMOVAL_LEASE_MS, run: removeClaimed };

/** The claimed removal entry of a function being deleted, for the transaction that deletes it. */
export function removalEntry(platform: Pick<Platform, 'clock'>, scope: RecordScope, record: HostedFunctionRecord): TransactEntry {
  const now = platform.clock.nowMs();
  return dueEntry('function-removal', scope, record.hosted_function_id, now + REMOVAL_LEASE_MS, now, newId(), { code_keys: JSON.stringify(record.code_keys) });
}

/** Runs the removal whose claimed entry just committed; a failure leaves it to the sweep. */
export async function removeNow(platform: Platform, entry: TransactEntry): Promise<void> {
  await runHere(platform, functionRemovalWork, claimWritten(entry));
}
