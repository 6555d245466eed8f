/**
 * One signed outbound attempt (events.md §5, §6; licenses.md §5.2 sends the same way): the
 * headers (content type, user agent, the signatures of ./signature.ts, then the receiver's
 * credentials), the POST through the outbound port with its time limit, and the attempt log
 * entry both event deliveries and license requests keep. What a reply means, and what the
 * attempt changes, stays with the caller.
 */
import type { OutboundHttp, OutboundResponse } from '../platform/ports';
import type { RenderContext } from '../rest/render-context';
import type { AttemptError } from './errors';
import { signatureHeaders, unixSeconds } from './signature';

/** How much of a reply the attempt log keeps (events.md §6). */
export const KEPT_RESPONSE_CHARS = 2048;

/** What replaces a secret in a recorded request. */
export const REDACTED = '[redacted]';

/** One attempt as its log stores it (events.md §7.1; licenses.md §11.1 reuses the object). */
export interface AttemptLogEntry<Code extends string = string> {
  attempt: number;
  trigger: 'automatic' | 'manual';
  date_ms: number;
  destination: string;
  success: boolean;
  status_code: number | null;
  duration_ms: number;
  error: AttemptError<Code> | null;
  /** The first 2,048 characters of the reply, or null. */
  response_body: string | null;
}

/** What an attempt measured, besides its number, trigger, start and destination. */
export type AttemptResult<Code extends string = string> = Pick<AttemptLogEntry<Code>, 'status_code' | 'duration_ms' | 'error' | 'response_body'>;

/**
 * An attempt's log entry: numbered and dated, a success exactly when it has no error.
 *
 * @example attemptEntry({ number: 2, trigger: 'manual' }, startedMs, url, { status_code: 200, duration_ms: 41, error: null, response_body: 'ok' })
 */
export function attemptEntry<Code extends string>(
  options: { number: number; trigger: AttemptLogEntry['trigger'] },
  startedMs: number,
  destination: string,
  result: AttemptResult<Code>,
): AttemptLogEntry<Code> {
  return {
    attempt: options.number,
    trigger: options.trigger,
    date_ms: startedMs,
    destination,
    success: result.error === null,
    status_code: result.status_code,
    duration_ms: result.duration_ms,
    error: result.error,
    response_body: result.response_body,
  };
}

/** An attempt log as the API shows it (events.md §7.1): dates in the zone in effect. License requests show theirs the same way. */
export function attemptsJson(attempts: readonly AttemptLogEntry[], context: Pick<RenderContext, 'date'>) {
  return attempts.map((attempt) => ({
    attempt: attempt.attempt,
    trigger: attempt.trigger,
    date: context.date(attempt.date_ms),
    destination: attempt.destination,
    success: attempt.success,
    status_code: attempt.status_code,
    duration_ms: attempt.duration_ms,
    error: attempt.error,
    response_body: attempt.response_body,
  }));
}

/** The receiver's credentials, opened: each is sent only when complete. */
export interface ReceiverCredentials {
  /** Basic authorization: sent when both the username and the password are set. */
  username: string | null;
  password: string | null;
  /** A raw `Authorization` value, sent when Basic is not (event subscriptions; null elsewhere). */
  authorization: string | null;
  /** A custom header: sent when both its name and its value are set. */
  headerName: string | null;
  headerValue: string | null;
}

/** A signed POST: what it carries and to whom. */
export interface SignedRequest {
  url: string;
  body: string;
  contentType: string;
  userAgent: string;
  /** Headers after `User-Agent` and before the signatures (an event's `X-Event-Type`). */
  headers?: Record<string, string>;
  /** The `webhook-id` (an event's id, a license request's id). */
  webhookId: string;
  /** The signature key current at this attempt. */
  key: string;
  credentials: ReceiverCredentials;
  /**
   * The `traceparent` this attempt sends (W3C Trace Context: the trace of the request that caused
   * it, a parent id of its own; shared/core/tracing.ts `childTraceparent`). Sent, not recorded:
   * the recorded request shows what the receiver's own code signs and checks.
   */
  traceparent?: string;
}

/**
 * The headers of one attempt signed at `timestamp` (whole Unix seconds), and the same with the
 * credentials replaced by `[redacted]`, for the record.
 */
export function signedHeaders(request: SignedRequest, timestamp: number): { sent: Record<string, string>; recorded: Record<string, string> } {
  const sent: Record<string, string> = {
    'Content-Type': request.contentType,
    'User-Agent': request.userAgent,
    ...request.headers,
    ...signatureHeaders({ body: request.body, webhookId: request.webhookId, timestamp, key: request.key }),
  };
  const recorded: Record<string, string> = { ...sent };
  const { username, password, authorization, headerName, headerValue } = request.credentials;
  if (username !== null && password !== null) {
    sent.Authorization = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
    recorded.Authorization = REDACTED;
  } else if (authorization !== null) {
    sent.Authorization = authorization;
    recorded.Authorization = REDACTED;
  }
  if (headerName !== null && headerValue !== null) {
    sent[headerName] = headerValue;
    recorded[headerName] = REDACTED;
  }
  return { sent, recorded };
}

/**
 * The headers sent with the attempt's `traceparent` added, unless there is none or the receiver's
 * own custom header already has that name (the merchant's value is sent as they set it).
 */
export function withTraceparent(headers: Record<string, string>, traceparent: string | undefined): Record<string, string> {
  if (!traceparent || Object.keys(headers).some((name) => name.toLowerCase() === 'traceparent')) return headers;
  return { ...headers, traceparent };
}

/** A signed POST as made: the reply (or why none came), the headers as recorded, and what the log entry measures of it. */
export interface SentRequest {
  response: OutboundResponse;
  recordedHeaders: Record<string, string>;
  /** The log entry's measures; its `error` is the caller's judgement of `response`. */
  measured: Omit<AttemptResult, 'error'>;
}

/**
 * Signs `request` at `signedAtMs` (the attempt's start) and POSTs it within `timeoutMs`. A
 * timed-out attempt lasted at least the limit; the log keeps the first 2,048 characters of a reply.
 *
 * @example const { response, measured } = await sendSigned(platform.http, request, { signedAtMs: started, timeoutMs: 30_000 });
 */
export async function sendSigned(http: OutboundHttp, request: SignedRequest, options: { signedAtMs: number; timeoutMs: number }): Promise<SentRequest> {
  const headers = signedHeaders(request, unixSeconds(new Date(options.signedAtMs)));
  const sentAt = performance.now();
  const response = await http.send({ url: request.url, method: 'POST', headers: withTraceparent(headers.sent, request.traceparent), body: request.body, timeoutMs: options.timeoutMs });
  const elapsed = Math.round(performance.now() - sentAt);
  return {
    response,
    recordedHeaders: headers.recorded,
    measured: {
      status_code: response.ok ? response.status : null,
      duration_ms: response.ok || response.reason !== 'timeout' ? elapsed : Math.max(elapsed, options.timeoutMs),
      response_body: response.ok ? response.body.slice(0, KEPT_RESPONSE_CHARS) : null,
    },
  };
}
