/**
 * A version's files in the apps bucket (hosting.md §10, §11): each file once, at upload, under
 * the immutable prefix `apps/<account_id>/<app_id>/<version_id>/<path>` with its content type,
 * and the version's manifest at `app-manifests/<account_id>/<app_id>/<version_id>.json`
 * (`{ version_id, uploaded_ms, files: { "<path>": { bytes, etag, content_type } } }`), which
 * serving reads for the rules that need the file list (hosting.md §6 rules 5–8).
 *
 * The manifest is written before the files (see upload-version.ts), so whoever removes a
 * version's files finds them all there, whatever point an upload reached.
 */
import { createHash } from 'node:crypto';
import { inParallel as eachInParallel } from '../../../core/parallel';
import type { ObjectStorage } from '../../../platform/ports';
import type { VersionManifest } from './app-records';

/** How many objects are written or deleted at a time. */
const PARALLEL_OBJECTS = 16;

/** The object key of one file of a version: `apps/<account>/<app>/<version>/<path>`. */
export function versionFileKey(accountId: string, appId: string, versionId: string, path: string): string {
  return `apps/${accountId}/${appId}/${versionId}/${path}`;
}

/** The object key of a version's manifest: `app-manifests/<account>/<app>/<version>.json`. */
export function manifestKey(accountId: string, appId: string, versionId: string): string {
  return `app-manifests/${accountId}/${appId}/${versionId}.json`;
}

/** The strong ETag of a file's content: the first 32 hex characters of its SHA-256, quoted. */
export function etagOf(data: Buffer): string {
  return `"${createHash('sha256').update(data).digest('hex').slice(0, 32)}"`;
}

/** A version's manifest, or undefined when it has none (never uploaded that far, or removed). */
export async function readManifest(objects: ObjectStorage, accountId: string, appId: string, versionId: string): Promise<VersionManifest | undefined> {
  const data = await objects.get('apps', manifestKey(accountId, appId, versionId));
  return data ? (JSON.parse(data.toString('utf8')) as VersionManifest) : undefined;
}

/** Writes a version's manifest. */
export async function writeManifest(objects: ObjectStorage, accountId: string, appId: string, manifest: VersionManifest): Promise<void> {
  await objects.put('apps', manifestKey(accountId, appId, manifest.version_id), Buffer.from(JSON.stringify(manifest)), 'application/json');
}

/** Runs `work` over `items`, at most `PARALLEL_OBJECTS` at a time. */
export function inParallel<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  return eachInParallel(items, PARALLEL_OBJECTS, work);
}

/**
 * Removes every file of a version and then its manifest (deleting a missing object is fine, so
 * a run cut short runs again); answers how many objects it deleted. Without a manifest there is
 * nothing stored.
 */
export async function removeVersionFiles(objects: ObjectStorage, accountId: string, appId: string, versionId: string): Promise<number> {
  const manifest = await readManifest(objects, accountId, appId, versionId);
  if (!manifest) return 0;
  const paths = Object.keys(manifest.files);
  await inParallel(paths, (path) => objects.delete('apps', versionFileKey(accountId, appId, versionId, path)));
  await objects.delete('apps', manifestKey(accountId, appId, versionId));
  return paths.length + 1;
}
