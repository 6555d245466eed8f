/** The one place where errors become the contract's error envelope (conventions.md section 6). */
import { ApiError, ERROR_TYPES, UnspecifiedError } from './errors';

/** The JSON error envelope of an `ApiError`, with `reference` = the request id. */
export function errorEnvelope(error: ApiError, requestId: string): { error: Record<string, unknown> } {
  return {
    error: {
      type: ERROR_TYPES[error.status] ?? (error.status >= 500 ? 'internal_server_error' : 'bad_request'),
      code: error.code,
      message: error.message,
      reference: requestId,
      status: error.status,
      meta: error.meta,
    },
  };
}

/** Any thrown value as an `ApiError`; unexpected faults become a detail-free 500. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new UnspecifiedError();
}
