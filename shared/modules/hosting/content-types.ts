/**
 * The content type of a hosted app's file, from its name (hosting.md §6.1). Uploads store each
 * file with it; serving answers it (and reads it back from the version manifest).
 */

/** Content-Type by lower-case extension (without the dot). */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  map: 'application/json',
  webmanifest: 'application/manifest+json',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject',
  wasm: 'application/wasm',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** What any other file is served as. */
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/**
 * The Content-Type of a path by the extension of its last segment, compared case-insensitively.
 *
 * @example contentTypeOf('assets/app.3f9a2c1b.JS') // 'text/javascript; charset=utf-8'
 * @example contentTypeOf('LICENSE') // 'application/octet-stream'
 */
export function contentTypeOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot < 0) return DEFAULT_CONTENT_TYPE;
  const extension = name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(CONTENT_TYPES, extension) ? CONTENT_TYPES[extension]! : DEFAULT_CONTENT_TYPE;
}
