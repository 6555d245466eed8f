/**
 * The base of every error a client can see: an API `code`, an HTTP `status` and `meta`
 * (conventions.md section 6). Domain modules (and the store) subclass it in their own
 * `errors.ts`; the HTTP layer turns any of them into the error envelope in one place
 * (shared/http/envelope.ts). It lives outside `shared/http` so that layers below HTTP can
 * name their failures without depending on the HTTP layer.
 */

/** `error.type` for each status (conventions.md section 6). */
export const ERROR_TYPES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'transaction_error',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  422: 'unprocessable',
  429: 'too_many_requests',
  500: 'internal_server_error',
  502: 'external_server_error',
  // Only the local runtime answers 503: while it starts or stops (local-runtime.md).
  503: 'service_unavailable',
  504: 'external_server_timeout',
};

/** Extra response headers an error may need (Allow, Retry-After). */
export type ErrorHeaders = Record<string, string>;

/** Base class: an error with an API code, a status and optional meta. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly meta: Record<string, unknown> | null = null,
    readonly headers: ErrorHeaders = {},
  ) {
    super(message);
  }
}

