/**
 * `POST /oauth/token` (auth.md 6.3), as an action of the API pipeline: a public route whose body
 * may be a form or JSON (the route's `form-or-json` body kind), the per-IP limit of public
 * endpoints applied by the pipeline before anything is read. Reads the fields, authenticates
 * the client (HTTP Basic or body fields), runs one grant operation and answers the tokens with
 * `Cache-Control: no-store`. Every refusal is the platform envelope with `meta.oauth_error`.
 *
 * The body is read here rather than through a declared schema so that a missing or malformed
 * field is answered with its OAuth error name too.
 */
import { declareAnswer, type ApiContext, type ApiResult } from '../../../http/types';
import { InvalidClientError, InvalidOAuthRequestError, UnsupportedGrantTypeError } from './errors';
import { ACCESS_TOKEN_SECONDS, exchangeCode, isWellFormedVerifier, refreshGrant, type IssuedGrantTokens } from './grants';
import { findOAuthAppByClientId } from './oauth-app-store';
import type { OAuthAppRecord } from './oauth-records';
import { verifyClientSecret } from './secrets';

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);
/** Longest value read of any field (redirect URIs are at most 2,000 characters; everything else is shorter). */
const MAX_FIELD = 2048;

/** The string fields of the body: each must be a string (a form's always are); empty is absent. */
function fieldsOf(body: Record<string, unknown> | undefined): (name: string) => string | undefined {
  const values = body ?? {};
  return (name) => {
    if (!Object.hasOwn(values, name)) return undefined;
    const value = values[name];
    if (value === null || value === undefined || value === '') return undefined;
    if (typeof value !== 'string') throw new InvalidOAuthRequestError(`The property ${name} must be a string.`, { property: name, reason: 'invalid' });
    if (value.length > MAX_FIELD) throw new InvalidOAuthRequestError(`The property ${name} is too long.`, { property: name, reason: 'too_long' });
    return value;
  };
}

function required(field: (name: string) => string | undefined, name: string): string {
  const value = field(name);
  if (value === undefined) throw new InvalidOAuthRequestError(`The property ${name} is required.`, { property: name, reason: 'required' });
  return value;
}

/** The client id and secret of an `Authorization: Basic` header (RFC 6749 §2.3.1: each form-encoded), or undefined when there is none. */
function basicCredentials(authorization: string | undefined): { clientId: string; secret: string } | undefined | 'malformed' {
  const match = /^\s*basic\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return 'malformed';
  try {
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { clientId: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

/**
 * The client of the request (auth.md 6.3): confidential apps by HTTP Basic or the body fields
 * `client_id` and `client_secret`; public apps by `client_id` alone. One method per request.
 */
async function authenticateClient(context: ApiContext, field: (name: string) => string | undefined): Promise<OAuthAppRecord> {
  const basic = basicCredentials(context.headers.authorization);
  const usedBasic = basic !== undefined;
  if (basic === 'malformed') throw new InvalidClientError(true);
  const bodyId = field('client_id');
  const bodySecret = field('client_secret');
  if (basic && bodySecret !== undefined) {
    throw new InvalidOAuthRequestError('Send the client credentials either with HTTP Basic or in the body, not both.', { property: 'client_secret', reason: 'conflict' });
  }
  if (basic && bodyId !== undefined && bodyId !== basic.clientId) {
    throw new InvalidOAuthRequestError('The client_id differs from the one of the Authorization header.', { property: 'client_id', reason: 'conflict' });
  }
  const clientId = basic?.clientId ?? bodyId;
  const secret = basic?.secret ?? bodySecret;
  if (!clientId) throw new InvalidClientError(usedBasic);
  const app = await findOAuthAppByClientId(clientId);
  if (!app) throw new InvalidClientError(usedBasic);
  if (app.client_type === 'confidential') {
    if (secret === undefined || !verifyClientSecret(app, secret)) throw new InvalidClientError(usedBasic);
  } else if (secret !== undefined) {
    // A public app has no secret; one that sends one is not who it says.
    throw new InvalidClientError(usedBasic);
  }
  return app;
}

/** `POST /oauth/token`: `authorization_code` or `refresh_token`; 200 with the tokens, never cached. */
export async function oauthTokenAction(context: ApiContext): Promise<ApiResult> {
  const field = fieldsOf(context.body as Record<string, unknown> | undefined);
  const grantType = required(field, 'grant_type');
  if (!GRANT_TYPES.has(grantType)) throw new UnsupportedGrantTypeError();
  const app = await authenticateClient(context, field);
  const clock = context.platform.clock;
  let issued: IssuedGrantTokens;
  if (grantType === 'authorization_code') {
    const code = required(field, 'code');
    const redirectUri = required(field, 'redirect_uri');
    const codeVerifier = field('code_verifier');
    if (codeVerifier === undefined && app.client_type === 'public') {
      throw new InvalidOAuthRequestError('A public app must send the code_verifier.', { property: 'code_verifier', reason: 'required' });
    }
    if (codeVerifier !== undefined && !isWellFormedVerifier(codeVerifier)) {
      throw new InvalidOAuthRequestError('The code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_" and "~".', { property: 'code_verifier', reason: 'invalid' });
    }
    issued = await exchangeCode(app, { code, redirectUri, ...(codeVerifier !== undefined ? { codeVerifier } : {}) }, clock);
  } else {
    issued = await refreshGrant(app, required(field, 'refresh_token'), clock);
  }
  const { record } = issued;
  return {
    status: 200,
    body: {
      access_token: issued.accessToken,
      token_type: 'bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: issued.refreshToken,
      account_id: record.account_id,
      user_id: record.user_id,
      auth: `${context.baseUrl}auths/${record.auth_id}`,
    },
    headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'X-Token-Expires-In-Seconds': String(ACCESS_TOKEN_SECONDS) },
    sensitive: true,
  };
}

declareAnswer(oauthTokenAction, { shape: 'oauth_token', summary: 'Exchange an authorization code or refresh token for tokens', description: 'The access token and refresh token of the grant (OAuth 2.0 token response), never cached.' });
