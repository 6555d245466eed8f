/**
 * Hosted apps (hosting.md §2–§5, §10, §11): the public surface for other modules. Serving
 * (shared/modules/hosting/serving, the local gateway, the CDN's edge) reads an alias's pointer, the
 * app's settings and a version's manifest and files through these, never the tables or keys.
 */
import type { ObjectStorage } from '../../../platform/ports';
import type { AliasPointer, AppRecord, VersionManifest } from './app-records';
import { findAliasRecord, findApp as findStoredApp } from './apps-store';
import { readManifest as readStoredManifest, versionFileKey as fileKey } from './version-files';

export type { AliasPointer, AppRecord, VersionManifest } from './app-records';

/** One strongly-consistent GetItem by (account, alias); undefined when the alias does not exist. The account id may be in any case (app hosts arrive lower-cased). */
export async function findAliasPointer(accountId: string, alias: string): Promise<AliasPointer | undefined> {
  const record = await findAliasRecord(accountId, alias);
  if (!record) return undefined;
  return { account_id: record.account_id, alias: record.alias, app_id: record.app_id, version_id: record.version_id ?? null, test: record.test };
}

/** An app by (account, id), settings and style parsed, custom code included; undefined when there is none. */
export function findApp(accountId: string, appId: string): Promise<AppRecord | undefined> {
  return findStoredApp(accountId, appId);
}

/** A version's file manifest (`app-manifests/<account>/<app>/<version>.json`), or undefined. */
export function readManifest(objects: ObjectStorage, accountId: string, appId: string, versionId: string): Promise<VersionManifest | undefined> {
  return readStoredManifest(objects, accountId, appId, versionId);
}

/** The object key of a version's file in the apps bucket: `apps/<account>/<app>/<version>/<path>`. */
export function versionFileKey(accountId: string, appId: string, versionId: string, path: string): string {
  return fileKey(accountId, appId, versionId, path);
}
