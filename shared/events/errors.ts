/**
 * The events module's errors (events.md §11) beyond the platform's common ones: a manual retry
 * that reached the destination and failed (502) or timed out (504). Both carry the updated
 * event in `meta.event`, as the API renders it.
 */
import { ApiError } from '../errors';

/** 502 remote_server_error: the manual retry's attempt failed. */
export class RemoteServerError extends ApiError {
  override name = 'RemoteServerError';
  constructor(message: string, event: unknown) {
    super(502, 'remote_server_error', message, { event });
  }
}

/** 504 remote_server_timeout: the manual retry's attempt got no complete reply in time. */
export class RemoteServerTimeoutError extends ApiError {
  override name = 'RemoteServerTimeoutError';
  constructor(message: string, event: unknown) {
    super(504, 'remote_server_timeout', message, { event });
  }
}
