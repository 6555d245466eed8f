/**
 * Deploy, rollback and their history (hosting.md §4). A deploy switches pointers, nothing
 * else: in one transaction the app's live version moves (conditional on the app's revision),
 * the version is checked to still exist and be ready, every alias that follows the live
 * version (the primary included) is pointed at it, and the deployment is recorded. No file is
 * copied or uploaded again.
 *
 * The rollback target without a body is the `previous_version_id` of the most recent
 * deployment (kept on the app), i.e. the version live just before the current one, so two
 * rollbacks in a row switch back and forth between the same two versions.
 */
import type { Principal } from '../../../core/access/principal';
import { newId } from '../../../core/ids';
import type { Platform } from '../../../platform/ports';
import { RecordNotFoundError, VersionConflictError } from '../../../store/errors';
import { retryOnConflict } from '../../../store/records';
import { transact, type TransactEntry } from '../../../store/transact';
import type { AppRecord, DeploymentRecord, VersionRecord } from './app-records';
import { changeAppEntry, findDeployment, findVersion, followPointerEntry, getApp, newDeploymentEntries, readDeploymentPage, versionReadyCheck } from './apps-store';
import { AppStateError } from './errors';
import { copyEdgePointers, edgePointerEntries } from './edge-pointer-work';
import { getAppVersion } from './versions';

/** Who switched. */
export type Deployer = Pick<Principal, 'authId' | 'userId'>;

/** The aliases of an app that follow its live version (the primary always does). */
export function followingAliases(app: Pick<AppRecord, 'alias_pins'>): string[] {
  return Object.entries(app.alias_pins)
    .filter(([, pinned]) => pinned === null)
    .map(([alias]) => alias);
}

/** What a switch committed: the deployment, and the pointer copies it made due (to relay). */
interface Switched {
  deployment: DeploymentRecord;
  copies: TransactEntry[];
}

/**
 * Switches the app to a ready version and records it (the caller retries on `VersionConflictError`),
 * with the CDN copy of every pointer it moves made due in the same transaction.
 */
async function switchTo(platform: Pick<Platform, 'clock'>, app: AppRecord, version: VersionRecord, action: DeploymentRecord['action'], by: Deployer): Promise<Switched> {
  const now = platform.clock.nowMs();
  const seq = app.deployments_made + 1;
  const deploymentId = newId();
  const previous = app.live_version_id;
  const deployment: DeploymentRecord = {
    deployment_id: deploymentId,
    app_id: app.app_id,
    account_id: app.account_id,
    action,
    version_id: version.version_id,
    version_number: version.number,
    previous_version_id: previous,
    previous_version_number: app.live_version_number,
    auth_id: by.authId ?? null,
    // The contract names the user of a deployment; tokens carry none the API exposes yet.
    user_id: null,
    created_ms: now,
    seq,
  };
  const following = followingAliases(app);
  const copies = edgePointerEntries(platform, app.account_id, following);
  await transact([
    changeAppEntry(
      app,
      { set: { live_version_id: version.version_id, live_version_number: version.number, previous_version_id: previous, deployed_ms: now, deployments_made: seq } },
      `app.${action}`,
    ),
    versionReadyCheck(app.account_id, version.version_id, () => new VersionConflictError(`Version ${version.version_id} changed concurrently`)),
    ...following.map((alias) => followPointerEntry(app.account_id, alias, app.app_id, version.version_id, now)),
    ...newDeploymentEntries(deployment),
    ...copies,
  ]);
  return { deployment, copies };
}

/** Relays the pointer copies of a committed switch; answers its deployment. */
async function relay(platform: Platform, switched: Switched): Promise<DeploymentRecord> {
  await copyEdgePointers(platform, switched.copies);
  return switched.deployment;
}

/** A version of the app that can be served: 404 when it is not the app's, 422 invalid_state when it is not ready. */
async function servableVersion(app: AppRecord, versionId: string): Promise<VersionRecord> {
  const version = await getAppVersion(app, versionId);
  if (version.status !== 'ready') throw new AppStateError(`The version ${versionId} is ${version.status}; only ready versions can be deployed.`, { parameter: 'version_id', reason: version.status });
  return version;
}

/** `POST /apps/{id}/deploy`: the primary alias and every alias that follows it switch to the version. Deploying the live version again is recorded too. */
export async function deployVersion(platform: Platform, accountId: string, appId: string, versionId: string, by: Deployer): Promise<DeploymentRecord> {
  const switched = await retryOnConflict(async () => {
    const app = await getApp(accountId, appId);
    return switchTo(platform, app, await servableVersion(app, versionId), 'deploy', by);
  });
  return relay(platform, switched);
}

/**
 * `POST /apps/{id}/rollback`: to `versionId` when given (like a deploy), else to the version live
 * before the current one; 422 invalid_state when there is none, or it was deleted or is not ready.
 */
export async function rollback(platform: Platform, accountId: string, appId: string, versionId: string | undefined, by: Deployer): Promise<DeploymentRecord> {
  const switched = await retryOnConflict(async () => {
    const app = await getApp(accountId, appId);
    if (versionId !== undefined) return switchTo(platform, app, await servableVersion(app, versionId), 'rollback', by);
    const target = app.previous_version_id;
    if (target === null) throw new AppStateError('There is no previous version to roll back to.', { reason: 'no_previous_version' });
    const version = await findVersion(accountId, target);
    if (!version || version.app_id !== appId) throw new AppStateError(`The previous version ${target} was deleted; name a version_id to roll back to.`, { reason: 'previous_version_deleted' });
    if (version.status !== 'ready') throw new AppStateError(`The previous version ${target} is ${version.status}.`, { reason: version.status });
    return switchTo(platform, app, version, 'rollback', by);
  });
  return relay(platform, switched);
}

/** A deployment of an app: 404 when there is none with this id under this app. */
export async function readDeployment(accountId: string, appId: string, deploymentId: string): Promise<DeploymentRecord> {
  await getApp(accountId, appId);
  const deployment = await findDeployment(accountId, deploymentId);
  if (!deployment || deployment.app_id !== appId) throw new RecordNotFoundError('deployment', deploymentId, 'deployment_id');
  return deployment;
}

/** One page of an app's deployments in order, and their total. */
export async function listDeployments(accountId: string, appId: string, page: { offset: number; limit: number; descending: boolean }): Promise<{ items: DeploymentRecord[]; total: number }> {
  await getApp(accountId, appId);
  return readDeploymentPage(accountId, appId, page);
}
