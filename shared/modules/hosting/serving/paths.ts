/**
 * Path rules of app serving (hosting.md §6, §6.2): how a requested path is decoded and
 * checked, which names count as hashed, and how long each kind of answer may be cached.
 */

/** `Cache-Control` of HTML files, the SPA fallback, 404 pages, redirects and injected files. */
export const NO_CACHE = 'no-cache';
/** `Cache-Control` of `oauth/callback.html`: the page handles a token. */
export const NO_STORE = 'no-store';
/** `Cache-Control` of hashed file names: their content never changes under that name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** `Cache-Control` of other files: a rollback reaches browsers within five minutes. */
export const SHORT_LIVED = 'public, max-age=300';

/** An alias as it may appear in a path (hosting.md §5); anything else cannot exist, so it is a 404 without a lookup. */
export const ALIAS_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The path below the alias, percent-decoded once, or undefined when it is not servable: a
 * malformed escape, a NUL byte or a `..` segment (after decoding, so `%2e%2e` counts).
 *
 * @example decodeServedPath('img/a%20b.png') → 'img/a b.png'; decodeServedPath('a/%2e%2e/b') → undefined
 */
export function decodeServedPath(raw: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  if (decoded.split('/').includes('..')) return undefined;
  return decoded;
}

/** The last segment of a path (after the last `/`; '' for a path ending in `/`). */
export function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Whether a path names an HTML file (`.html` or `.htm`). */
export function isHtmlPath(path: string): boolean {
  return /\.html?$/i.test(lastSegment(path));
}

const HASH_TAIL = /[.-]([A-Za-z0-9_]{8,})$/;

/**
 * Whether a file name is "hashed" (hosting.md §6.2): before its extension it ends with `.`
 * or `-` and 8 or more characters of `[A-Za-z0-9_]`, at least one a digit. A name without an
 * extension is not hashed.
 *
 * @example isHashedName('assets/index-BxT3kz9Q.js') → true; isHashedName('main.js') → false
 */
export function isHashedName(path: string): boolean {
  const name = lastSegment(path);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return false;
  const tail = HASH_TAIL.exec(name.slice(0, dot));
  return tail !== null && /[0-9]/.test(tail[1]!);
}

/** `Cache-Control` of a version's file served as itself (not as the SPA fallback or a 404 page). */
export function cacheControlOf(path: string): string {
  if (isHtmlPath(path)) return NO_CACHE;
  return isHashedName(path) ? IMMUTABLE : SHORT_LIVED;
}
