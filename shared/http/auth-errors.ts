/** Errors of authentication and authorization (auth.md section 11). */
import { ApiError } from './errors';

/** 401 invalid_token: missing, malformed, unknown, expired or revoked token. */
export class InvalidTokenError extends ApiError {
  override name = 'InvalidTokenError';
  constructor(message = 'The access token is missing or invalid.') {
    super(401, 'invalid_token', message);
  }
}

/** 401 invalid_token for a token whose lifetime ended. */
export class ExpiredTokenError extends InvalidTokenError {
  override name = 'ExpiredTokenError';
  constructor() {
    super('The token has expired.');
  }
}

/** 403 insufficient_permissions: a valid token without the right. */
export class InsufficientPermissionsError extends ApiError {
  override name = 'InsufficientPermissionsError';
  constructor(message = 'The access token does not have the permission required for this request.', meta: Record<string, unknown> | null = null) {
    super(403, 'insufficient_permissions', message, meta);
  }
}

/** 400 token_type_mismatch: a resource or token of the other mode. */
export class TokenTypeMismatchError extends ApiError {
  override name = 'TokenTypeMismatchError';
  constructor(message = 'The resource belongs to the other mode (test or live) than the access token.') {
    super(400, 'token_type_mismatch', message);
  }
}
