/**
 * The sign-in page surface, `{signin_url}` (auth.md 5.1): `GET` shows the form, `POST` (a form
 * body) checks the login under the lockout and the per-IP limit (auth.md 5.3) and, for a
 * registered `redirect_uri`, issues a trusted token and answers `303` with the token in the
 * fragment. Composed from the surfaces' first steps (`respond`: request id and the error
 * envelope for faults; `tlsRequired`), then its own: method, anti-forgery, throttle, login,
 * redirect check, issue. Everything it answers itself is HTML.
 *
 * Anti-forgery: each form carries a fresh random value that is also set as a short-lived,
 * HttpOnly cookie on the sign-in path; a POST is accepted only when both are present and equal
 * (compared in constant time). Another site can neither read the cookie nor set it, so a
 * cross-site POST is refused (403) before any password is checked.
 *
 * `{signin_url}oauth/authorize` (OAuth apps, auth.md 6.2) is served here too, by ./authorize-page
 * with the same headers, cookie and checks (./page-guard).
 */
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { IDLE_LIFETIME_MS } from '../../core/access/token-records';
import type { ApiGate } from '../../http/gate';
import { respond } from '../../http/middleware/respond';
import { stateOf, transportOfState, type ApiEvent } from '../../http/middleware/state';
import { tlsRequired } from '../../http/middleware/tls-required';
import { issueTrustedToken } from '../../modules/identity';
import type { Platform } from '../../platform/ports';
import { pageLanguage, textsOf } from './messages';
import { errorPage, formPage, type FormFields, type PageMessage } from './page';
import { isRegisteredRedirect } from './redirect-uris';
import { AUTHORIZE_PATH, serveAuthorize } from './authorize-page';
import { antiForgery, checkLogin, field, flagOf, formFields, MAX_FIELD, PAGE_PATH, pageHeaders, spentAntiForgeryCookie } from './page-guard';

export { ANTI_FORGERY_COOKIE } from './page-guard';

/** What the page needs of the deployment besides the platform and the gate. */
export interface SignInPageOptions {
  /** The hosted apps' URL template (`https://{account_id}.apps.example.test`), for alias callbacks. */
  appsTemplate: string;
}

type Result = APIGatewayProxyStructuredResultV2;

/** The `Location` of a successful sign-in: the URI without its fragment, then the token's (auth.md 5.1). */
export function tokenRedirect(redirectUri: string, token: string, state: string | undefined): string {
  const base = redirectUri.split('#')[0]!;
  const seconds = IDLE_LIFETIME_MS.trusted! / 1000;
  const parts = [`access_token=${encodeURIComponent(token)}`, 'token_type=bearer', `expires_in=${seconds}`, ...(state !== undefined ? [`state=${encodeURIComponent(state)}`] : [])];
  return `${base}#${parts.join('&')}`;
}

/** Serves one request of the sign-in surface. */
async function serve(event: ApiEvent, platform: Platform, gate: ApiGate, options: SignInPageOptions): Promise<Result> {
  const state = stateOf(event);
  const transport = transportOfState(state);
  const secure = transport.scheme === 'https';
  const method = event.requestContext.http.method.toUpperCase();
  const query = Object.fromEntries(new URLSearchParams(event.rawQueryString ?? ''));
  const acceptLanguage = event.headers?.['accept-language'];

  if (event.rawPath === PAGE_PATH.slice(0, -1) && (method === 'GET' || method === 'HEAD')) {
    // `{signin_url}` ends in `/`; the bare path leads there, its query kept.
    return { statusCode: 308, headers: { ...pageHeaders(undefined, state.requestId), Location: `${PAGE_PATH}${event.rawQueryString ? `?${event.rawQueryString}` : ''}` } };
  }
  if (event.rawPath === AUTHORIZE_PATH) {
    return serveAuthorize(event, platform, gate, { method, query, secure, sourceIp: transport.sourceIp, requestId: state.requestId });
  }
  if (event.rawPath !== PAGE_PATH) {
    // Besides `{signin_url}oauth/authorize` (OAuth apps, auth.md 6.2) nothing else lives here.
    const language = pageLanguage(query.lang, acceptLanguage);
    return { statusCode: 404, headers: pageHeaders(undefined, state.requestId), body: errorPage(language, 'resource_not_found', 'Not found.', false) };
  }
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    return { statusCode: 405, headers: { ...pageHeaders(undefined, state.requestId), Allow: 'GET, HEAD, POST' }, body: '' };
  }

  const values = method === 'POST' ? ((await formFields(event)) ?? {}) : query;
  const language = pageLanguage(field(values, 'lang') ?? (method === 'POST' ? query.lang : undefined), acceptLanguage);
  const t = textsOf(language);
  const fields: FormFields = {
    redirectUri: field(values, 'redirect_uri'),
    state: values.state !== undefined && values.state !== '' ? values.state.slice(0, MAX_FIELD) : undefined,
    test: flagOf(values, 'test'),
    compact: flagOf(values, 'iframe') || flagOf(values, 'msg'),
    username: method === 'POST' ? (field(values, 'username') ?? '') : '',
  };
  /** The form again, with a fresh anti-forgery value, `status` and `message`. */
  const form = (status: number, message?: PageMessage, extra: Record<string, string> = {}): Result => {
    const guard = antiForgery(secure, fields.compact);
    return {
      statusCode: status,
      headers: { ...pageHeaders(fields.redirectUri, state.requestId), ...extra },
      cookies: [guard.cookie],
      body: method === 'HEAD' ? '' : formPage(language, fields, guard.value, message),
    };
  };

  if (method !== 'POST') return form(200, flagOf(query, 'logout') ? { kind: 'notice', text: t.signedOut } : undefined);

  const login = await checkLogin(event, values, gate, transport.sourceIp, platform.clock, t);
  if (login.refusal) return form(login.refusal.status, login.refusal.message, login.refusal.headers);
  const { user } = login;

  // Only now is the account known, so only now can the redirect be judged (auth.md 5.1.6).
  const problem = !fields.redirectUri
    ? { code: 'redirect_uri_missing', text: t.noRedirect }
    : !(await isRegisteredRedirect(user.account_id, fields.redirectUri, options.appsTemplate))
      ? { code: 'redirect_uri_unregistered', text: t.unregisteredRedirect(fields.redirectUri) }
      : undefined;
  if (problem) {
    return { statusCode: 400, headers: pageHeaders(undefined, state.requestId), body: errorPage(language, problem.code, problem.text, fields.compact) };
  }
  const { token } = await issueTrustedToken(user, fields.test ? 'test' : 'live', platform.clock);
  return {
    statusCode: 303,
    headers: { ...pageHeaders(fields.redirectUri, state.requestId), Location: tokenRedirect(fields.redirectUri!, token, fields.state), 'X-Token-Expires-In-Seconds': String(IDLE_LIFETIME_MS.trusted! / 1000) },
    // The form's value is spent.
    cookies: [spentAntiForgeryCookie(secure)],
  };
}

/**
 * The handler of the sign-in surface over `platform` and `gate`: the `signin` family's Lambda in
 * the cloud (`ANY /signin/{proxy+}` and `/signin/`), and the local gateway's for `/signin/` on
 * the same port as the API, called with the same API Gateway v2 event.
 */
export function signInPage(platform: Platform, gate: ApiGate, options: SignInPageOptions) {
  return middy<ApiEvent, Result, Error, Context>()
    .use(respond(platform.clock))
    .use(tlsRequired({ edgeSecret: gate.edgeSecret }))
    .handler((event) => serve(event, platform, gate, options));
}
