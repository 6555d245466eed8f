/**
 * The real `HostingSource`: alias pointers and app records from the table, manifests and
 * files from the apps bucket (through the objects port), account facts from the settings.
 * The only serving file that knows the apps module (../apps).
 *
 * Pointers and app records are read on every request, so a deploy, rollback or settings
 * change shows on the next one. Manifests and files live under immutable version prefixes,
 * so this process keeps recently used ones in memory (bounded by count and bytes).
 */
import { findAliasPointer, findApp, readManifest, versionFileKey, type VersionManifest } from '../apps';
import type { ObjectStorage } from '../../../platform/ports';
import { readAccountFacts } from './account-facts';
import type { HostingSource } from './types';

/** Bounds of the in-memory caches. */
export interface SourceCacheLimits {
  /** Manifests kept (default 1,000). */
  manifests: number;
  /** Total bytes of file contents kept (default 64 MiB). */
  fileBytes: number;
  /** Largest file kept (default 1 MiB); bigger files are read every time. */
  largestFile: number;
}

const DEFAULT_LIMITS: SourceCacheLimits = { manifests: 1000, fileBytes: 64 * 1024 * 1024, largestFile: 1024 * 1024 };

/** A least-recently-used map bounded by a total weight. */
function lru<V>(limit: number, weigh: (value: V) => number) {
  const entries = new Map<string, V>();
  let weight = 0;
  return {
    get(key: string): V | undefined {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key: string, value: V): void {
      if (entries.has(key)) return;
      entries.set(key, value);
      weight += weigh(value);
      while (weight > limit) {
        const [oldest, old] = entries.entries().next().value!;
        entries.delete(oldest);
        weight -= weigh(old);
      }
    },
  };
}

/** The hosting source over the objects port (apps bucket) and the table. */
export function hostingSource(objects: ObjectStorage, limits: Partial<SourceCacheLimits> = {}): HostingSource {
  const { manifests: manifestLimit, fileBytes, largestFile } = { ...DEFAULT_LIMITS, ...limits };
  const manifests = lru<VersionManifest>(manifestLimit, () => 1);
  const files = lru<Buffer>(fileBytes, (body) => body.length);
  return {
    pointer: (accountId, alias) => findAliasPointer(accountId, alias),
    app: (accountId, appId) => findApp(accountId, appId),
    async manifest(accountId, appId, versionId) {
      const key = `${accountId}/${appId}/${versionId}`;
      const cached = manifests.get(key);
      if (cached) return cached;
      const manifest = await readManifest(objects, accountId, appId, versionId);
      if (manifest) manifests.set(key, manifest);
      return manifest;
    },
    async file(accountId, appId, versionId, path) {
      const key = versionFileKey(accountId, appId, versionId, path);
      const cached = files.get(key);
      if (cached) return cached;
      const body = await objects.get('apps', key);
      if (body && body.length <= largestFile) files.set(key, body);
      return body;
    },
    account: (accountId) => readAccountFacts(accountId),
  };
}
