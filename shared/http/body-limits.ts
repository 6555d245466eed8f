/**
 * How many body bytes a request may send (conventions.md §4 and §20). JSON bodies are capped at
 * 1 MiB; `multipart/form-data` bodies (file uploads such as `POST /images`, commerce.md §2.2,
 * files up to 10 MB) get a larger cap that leaves room for the multipart framing and the text
 * fields. The local gateway reads no further than the cap and answers 422
 * `account_limit_exceeded` itself; below the cap the handler applies its exact rule
 * (`parseJsonBody` for JSON, the upload parser for a file's own 10 MB).
 */
import { AccountLimitExceededError } from './errors';
import { MAX_BODY_BYTES } from './request';

const MiB = 1024 * 1024;

/** The cap of a JSON (or any non-upload) body: 1 MiB, the same limit `parseJsonBody` applies. */
export const MAX_JSON_BODY_BYTES = MAX_BODY_BYTES;

/** The cap of a `multipart/form-data` upload body: a 10 MB file plus multipart overhead. */
export const MAX_UPLOAD_BODY_BYTES = 11 * MiB;

/** What the body cap of a request may depend on; all of it is known before the body is read. */
export interface BodyLimitRequest {
  method: string;
  /** The path without the query string, e.g. `/api/v1/images`. */
  path: string;
  /** The `Content-Type` header as sent. */
  contentType: string | undefined;
}

/**
 * The most body bytes `request` may send. The one place that decides it: today a
 * `multipart/form-data` body gets `MAX_UPLOAD_BODY_BYTES` whatever its route, anything else
 * `MAX_JSON_BODY_BYTES`. An upload route with another cap (or a rule that keeps the upload cap
 * to upload routes) is a case here, on `method` and `path`.
 * @example requestBodyLimit({ method: 'POST', path: '/api/v1/images', contentType: 'multipart/form-data; boundary=x' }) // 11 MiB
 */
export function requestBodyLimit(request: BodyLimitRequest): number {
  return isMultipartFormData(request.contentType) ? MAX_UPLOAD_BODY_BYTES : MAX_JSON_BODY_BYTES;
}

/** 422 account_limit_exceeded for a body over `limitBytes`. */
export function bodyTooLarge(limitBytes: number): AccountLimitExceededError {
  const size = limitBytes % MiB === 0 ? `${limitBytes / MiB} MiB` : `${limitBytes} bytes`;
  return new AccountLimitExceededError(`The request body is larger than ${size}.`, { limit_bytes: limitBytes });
}

/** Whether a `Content-Type` names `multipart/form-data` (parameters ignored, any case). */
function isMultipartFormData(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';
}
