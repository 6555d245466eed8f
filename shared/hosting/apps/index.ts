/**
 * STAND-IN for the apps branch (app records, alias pointers, version manifests). Only the
 * declarations the serving code compiles against, with the thinnest bodies: nothing is ever
 * found, so every alias answers 404 until the real module replaces this file at merge.
 */
import type { ObjectStorage } from '../../platform/ports';

/** Which version an alias of an account serves, and in which mode. */
export interface AliasPointer {
  account_id: string;
  alias: string;
  app_id: string;
  version_id: string | null;
  test: boolean;
}

/** The pointer of `(accountId, alias)`: one GetItem. */
export function findAliasPointer(_accountId: string, _alias: string): Promise<AliasPointer | undefined> {
  return Promise.resolve(undefined);
}

/** An app as stored. */
export interface AppRecord {
  app_id: string;
  account_id: string;
  name: string;
  alias: string;
  test: boolean;
  live_version_id: string | null;
  settings: Record<string, unknown>;
  style: Record<string, unknown>;
  custom_css: string | null;
  custom_javascript: string | null;
  created_ms: number;
  modified_ms: number;
  deployed_ms: number | null;
}

/** An app of an account. */
export function findApp(_accountId: string, _appId: string): Promise<AppRecord | undefined> {
  return Promise.resolve(undefined);
}

/** The files of one stored version. */
export interface VersionManifest {
  version_id: string;
  uploaded_ms: number;
  files: Record<string, { bytes: number; etag: string; content_type: string }>;
}

/** The manifest of a version, from the apps bucket. */
export function readManifest(_objects: ObjectStorage, _accountId: string, _appId: string, _versionId: string): Promise<VersionManifest | undefined> {
  return Promise.resolve(undefined);
}

/** The apps-bucket key of a version's file: `apps/<account>/<app>/<version>/<path>`. */
export function versionFileKey(accountId: string, appId: string, versionId: string, path: string): string {
  return `apps/${accountId}/${appId}/${versionId}/${path}`;
}
