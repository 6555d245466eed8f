/**
 * The API error hierarchy. Every failure a client can see is an `ApiError` carrying the
 * contract's `code`, HTTP `status` and `meta` (conventions.md section 6). The HTTP layer turns
 * any of them into the error envelope in one place (shared/http/envelope.ts); nothing else
 * formats errors. Domain modules subclass these in their own `errors.ts`.
 */

export { ApiError, ERROR_TYPES, type ErrorHeaders } from '../core/errors';
import { ApiError } from '../core/errors';

/** 400 invalid_input: a body property or query parameter failed validation. */
export class InvalidInputError extends ApiError {
  override name = 'InvalidInputError';
  constructor(message: string, meta: Record<string, unknown>) {
    super(400, 'invalid_input', message, meta);
  }
}

/** 400 invalid_syntax: unparseable body, or a body without `Content-Type: application/json`. */
export class InvalidSyntaxError extends ApiError {
  override name = 'InvalidSyntaxError';
  constructor(message: string, meta: Record<string, unknown> | null = null) {
    super(400, 'invalid_syntax', message, meta);
  }
}

/** 401 tls_required: plain HTTP from a non-loopback client (conventions.md section 2). */
export class TlsRequiredError extends ApiError {
  override name = 'TlsRequiredError';
  constructor() {
    super(401, 'tls_required', 'This API is only available over HTTPS.');
  }
}

/** 403 invalid_origin: a browser origin that the account does not allow. */
export class InvalidOriginError extends ApiError {
  override name = 'InvalidOriginError';
  constructor(origin: string) {
    super(403, 'invalid_origin', `Requests from the origin ${origin} are not allowed.`, { header: 'Origin' });
  }
}

/** 404 resource_not_found: the path or resource does not exist (or is out of reach). */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  constructor(message = 'The requested resource does not exist.', meta: Record<string, unknown> | null = null) {
    super(404, 'resource_not_found', message, meta);
  }
}

/** 405 method_not_allowed, with the `Allow` header listing what the path supports. */
export class MethodNotAllowedError extends ApiError {
  override name = 'MethodNotAllowedError';
  constructor(method: string, allowed: readonly string[]) {
    super(405, 'method_not_allowed', `The method ${method} is not allowed on this path.`, { allowed }, {
      Allow: allowed.join(', '),
    });
  }
}

/** 409 in_use: the value or resource is taken (ids, user names, idempotency keys). */
export class InUseError extends ApiError {
  override name = 'InUseError';
  constructor(message: string, meta: Record<string, unknown>) {
    super(409, 'in_use', message, meta);
  }
}

/** 422 invalid_state: the resource's state forbids the request. */
export class InvalidStateError extends ApiError {
  override name = 'InvalidStateError';
  constructor(message: string, meta: Record<string, unknown> | null = null) {
    super(422, 'invalid_state', message, meta);
  }
}

/** 422 account_limit_exceeded: an account or size limit was reached. */
export class AccountLimitExceededError extends ApiError {
  override name = 'AccountLimitExceededError';
  constructor(message: string, meta: Record<string, unknown> | null = null) {
    super(422, 'account_limit_exceeded', message, meta);
  }
}

/** 429 request_limit_exceeded with `Retry-After` in whole seconds (at least 1). */
export class RequestLimitExceededError extends ApiError {
  override name = 'RequestLimitExceededError';
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, 'request_limit_exceeded', 'Too many requests. Wait and retry.', { retry_after_seconds: seconds }, {
      'Retry-After': String(seconds),
    });
  }
}

/** 500 unspecified_error: an unexpected fault; no detail reaches the client. */
export class UnspecifiedError extends ApiError {
  override name = 'UnspecifiedError';
  constructor() {
    super(500, 'unspecified_error', 'An unexpected error occurred. Quote the reference when contacting support.');
  }
}

/**
 * 503 with `Retry-After: 1`: the local runtime is starting (`starting`) or stopping
 * (`stopping`) and cannot serve the request now (local-runtime.md).
 */
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
  constructor(code: 'starting' | 'stopping', message: string) {
    super(503, code, message, null, { 'Retry-After': '1' });
  }
}
