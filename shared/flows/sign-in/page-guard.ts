/**
 * What every page of the sign-in surface shares (auth.md 5.1, 6.2): the headers (no caching, no
 * referrer, framing only by the redirect's origin), the anti-forgery value and its cookie, and
 * reading the form's fields, and the login step of a posted form (anti-forgery, per-IP limit,
 * lockout). The sign-in form and the OAuth authorize and consent pages use the same ones, so they
 * cannot drift apart.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../core/errors';
import { parseFormBody } from '../../http/body/form';
import type { ApiGate } from '../../http/gate';
import type { ApiEvent } from '../../http/middleware/state';
import { AccountLockedError, signInUser, type UserRecord } from '../../modules/identity';
import type { Clock } from '../../platform/ports';
import type { PageTexts } from './messages';
import type { PageMessage } from './page';

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


/** Why a posted login form is shown again: its status, the message on it and any extra headers. */
export interface LoginRefusal {
  status: number;
  message: PageMessage;
  headers?: Record<string, string>;
}

/** What the login step of a posted form found: the user, or the refusal to show on the form. */
export type LoginStep = { user: UserRecord; refusal?: undefined } | { user?: undefined; refusal: LoginRefusal };

/**
 * The login step of a posted form (auth.md 5.1, 5.3, 6.2), the same on the sign-in page and the
 * OAuth authorize page: the anti-forgery value must match its cookie (403), both fields must be
 * there (400), the caller's address must be under the per-IP limit (429; over it nothing is
 * checked and no user's count moves), then the password is checked under the user's lockout
 * (401 account_locked or invalid_login). Other failures are thrown.
 */
export async function checkLogin(event: ApiEvent, values: Record<string, string>, gate: ApiGate, sourceIp: string, clock: Clock, t: PageTexts): Promise<LoginStep> {
  if (!sameValue(field(values, 'csrf_token'), cookieValue(event))) return { refusal: { status: 403, message: { kind: 'error', code: 'invalid_origin', text: t.formExpired } } };
  const username = field(values, 'username');
  const password = values.password;
  if (!username || !password) return { refusal: { status: 400, message: { kind: 'error', code: 'invalid_input', text: t.missingFields } } };
  try {
    await gate.throttleAnonymous(sourceIp);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 429) throw error;
    const seconds = Number(error.headers['Retry-After'] ?? 1);
    return { refusal: { status: 429, message: { kind: 'error', code: 'request_limit_exceeded', text: t.tooManyAttempts(seconds) }, headers: { 'Retry-After': String(seconds) } } };
  }
  try {
    return { user: await signInUser(username, password.slice(0, MAX_FIELD), clock) };
  } catch (error) {
    if (error instanceof AccountLockedError) {
      const seconds = Number(error.headers['Retry-After'] ?? 1);
      return { refusal: { status: 401, message: { kind: 'error', code: 'account_locked', text: t.accountLocked(Math.ceil(seconds / 60)) }, headers: { 'Retry-After': String(seconds) } } };
    }
    if (error instanceof ApiError && error.code === 'invalid_login') return { refusal: { status: 401, message: { kind: 'error', code: 'invalid_login', text: t.invalidLogin } } };
    throw error;
  }
}
