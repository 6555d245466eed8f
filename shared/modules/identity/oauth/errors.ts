/**
 * Errors of the token endpoint (auth.md 6.3): the platform envelope with the OAuth error name of
 * RFC 6749 §5.2 repeated in `meta.oauth_error`, so OAuth client libraries and our own clients
 * both find what they look for.
 */
import { ApiError } from '../../../http/errors';

/** The OAuth error names the token endpoint answers. */
export type OAuthErrorName = 'invalid_request' | 'unsupported_grant_type' | 'invalid_grant' | 'invalid_client';

/** Base class of the token endpoint's errors. */
export class OAuthTokenError extends ApiError {
  override name = 'OAuthTokenError';
  constructor(status: number, code: string, readonly oauthError: OAuthErrorName, message: string, meta: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(status, code, message, { ...meta, oauth_error: oauthError }, headers);
  }
}

/** 400 invalid_input / invalid_request: a field is missing or malformed (`meta.property` names it). */
export class InvalidOAuthRequestError extends OAuthTokenError {
  override name = 'InvalidOAuthRequestError';
  constructor(message: string, meta: Record<string, unknown> = {}) {
    super(400, 'invalid_input', 'invalid_request', message, meta);
  }
}

/** 400 invalid_input / unsupported_grant_type. */
export class UnsupportedGrantTypeError extends OAuthTokenError {
  override name = 'UnsupportedGrantTypeError';
  constructor() {
    super(400, 'invalid_input', 'unsupported_grant_type', 'The grant_type must be authorization_code or refresh_token.', { property: 'grant_type', reason: 'invalid' });
  }
}

/** 400 invalid_input / invalid_grant: the code or refresh token is unknown, expired or used, or PKCE or the redirect_uri does not match. */
export class InvalidGrantError extends OAuthTokenError {
  override name = 'InvalidGrantError';
  constructor(message: string, property: string) {
    super(400, 'invalid_input', 'invalid_grant', message, { property, reason: 'invalid' });
  }
}

/** 401 invalid_login / invalid_client: client authentication failed (`WWW-Authenticate` when Basic was tried). */
export class InvalidClientError extends OAuthTokenError {
  override name = 'InvalidClientError';
  constructor(usedBasic: boolean) {
    super(401, 'invalid_login', 'invalid_client', 'Client authentication failed.', {}, usedBasic ? { 'WWW-Authenticate': 'Basic realm="oauth"' } : {});
  }
}
