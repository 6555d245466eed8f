/**
 * Why a signed outbound request got no reply (events.md §7.1; licenses.md §5.3 uses the same
 * codes): the time limit, the address guard, or what Node says about DNS, TLS and the
 * connection. What a reply means (a status, a body) is the caller's own rule.
 */
import type { OutboundResponse } from '../platform/ports';

/** The codes of an attempt that got no reply. */
export type TransportErrorCode = 'timeout' | 'destination_not_allowed' | 'dns_error' | 'tls_error' | 'connection_error';

/** The codes every signed request's attempt may fail with (events.md §7.1, licenses.md §5.5): a refused status, a redirect, or no reply. */
export type RequestErrorCode = 'http_status' | 'redirect' | TransportErrorCode;

/** An attempt's error as its log entry stores it. */
export interface AttemptError<Code extends string = string> {
  code: Code;
  message: string;
}

/** Tells DNS, TLS and connection failures apart by what Node says (`getaddrinfo ENOTFOUND`, `CERT_...`). */
export function networkErrorCode(message: string): 'dns_error' | 'tls_error' | 'connection_error' {
  if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME|getaddrinfo|ENODATA|ESERVFAIL/i.test(message)) return 'dns_error';
  if (/TLS|SSL|certificate|CERT_|self[- ]signed|handshake|EPROTO/i.test(message)) return 'tls_error';
  return 'connection_error';
}

/**
 * The error of a request that got no reply, by why: `timeout` (worded with the limit in whole
 * seconds), `destination_not_allowed` (the address guard), else a network code.
 *
 * @example transportError({ ok: false, reason: 'timeout', message: '' }, 30_000) // { code: 'timeout', message: 'No complete reply within 30 seconds' }
 */
export function transportError(response: Extract<OutboundResponse, { ok: false }>, timeoutMs: number): AttemptError<TransportErrorCode> {
  if (response.reason === 'timeout') return { code: 'timeout', message: `No complete reply within ${Math.round(timeoutMs / 1000)} seconds` };
  if (response.reason === 'refused_address') return { code: 'destination_not_allowed', message: response.message };
  return { code: networkErrorCode(response.message), message: response.message };
}
