/**
 * The access line: one structured JSON line per request, written by the platform's logger
 * (Powertools Logger: stdout locally, CloudWatch Logs in Lambda), with exactly these fields.
 * It names the request (the `X-Request-Id` the answer carries), the route template (never the
 * raw path, which holds ids and may hold a token in `?token=`), the status, the latency and
 * whose request it was (account id and mode, once authenticated). Never a header, a query, a
 * token, card data or a body: the fields are picked one by one, nothing is spread in.
 */
import { logger } from '../core/logging';

/** The fields of one access line (`message` is `access`). */
export interface AccessLine {
  request_id: string;
  method: string;
  /** The route template (`GET /api/v1/carts/{cart_id}`), or `$default` for an unmatched request. */
  route: string;
  status: number;
  latency_ms: number;
  account_id?: string;
  mode?: string;
}

/** Message of every access line, so a log query can pick them out (`filter message = "access"`). */
export const ACCESS_MESSAGE = 'access';

/** Writes one access line at INFO (a LogLevel of WARN or above turns them off). */
export function logAccess(line: AccessLine): void {
  logger.info(ACCESS_MESSAGE, { ...line, latency_ms: Math.round(line.latency_ms * 100) / 100 });
}
