/**
 * Answers one request under an app address (hosting.md §6): the alias's pointer, the
 * platform-owned files, then the version's files by rules 4 to 8, with the caching, ETag and
 * conditional-request rules of §6.2. Serving errors are small HTML pages, never the JSON
 * envelope. Everything it reads comes through the injected `HostingSource`.
 *
 *   serveAppRequest(source, { method: 'GET', accountId, path: '/shop/assets/app.js', query: '', headers, nowMs })
 *
 * `serveVersionMiss` is the same rules 5 to 8 for a request the CDN already rewrote to a
 * version's prefix and the bucket did not hold (§10).
 */
import { createHash } from 'node:crypto';
import { accountObject } from './account-settings';
import { CALLBACK_HEADERS, CALLBACK_PAGE } from './callback-page';
import { appObject, inPlatformFolder, injectedFile, JAVASCRIPT_TYPE, CSS_TYPE, settingsFile, type InjectedFile } from './injected-files';
import { answer, methodNotAllowed, movedPermanently, notFound, SECURITY_HEADERS } from './pages';
import { ALIAS_PATTERN, cacheControlOf, decodeServedPath, lastSegment, NO_CACHE } from './paths';
import type { AliasPointer, AppRequest, AppResponse, HostingSource, VersionManifest } from './types';

/** The platform-owned page at this path below every alias (§8). */
const CALLBACK_PATH = 'oauth/callback.html';

/** Answers `request` (hosting.md §6 rules 1 to 8, in order). */
export async function serveAppRequest(source: HostingSource, request: AppRequest): Promise<AppResponse> {
  const { method, accountId } = request;
  if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed();
  const slash = request.path.indexOf('/', 1);
  const alias = request.path.slice(1, slash === -1 ? undefined : slash);
  // Rule 1: the alias must exist and serve a version (an app without a deployed version serves nothing).
  if (!request.path.startsWith('/') || !ALIAS_PATTERN.test(alias)) return notFound(method);
  const pointer = await source.pointer(accountId, alias);
  if (!pointer?.version_id) return notFound(method);
  // Rule 2: `/<alias>` → `/<alias>/`, query kept (relative, so the path form gets its prefix).
  if (slash === -1) return movedPermanently(`${alias}/${request.query ? `?${request.query}` : ''}`);
  const rawPath = request.path.slice(slash + 1);
  const path = decodeServedPath(rawPath);
  if (path === undefined) return notFound(method);
  // Rule 3: platform-owned files, whatever the package holds.
  if (path === CALLBACK_PATH) return answer(method, 200, { ...CALLBACK_HEADERS }, CALLBACK_PAGE);
  const injected = injectedFile(path);
  if (injected) return serveInjected(source, request, pointer, injected);
  if (inPlatformFolder(path)) return notFound(method);
  return serveVersionPath(source, { method, headers: request.headers, accountId, appId: pointer.app_id, versionId: pointer.version_id, path, rawPath });
}

/** A request rewritten by the CDN to a version's prefix that the bucket could not answer. */
export interface VersionMiss {
  method: string;
  headers: Readonly<Record<string, string | undefined>>;
  accountId: string;
  appId: string;
  versionId: string;
  /** The path below the version prefix as the CDN sent it (percent-encoded). */
  rawPath: string;
  /** The edge function appended `index.html` to a path that ended in `/`. */
  indexAppended: boolean;
}

/** Rules 5 to 8 for a bucket miss (hosting.md §10); the edge function already did rules 1 and 2. */
export async function serveVersionMiss(source: HostingSource, miss: VersionMiss): Promise<AppResponse> {
  if (miss.method !== 'GET' && miss.method !== 'HEAD') return methodNotAllowed();
  const rawPath = miss.indexAppended && lastSegment(miss.rawPath) === 'index.html' ? miss.rawPath.slice(0, -'index.html'.length) : miss.rawPath;
  const path = decodeServedPath(rawPath);
  if (path === undefined || inPlatformFolder(path)) return notFound(miss.method);
  return serveVersionPath(source, { ...miss, path, rawPath });
}

/** What rules 4 to 8 need: the version and the decoded and raw path below the alias. */
interface VersionPath {
  method: string;
  headers: Readonly<Record<string, string | undefined>>;
  accountId: string;
  appId: string;
  versionId: string;
  path: string;
  rawPath: string;
}

/** Rules 4 to 8 over the version's manifest. */
async function serveVersionPath(source: HostingSource, target: VersionPath): Promise<AppResponse> {
  const manifest = await source.manifest(target.accountId, target.appId, target.versionId);
  if (!manifest) return notFound(target.method);
  const has = (file: string): boolean => file !== '' && Object.hasOwn(manifest.files, file);
  const { path } = target;
  // Rule 4: the file itself.
  if (has(path)) return serveFile(source, target, manifest, path, cacheControlOf(path), 200);
  if (path === '' || path.endsWith('/')) {
    // Rule 5: a directory's index.
    if (has(`${path}index.html`)) return serveFile(source, target, manifest, `${path}index.html`, NO_CACHE, 200);
  } else if (has(`${path}/index.html`)) {
    // Rule 6: a directory named without its slash.
    return movedPermanently(`${lastSegment(target.rawPath)}/`);
  }
  // Rule 7: the SPA fallback, for paths whose last segment has no `.`.
  if (!lastSegment(path).includes('.') && has('index.html')) return serveFile(source, target, manifest, 'index.html', NO_CACHE, 200);
  // Rule 8: the version's own 404 page, or the platform's.
  if (has('404.html')) return serveFile(source, target, manifest, '404.html', NO_CACHE, 404);
  return notFound(target.method);
}

/** A version's file with its type, caching, strong ETag and `Last-Modified` (the upload time); 304 when the client has it. */
async function serveFile(source: HostingSource, target: VersionPath, manifest: VersionManifest, file: string, cacheControl: string, status: 200 | 404): Promise<AppResponse> {
  const entry = manifest.files[file]!;
  const headers: Record<string, string> = {
    'Content-Type': entry.content_type,
    'Cache-Control': cacheControl,
    ETag: strongEtag(entry.etag),
    'Last-Modified': new Date(manifest.uploaded_ms).toUTCString(),
  };
  if (status === 200 && notModified(target.headers, headers.ETag!, manifest.uploaded_ms)) return { status: 304, headers: { ...SECURITY_HEADERS, ...headers }, body: '' };
  if (target.method === 'HEAD') return { status, headers: { ...SECURITY_HEADERS, ...headers, 'Content-Length': String(entry.bytes) }, body: '' };
  const body = await source.file(target.accountId, target.appId, target.versionId, file);
  if (!body) return notFound(target.method);
  return answer(target.method, status, headers, body);
}

/** A platform-owned settings, custom-code or analytics file, computed now (§7). */
async function serveInjected(source: HostingSource, request: AppRequest, pointer: AliasPointer, file: InjectedFile): Promise<AppResponse> {
  let body: string;
  let contentType = JAVASCRIPT_TYPE;
  const headers: Record<string, string> = {};
  if (file.kind === 'analytics') {
    body = file.body;
  } else if (file.kind === 'settings' && file.name === 'account') {
    const facts = await source.account(request.accountId);
    if (!facts) return notFound(request.method);
    ({ body, contentType } = settingsFile('account', file.format, accountObject({ accountId: request.accountId, test: pointer.test, facts, nowMs: request.nowMs, headers: request.headers })));
    // browser_info echoes these request headers.
    headers.Vary = 'Accept, Accept-Language, User-Agent';
  } else {
    const app = await source.app(request.accountId, pointer.app_id);
    if (!app) return notFound(request.method);
    if (file.kind === 'custom') {
      body = (file.name === 'style.css' ? app.custom_css : app.custom_javascript) ?? '';
      contentType = file.name === 'style.css' ? CSS_TYPE : JAVASCRIPT_TYPE;
    } else {
      ({ body, contentType } = settingsFile(file.name, file.format, file.name === 'app' ? appObject(app, pointer.alias, pointer.test) : app.style));
    }
  }
  // Computed per request, so no Last-Modified (an old date would let a changed file look unchanged).
  Object.assign(headers, { 'Content-Type': contentType, 'Cache-Control': NO_CACHE, ETag: `"${createHash('sha1').update(body).digest('hex')}"` });
  if (notModified(request.headers, headers.ETag!, undefined)) return { status: 304, headers: { ...SECURITY_HEADERS, ...headers }, body: '' };
  return answer(request.method, 200, headers, body);
}

/** A manifest etag as a strong entity tag: quoted, never weak. */
export function strongEtag(etag: string): string {
  return `"${etag.replace(/^W\//, '').replace(/^"|"$/g, '')}"`;
}

/**
 * Whether the client's copy is current: `If-None-Match` (weak comparison, `*` matches) and,
 * only without it, `If-Modified-Since` against the upload time in whole seconds.
 */
export function notModified(headers: Readonly<Record<string, string | undefined>>, etag: string, modifiedMs: number | undefined): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch.split(',').some((tag) => {
      const candidate = tag.trim().replace(/^W\//, '');
      return candidate === '*' || candidate === etag;
    });
  }
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined || modifiedMs === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && Math.floor(modifiedMs / 1000) * 1000 <= since;
}
