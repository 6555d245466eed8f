/**
 * What every page of the sign-in surface shares (auth.md 5.1, 6.2): the headers (no caching, no
 * referrer, framing only by the redirect's origin), the anti-forgery value and its cookie, and
 * reading the form's fields. The sign-in form and the OAuth authorize and consent pages use the
 * same ones, so they cannot drift apart.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { parseFormBody } from '../../http/body/form';
import type { ApiEvent } from '../../http/middleware/state';

/** The anti-forgery cookie, its lifetime and path (the page's own path only). */
export const ANTI_FORGERY_COOKIE = 'cartwheel_signin';
export const ANTI_FORGERY_SECONDS = 15 * 60;
export const PAGE_PATH = '/signin/';
/** Longest login name and password read (longer ones cannot be right: user ids ≤ 64, emails ≤ 254, passwords ≤ 128 characters). */
export const MAX_FIELD = 1024;

/** A text field of the query or form, bounded; undefined when absent or empty. */
export function field(values: Record<string, string>, name: string): string | undefined {
  const value = values[name];
  return value ? value.slice(0, MAX_FIELD) : undefined;
}

export function flagOf(values: Record<string, string>, name: string): boolean {
  return ['true', '1'].includes((values[name] ?? '').toLowerCase());
}

/** The origin of an absolute http(s) URI, or undefined. */
export function originOf(uri: string | undefined): string | undefined {
  if (!uri) return undefined;
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The headers every answer of the page carries (auth.md 5.1): no caching, no referrer, framing only by the redirect's origin. */
export function pageHeaders(redirectUri: string | undefined, requestId: string): Record<string, string> {
  const frameOrigin = originOf(redirectUri);
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': [
      "default-src 'none'",
      "style-src 'unsafe-inline'",
      "base-uri 'none'",
      // The form posts here; the 303 after it may lead to the redirect's origin.
      `form-action 'self'${frameOrigin ? ` ${frameOrigin}` : ''}`,
      `frame-ancestors ${frameOrigin ?? "'none'"}`,
    ].join('; '),
    ...(frameOrigin ? {} : { 'X-Frame-Options': 'DENY' }),
    'X-Request-Id': requestId,
  };
}

/** A fresh anti-forgery value and the cookie that carries it (SameSite=None for embedded forms, which need HTTPS). */
export function antiForgery(secure: boolean, compact: boolean): { value: string; cookie: string } {
  const value = randomBytes(24).toString('base64url');
  const sameSite = compact && secure ? 'None' : 'Lax';
  return { value, cookie: `${ANTI_FORGERY_COOKIE}=${value}; Path=${PAGE_PATH}; Max-Age=${ANTI_FORGERY_SECONDS}; HttpOnly; SameSite=${sameSite}${secure ? '; Secure' : ''}` };
}

/** The anti-forgery cookie the browser sent, if any. */
export function cookieValue(event: ApiEvent): string | undefined {
  const cookies = event.cookies ?? (event.headers?.cookie ? event.headers.cookie.split(';') : []);
  for (const cookie of cookies) {
    const [name, ...rest] = cookie.trim().split('=');
    if (name === ANTI_FORGERY_COOKIE) return rest.join('=');
  }
  return undefined;
}

export function sameValue(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The cookie that ends a spent anti-forgery value. */
export function spentAntiForgeryCookie(secure: boolean): string {
  return `${ANTI_FORGERY_COOKIE}=; Path=${PAGE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The form fields of a POST (an empty object for a body that is not a form: the anti-forgery check then refuses it). */
export async function formFields(event: ApiEvent): Promise<Record<string, string> | undefined> {
  try {
    return parseFormBody(event);
  } catch {
    return undefined;
  }
}

