/**
 * Errors of a manual attempt that reached a merchant's server (events.md §11, licenses.md §12):
 * the attempt failed (502) or timed out (504). Both carry the updated resource in `meta`, as the
 * API renders it, under its own name (`meta.event`, `meta.license_request`).
 */
import { ApiError } from '../../core/errors';

/** 502 remote_server_error: the manual attempt reached the destination and failed. */
export class RemoteServerError extends ApiError {
  override name = 'RemoteServerError';
  constructor(message: string, meta: Record<string, unknown>) {
    super(502, 'remote_server_error', message, meta);
  }
}

/** 504 remote_server_timeout: the manual attempt got no complete reply in time. */
export class RemoteServerTimeoutError extends ApiError {
  override name = 'RemoteServerTimeoutError';
  constructor(message: string, meta: Record<string, unknown>) {
    super(504, 'remote_server_timeout', message, meta);
  }
}
