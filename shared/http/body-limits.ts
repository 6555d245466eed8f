/**
 * How many body bytes a request may send (conventions.md §4 and §20). JSON bodies are capped at
 * 1 MiB; `multipart/form-data` bodies to upload routes (`POST /images`, commerce.md §2.2, files
 * up to 10 MB) get the route's larger cap, which leaves room for the multipart framing. The local gateway reads no further than the cap and answers 422
 * `account_limit_exceeded` itself; below the cap the handler applies its exact rule
 * (`parseJsonBody` for JSON, the upload parser for a file's own 10 MB).
 */
import { AccountLimitExceededError } from './errors';
import { MAX_BODY_BYTES } from './request';

const MiB = 1024 * 1024;

/** The cap of a JSON (or any non-upload) body: 1 MiB, the same limit `parseJsonBody` applies. */
export const MAX_JSON_BODY_BYTES = MAX_BODY_BYTES;

/** What the body cap of a request depends on; all of it is known before the body is read. */
export interface BodyLimitRequest {
  /** The `Content-Type` header as sent. */
  contentType: string | undefined;
  /** The upload cap of the matched route (`upload` in the route table), if it is an upload route. */
  upload?: { maxBytes: number } | undefined;
}

/**
 * The most body bytes `request` may send, the one place that decides it: a `multipart/form-data`
 * body to an upload route gets that route's cap (a 10 MB file and its framing for `POST /images`);
 * every other body `MAX_JSON_BODY_BYTES`.
 * @example requestBodyLimit({ contentType: 'multipart/form-data; boundary=x', upload: { maxBytes: 11 << 20 } }) // 11 MiB
 */
export function requestBodyLimit(request: BodyLimitRequest): number {
  return request.upload && isMultipartFormData(request.contentType) ? request.upload.maxBytes : MAX_JSON_BODY_BYTES;
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
