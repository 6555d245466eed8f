/**
 * How many body bytes a request may send (conventions.md §4 and §20). Every body is capped at
 * 1 MiB (JSON, form, raw) except a `multipart/form-data` body to a `multipart` route
 * (`POST /images`, commerce.md §2.2, files up to 10 MB), which gets the route's larger cap, room
 * for the multipart framing. The local gateway reads no further than the cap and answers 422
 * `account_limit_exceeded` itself; below the cap the handler applies its exact rule (the body
 * parsers of ./body/ for 1 MiB, the upload parser for a file's own 10 MB).
 */
import { AccountLimitExceededError } from './errors';
import type { RouteDefinition } from './routes';

const MiB = 1024 * 1024;

/** The cap of every body but an upload's (JSON, form, raw): 1 MiB. */
export const MAX_BODY_BYTES = MiB;

/** What the body cap of a request depends on; all of it is known before the body is read. */
export interface BodyLimitRequest {
  /** The `Content-Type` header as sent. */
  contentType: string | undefined;
  /** The matched route, if any: a `multipart` route carries its own cap. */
  route?: Pick<RouteDefinition, 'body' | 'multipart'> | undefined;
}

/**
 * The most body bytes `request` may send, the one place that decides it: a `multipart/form-data`
 * body to a `multipart` route gets that route's cap (a 10 MB file and its framing for
 * `POST /images`); every other body `MAX_BODY_BYTES`.
 * @example requestBodyLimit({ contentType: 'multipart/form-data; boundary=x', route: { body: 'multipart', multipart: { maxBytes: 11 << 20 } } }) // 11 MiB
 */
export function requestBodyLimit(request: BodyLimitRequest): number {
  const upload = request.route?.body === 'multipart' ? request.route.multipart : undefined;
  return upload && isMultipartFormData(request.contentType) ? upload.maxBytes : MAX_BODY_BYTES;
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
