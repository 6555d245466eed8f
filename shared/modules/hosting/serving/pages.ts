/**
 * The platform's own serving answers (hosting.md §6, §12): small HTML pages for a missing
 * page and a wrong method (never the JSON envelope), redirects, and the headers every answer
 * under an app address carries.
 */
import { NO_CACHE } from './paths';
import type { AppResponse } from './types';

/** The HTML content type, exactly. */
export const HTML_TYPE = 'text/html; charset=utf-8';

/** Headers on every answer under an app address (§6.2); no framing restriction, so apps can be embedded. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
});

/** The methods served under an alias. */
export const ALLOWED_METHODS = 'GET, HEAD';

const page = (title: string, text: string): string =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head>` +
  `<body style="font-family:system-ui,sans-serif;margin:3rem auto;max-width:32rem;padding:0 1rem"><h1>${title}</h1><p>${text}</p></body></html>\n`;

/** The platform 404 page (also what the CDN's edge function answers for an unknown alias). */
export const NOT_FOUND_PAGE = page('Page not found', 'There is no page at this address.');

/** The 405 page. */
export const METHOD_NOT_ALLOWED_PAGE = page('Method not allowed', 'Pages here can only be read (GET or HEAD).');

/**
 * An answer with `body` for GET and none for HEAD, `Content-Length` always that of the body,
 * and the security headers (`headers` may override them: the callback page sends no referrer).
 */
export function answer(method: string, status: number, headers: Record<string, string>, body: Buffer | string): AppResponse {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  return { status, headers: { ...SECURITY_HEADERS, ...headers, 'Content-Length': String(length) }, body: method === 'HEAD' ? '' : body };
}

/** 404 with the platform page. */
export function notFound(method: string): AppResponse {
  return answer(method, 404, { 'Content-Type': HTML_TYPE, 'Cache-Control': NO_CACHE }, NOT_FOUND_PAGE);
}

/** 405 with `Allow: GET, HEAD` and the platform page. */
export function methodNotAllowed(): AppResponse {
  return answer('GET', 405, { 'Content-Type': HTML_TYPE, 'Cache-Control': NO_CACHE, Allow: ALLOWED_METHODS }, METHOD_NOT_ALLOWED_PAGE);
}

/**
 * 301 to `location`, a reference relative to the request's own URL (`shop/`, `docs/`), so
 * the same answer is right on an app host, in the local path form and behind the CDN.
 */
export function movedPermanently(location: string): AppResponse {
  return { status: 301, headers: { ...SECURITY_HEADERS, Location: location, 'Cache-Control': NO_CACHE, 'Content-Length': '0' }, body: '' };
}
