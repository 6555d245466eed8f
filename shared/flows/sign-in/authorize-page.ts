/**
 * `{signin_url}oauth/authorize` (auth.md 6.2), on the sign-in surface: an OAuth app sends the
 * browser here with `response_type` (`code`, or `token` for the implicit grant), `client_id`,
 * `redirect_uri`, `state`, optional `test=true`, and for PKCE `code_challenge` with
 * `code_challenge_method=S256`.
 *
 * 1. The request is checked: an unknown or inactive client, or a `redirect_uri` that is not
 *    character for character on the app's list, gets an HTML error page and never a redirect;
 *    other faults (unknown `response_type`, `plain` or a malformed challenge, a public app
 *    without one) are redirected to the registered URI with `error=invalid_request` and `state`
 *    (in the query for `code`, in the fragment for `token`).
 * 2. The user signs in on a form naming the app (the same anti-forgery cookie, per-IP limit and
 *    lockout as the sign-in page); only users of the app's own account get further.
 * 3. The consent screen names the app and the user; its form carries a one-time ticket (stored
 *    for ten minutes, taken by the answer) that says who signed in for which request, so no
 *    session is kept. Allow: a code (`?code=`) or a trusted token (`#access_token=`); Deny:
 *    `error=access_denied`.
 *
 * Every answer carries the sign-in page's headers (no-store, no-referrer, frame-ancestors).
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ApiGate } from '../../http/gate';
import type { ApiEvent } from '../../http/middleware/state';
import {
  ACCESS_TOKEN_SECONDS,
  findOAuthApp,
  findOAuthAppByClientId,
  issueAuthorizationCode,
  issueConsentTicket,
  issueImplicitToken,
  takeConsentTicket,
  type OAuthAppRecord,
} from '../../modules/identity';
import type { Platform } from '../../platform/ports';
import { pageLanguage, textsOf, type PageLanguage } from './messages';
import { authorizeErrorPage, authorizeFormPage, consentPage, type PageMessage } from './page';
import { antiForgery, checkLogin, cookieValue, field, flagOf, formFields, MAX_FIELD, pageHeaders, sameValue, spentAntiForgeryCookie } from './page-guard';

type Result = APIGatewayProxyStructuredResultV2;

/** The authorize endpoint's path on the sign-in surface. */
export const AUTHORIZE_PATH = '/signin/oauth/authorize';

/** A PKCE S256 challenge: 43 base64url characters (a SHA-256, no padding). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** What the authorization request says (query on GET, hidden fields on the login POST). */
interface AuthorizeRequest {
  responseType: string | undefined;
  clientId: string | undefined;
  redirectUri: string | undefined;
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
  test: boolean;
}

function requestOf(values: Record<string, string>): AuthorizeRequest {
  return {
    responseType: field(values, 'response_type'),
    clientId: field(values, 'client_id'),
    redirectUri: field(values, 'redirect_uri'),
    state: values.state !== undefined && values.state !== '' ? values.state.slice(0, MAX_FIELD) : undefined,
    codeChallenge: field(values, 'code_challenge'),
    codeChallengeMethod: field(values, 'code_challenge_method'),
    test: flagOf(values, 'test'),
  };
}

/** The request as the login form's hidden fields. */
function hiddenFieldsOf(request: AuthorizeRequest): Record<string, string | undefined> {
  return {
    response_type: request.responseType,
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: request.codeChallengeMethod,
    test: request.test ? 'true' : undefined,
  };
}

/** Where a redirect puts its parameters: the query for codes (and faults of unknown types), the fragment for implicit tokens. */
type Carrier = 'query' | 'fragment';

/** `uri` with `params` in its query (`&` when it has one already) or as its fragment. */
function withParameters(uri: string, carrier: Carrier, params: Record<string, string | undefined>): string {
  const text = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  if (carrier === 'fragment') return `${uri.split('#')[0]}#${text}`;
  return `${uri}${uri.includes('?') ? '&' : '?'}${text}`;
}

/** What checking a request found: a page to show (no redirect), a fault to redirect, or a valid request. */
type Checked =
  | { kind: 'page'; code: string; text: string }
  | { kind: 'fault'; location: string }
  | { kind: 'valid'; app: OAuthAppRecord; redirectUri: string; responseType: 'code' | 'token'; codeChallenge: string | undefined };

/** Checks an authorization request in the order of auth.md 6.2 (client and redirect first: only then may the browser be sent back). */
async function checkRequest(request: AuthorizeRequest, language: PageLanguage): Promise<Checked> {
  const t = textsOf(language);
  const app = request.clientId ? await findOAuthAppByClientId(request.clientId) : undefined;
  if (!app || !app.active) return { kind: 'page', code: 'invalid_client', text: t.unknownClient };
  const redirectUri = request.redirectUri;
  if (!redirectUri || !app.redirect_uris.includes(redirectUri)) return { kind: 'page', code: 'redirect_uri_unregistered', text: t.unregisteredAppRedirect(redirectUri ?? '') };
  const carrier: Carrier = request.responseType === 'token' ? 'fragment' : 'query';
  const fault = (description: string): Checked => ({
    kind: 'fault',
    location: withParameters(redirectUri, carrier, { error: 'invalid_request', error_description: description, state: request.state }),
  });
  const responseType = request.responseType;
  if (responseType !== 'code' && responseType !== 'token') return fault('response_type must be code or token.');
  let codeChallenge: string | undefined;
  if (responseType === 'code' && (request.codeChallenge !== undefined || request.codeChallengeMethod !== undefined)) {
    // Without a method a challenge is `plain` (RFC 7636 §4.3), which is refused.
    if ((request.codeChallengeMethod ?? 'plain') !== 'S256') return fault('Only code_challenge_method=S256 is supported.');
    if (!request.codeChallenge || !S256_CHALLENGE.test(request.codeChallenge)) return fault('code_challenge must be 43 base64url characters (S256).');
    codeChallenge = request.codeChallenge;
  }
  if (responseType === 'code' && app.client_type === 'public' && !codeChallenge) return fault('A public app must send a code_challenge (PKCE, S256).');
  return { kind: 'valid', app, redirectUri, responseType, codeChallenge };
}

/** Serves `GET`/`HEAD`/`POST {signin_url}oauth/authorize`. */
export async function serveAuthorize(event: ApiEvent, platform: Platform, gate: ApiGate, context: { method: string; query: Record<string, string>; secure: boolean; sourceIp: string; requestId: string }): Promise<Result> {
  const { method, query, secure, requestId } = context;
  const acceptLanguage = event.headers?.['accept-language'];
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    return { statusCode: 405, headers: { ...pageHeaders(undefined, requestId), Allow: 'GET, HEAD, POST' }, body: '' };
  }
  const values = method === 'POST' ? ((await formFields(event)) ?? {}) : query;
  const language = pageLanguage(field(values, 'lang') ?? query.lang, acceptLanguage);
  const t = textsOf(language);
  const errorPage = (status: number, code: string, text: string): Result => ({
    statusCode: status,
    headers: pageHeaders(undefined, requestId),
    body: method === 'HEAD' ? '' : authorizeErrorPage(language, code, text),
  });
  const redirect = (location: string, redirectUri: string, extra: Record<string, string> = {}): Result => ({
    statusCode: 303,
    headers: { ...pageHeaders(redirectUri, requestId), Location: location, ...extra },
    cookies: [spentAntiForgeryCookie(secure)],
  });

  if (method === 'POST' && values.step === 'consent') {
    if (!sameValue(field(values, 'csrf_token'), cookieValue(event))) return errorPage(403, 'invalid_origin', t.formExpired);
    const consent = await takeConsentTicket(values.ticket ?? '', platform.clock);
    if (!consent) return errorPage(400, 'consent_expired', t.consentExpired);
    const app = await findOAuthApp(consent.account_id, consent.oauth_app_id);
    if (!app || !app.active) return errorPage(400, 'invalid_client', t.unknownClient);
    if (!app.redirect_uris.includes(consent.redirect_uri)) return errorPage(400, 'redirect_uri_unregistered', t.unregisteredAppRedirect(consent.redirect_uri));
    const carrier: Carrier = consent.response_type === 'token' ? 'fragment' : 'query';
    if (values.decision !== 'allow') {
      return redirect(withParameters(consent.redirect_uri, carrier, { error: 'access_denied', error_description: 'The user denied the request.', state: consent.state }), consent.redirect_uri);
    }
    if (consent.response_type === 'code') {
      const code = await issueAuthorizationCode(consent, platform.clock);
      return redirect(withParameters(consent.redirect_uri, 'query', { code, state: consent.state }), consent.redirect_uri);
    }
    const issued = await issueImplicitToken(consent, app, platform.clock);
    if (!issued) return redirect(withParameters(consent.redirect_uri, carrier, { error: 'access_denied', error_description: 'The user no longer exists.', state: consent.state }), consent.redirect_uri);
    const location = withParameters(consent.redirect_uri, 'fragment', { access_token: issued.token, token_type: 'bearer', expires_in: String(ACCESS_TOKEN_SECONDS), state: consent.state });
    return redirect(location, consent.redirect_uri, { 'X-Token-Expires-In-Seconds': String(ACCESS_TOKEN_SECONDS) });
  }

  const request = requestOf(values);
  const checked = await checkRequest(request, language);
  if (checked.kind === 'page') return errorPage(400, checked.code, checked.text);
  if (checked.kind === 'fault') return redirect(checked.location, request.redirectUri!);
  const { app } = checked;
  const username = method === 'POST' ? (field(values, 'username') ?? '') : '';
  /** The login form again, with a fresh anti-forgery value, `status` and `message`. */
  const form = (status: number, message?: PageMessage, extra: Record<string, string> = {}): Result => {
    const guard = antiForgery(secure, false);
    return {
      statusCode: status,
      headers: { ...pageHeaders(checked.redirectUri, requestId), ...extra },
      cookies: [guard.cookie],
      body: method === 'HEAD' ? '' : authorizeFormPage(language, app.name, hiddenFieldsOf(request), username, guard.value, message),
    };
  };
  if (method !== 'POST') return form(200);

  // The sign-in page's login step: anti-forgery, the per-IP limit first (auth.md 5.3), the lockout.
  const login = await checkLogin(event, values, gate, context.sourceIp, platform.clock, t);
  if (login.refusal) return form(login.refusal.status, login.refusal.message, login.refusal.headers);
  const { user } = login;
  // Only users of the app's own account can authorize it (auth.md 6.1).
  if (user.account_id !== app.account_id) return form(403, { kind: 'error', code: 'other_account', text: t.otherAccount });

  const ticket = await issueConsentTicket(
    {
      account_id: app.account_id,
      mode: request.test ? 'test' : 'live',
      oauth_app_id: app.oauth_app_id,
      user_id: user.user_id,
      response_type: checked.responseType,
      redirect_uri: checked.redirectUri,
      ...(request.state !== undefined ? { state: request.state } : {}),
      ...(checked.codeChallenge ? { code_challenge: checked.codeChallenge } : {}),
    },
    platform.clock,
  );
  const guard = antiForgery(secure, false);
  return {
    statusCode: 200,
    headers: pageHeaders(checked.redirectUri, requestId),
    cookies: [guard.cookie],
    body: consentPage(language, app.name, `${user.name} (${user.user_id})`, request.test, ticket, guard.value),
  };
}
