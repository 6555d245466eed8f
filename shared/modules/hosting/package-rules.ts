/**
 * The hosting rules on top of a safe zip (hosting.md §3.2): which folder is the app's root,
 * and which entries are not stored.
 *
 * - **Root.** `index.html` at the root; else, when every entry sits in one top-level folder
 *   holding `index.html`, that folder becomes the root (what zipping a build folder gives);
 *   else 400 invalid_input, reason `missing_index`.
 * - **Not stored**, listed in `ignored_paths` (at most 100 listed), the upload still succeeds:
 *   `__MACOSX/` folders and `.DS_Store` files anywhere (dropped before the root is looked
 *   for: the Finder adds them beside the build folder), and below the root the platform-owned
 *   folders `settings/` and `analytics/` and the file `oauth/callback.html` (hosting.md §7, §8).
 * - Paths are case-sensitive and stored as they are.
 */
import { InvalidPackageError } from '../../core/packages/errors';
import type { ZipFileEntry, ZipPackage } from '../../core/packages/zip-package';

/** Most paths `ignored_paths` lists. */
export const MAX_IGNORED_LISTED = 100;

/** Folders at the app root that belong to the platform (hosting.md §7). */
export const PLATFORM_FOLDERS = ['settings/', 'analytics/'] as const;

/** The file below the app root that belongs to the platform (hosting.md §8). */
export const PLATFORM_FILES = ['oauth/callback.html'] as const;

/** One file to store: where it is in the zip, and its path in the app. */
export interface AppFile {
  entry: ZipFileEntry;
  /** The path below the app root (the zip path without the root folder). */
  path: string;
}

/** What a package becomes: the files to store and the paths left out. */
export interface AppPackagePlan {
  /** The folder that became the root (`''` or `build/`). */
  root: string;
  files: AppFile[];
  /** Zip paths not stored, in zip order, at most `MAX_IGNORED_LISTED`. */
  ignoredPaths: string[];
  /** How many zip paths were not stored (may exceed the listed ones). */
  ignoredCount: number;
}

/** Whether a zip path is macOS residue: a `__MACOSX` folder or a `.DS_Store` file, at any depth. */
export function isMacResidue(path: string): boolean {
  const segments = path.split('/');
  return segments.includes('__MACOSX') || segments[segments.length - 1] === '.DS_Store';
}

/** Whether a path below the app root belongs to the platform. */
export function isPlatformOwned(path: string): boolean {
  return PLATFORM_FOLDERS.some((folder) => path.startsWith(folder)) || (PLATFORM_FILES as readonly string[]).includes(path);
}

/** The root folder of the kept zip paths, or undefined when there is no `index.html` to serve. */
function rootOf(paths: readonly string[]): string | undefined {
  if (paths.includes('index.html')) return '';
  const first = paths[0];
  const slash = first?.indexOf('/') ?? -1;
  if (first === undefined || slash <= 0) return undefined;
  const folder = first.slice(0, slash + 1);
  if (!paths.every((path) => path.startsWith(folder))) return undefined;
  return paths.includes(`${folder}index.html`) ? folder : undefined;
}

/** Applies the hosting rules to a checked zip; 400 `missing_index` when it has no root with `index.html`. */
export function planAppPackage(zip: Pick<ZipPackage, 'files'>): AppPackagePlan {
  const ignored: string[] = [];
  const kept = zip.files.filter((entry) => {
    if (!isMacResidue(entry.path)) return true;
    ignored.push(entry.path);
    return false;
  });
  const root = rootOf(kept.map((entry) => entry.path));
  if (root === undefined) {
    throw new InvalidPackageError('missing_index', 'The package has no index.html at its root (or in the one folder that holds everything).');
  }
  const files: AppFile[] = [];
  for (const entry of kept) {
    const path = entry.path.slice(root.length);
    if (isPlatformOwned(path)) ignored.push(entry.path);
    else files.push({ entry, path });
  }
  const order = new Map(zip.files.map((entry, index) => [entry.path, index]));
  ignored.sort((a, b) => order.get(a)! - order.get(b)!);
  return { root, files, ignoredPaths: ignored.slice(0, MAX_IGNORED_LISTED), ignoredCount: ignored.length };
}
