/**
 * One delivery attempt of an event (events.md §5, §6, §8): an HTTP POST of the stored body to
 * the subscription's current destination, signed with the key current now, or an email
 * through the email port. It records what happened as a `DeliveryAttempt` and the request as
 * sent with its secrets replaced by `[redacted]` (what `debug=true` shows). It writes nothing:
 * callers (the automatic worker, the manual retry) store the outcome with their own rules.
 */
import { readGeneralSettings, readTechnicalSettings, signatureKeyPurpose } from '../../../modules/accounts';
import { countOutcome, metricNames } from '../../../core/metrics';
import type { OutboundResponse, Platform } from '../../../platform/ports';
import type { AttemptErrorCode, DeliveryAttempt, EventRecord, RecordedRequest, OpenedEventSubscription } from '../../../modules/events';
import { attemptEntry, sendSigned, signedHeaders, withTraceparent, type SignedRequest } from '../../../outbound/attempt';
import { unixSeconds } from '../../../outbound/signature';
import { deliverToFunction } from '../../../modules/functions';
import { transportError } from '../../../outbound/errors';
import { htmlToText } from '../../../core/html';
import { signingKey } from '../body';
import { childTraceparent, currentTraceparent } from '../../../core/tracing';

/** The User-Agent of every delivery (§5). */
export const USER_AGENT = 'Cartwheel-Notifications/1.0';

/** Time limit of an automatic attempt (§6). */
export const AUTOMATIC_TIMEOUT_MS = 30_000;

/** Time limit of a manual retry (§7.3), so the API call ends within the platform's 30 s. */
export const MANUAL_TIMEOUT_MS = 25_000;

/** One attempt's outcome: the log entry and the request as recorded (null when none was made). */
export interface AttemptOutcome {
  attempt: DeliveryAttempt;
  request: RecordedRequest | null;
}

/** How an attempt is made. */
export interface AttemptOptions {
  /** 1-based number of this attempt among all the event's attempts. */
  number: number;
  trigger: DeliveryAttempt['trigger'];
  timeoutMs: number;
}

/** The account's signature key, opened (§5: signatures use the key current at the attempt). */
export async function accountSignatureKey(platform: Platform, accountId: string): Promise<string> {
  const technical = await readTechnicalSettings(accountId);
  if (!technical?.signature_key_sealed) throw new Error(`Account ${accountId} has no signature key`);
  return platform.secrets.open(technical.signature_key_sealed, signatureKeyPurpose(accountId));
}

/**
 * Makes one attempt of `event` through `subscription` (its current destination, credentials,
 * header and key), by its method.
 *
 * @example const { attempt, request } = await attemptDelivery(platform, event, subscription, { number: 1, trigger: 'automatic', timeoutMs: AUTOMATIC_TIMEOUT_MS });
 */
export async function attemptDelivery(platform: Platform, event: EventRecord, subscription: OpenedEventSubscription, options: AttemptOptions): Promise<AttemptOutcome> {
  const outcome = await (subscription.method === 'email' ? emailAttempt(platform, event, subscription, options) : httpAttempt(platform, event, subscription, options));
  countOutcome(metricNames.webhookDeliveries, outcome.attempt.success ? 'succeeded' : 'failed');
  return outcome;
}

/** The log entry of an attempt that could not be made because the subscription is gone (§2.2). */
export function subscriptionDeletedAttempt(event: EventRecord, number: number, trigger: DeliveryAttempt['trigger'], atMs: number): DeliveryAttempt {
  return attemptEntry({ number, trigger }, atMs, '', {
    status_code: null,
    duration_ms: 0,
    error: { code: 'subscription_deleted', message: `The event subscription ${event.event_subscription_id} was deleted` },
    response_body: null,
  });
}

/** The §7.1 error of a reply or of its absence; null for a 2xx. */
function errorOf(response: OutboundResponse, timeoutMs: number): { code: AttemptErrorCode; message: string } | null {
  if (response.ok) {
    if (response.status >= 200 && response.status <= 299) return null;
    if (response.status >= 300 && response.status <= 399) return { code: 'redirect', message: `Destination answered ${response.status} (redirects are not followed)` };
    if (response.status === 410) return { code: 'gone', message: 'Destination answered 410 Gone' };
    return { code: 'http_status', message: `Destination answered ${response.status}` };
  }
  return transportError(response, timeoutMs);
}

/**
 * The `traceparent` of one attempt: the trace of the request that caused the event (stored with
 * it), else for a manual attempt (a retry, a sample) the trace of the request making it; a
 * fresh parent id each time.
 */
function attemptTraceparent(event: EventRecord, options: AttemptOptions): string | undefined {
  return childTraceparent(event.traceparent ?? (options.trigger === 'manual' ? currentTraceparent() : undefined));
}

async function httpAttempt(platform: Platform, event: EventRecord, subscription: OpenedEventSubscription, options: AttemptOptions): Promise<AttemptOutcome> {
  const started = platform.clock.nowMs();
  const key = signingKey(await accountSignatureKey(platform, event.account_id), subscription.secrets.signature_key);
  const { http_authorization_password: password, http_authorization: authorization, custom_header_value: headerValue } = subscription.secrets;
  const request: SignedRequest = {
    url: subscription.destination,
    body: event.body,
    contentType: event.content_type,
    userAgent: USER_AGENT,
    headers: { 'X-Event-Type': event.type },
    webhookId: event.event_id,
    key,
    credentials: { username: subscription.http_authorization_username, password, authorization, headerName: subscription.custom_header_name, headerValue },
    traceparent: attemptTraceparent(event, options),
  };
  if (subscription.hosted_function_id) return functionAttempt(platform, event, subscription.hosted_function_id, request, started, options);
  const sent = await sendSigned(platform.http, request, { signedAtMs: started, timeoutMs: options.timeoutMs });
  return {
    attempt: attemptEntry(options, started, subscription.destination, { ...sent.measured, error: errorOf(sent.response, options.timeoutMs) }),
    request: { method: 'POST', url: subscription.destination, headers: sent.recordedHeaders, body: event.body },
  };
}

/**
 * §9: a hosted function of the account as the destination, called inside the platform with the
 * same signed headers (no connection, no token); its `statusCode` decides the outcome.
 */
async function functionAttempt(platform: Platform, event: EventRecord, functionId: string, request: SignedRequest, started: number, options: AttemptOptions): Promise<AttemptOutcome> {
  const headers = signedHeaders(request, unixSeconds(new Date(started)));
  const sentAt = performance.now();
  const scope = { accountId: event.account_id, mode: event.mode };
  const delivered = await deliverToFunction(platform, scope, functionId, request.url, withTraceparent(headers.sent, request.traceparent), request.body, options.timeoutMs);
  const elapsed = Math.round(performance.now() - sentAt);
  return {
    attempt: attemptEntry(options, started, request.url, { status_code: delivered.status_code, duration_ms: elapsed, error: delivered.error, response_body: delivered.response_body }),
    request: { method: 'POST', url: request.url, headers: headers.recorded, body: request.body },
  };
}

/** §8: the bodies of a notification email by format. */
function emailBodies(event: EventRecord): { text: string; html?: string } {
  if (event.format === 'html') return { html: event.body, text: htmlToText(event.body) };
  if (event.format === 'json') {
    try {
      return { text: JSON.stringify(JSON.parse(event.body), null, 2) };
    } catch {
      return { text: event.body };
    }
  }
  return { text: event.body };
}

async function emailAttempt(platform: Platform, event: EventRecord, subscription: OpenedEventSubscription, options: AttemptOptions): Promise<AttemptOutcome> {
  const started = platform.clock.nowMs();
  const general = await readGeneralSettings(event.account_id);
  const company = general.company_name ?? 'Cartwheel';
  const subject = `${event.mode === 'test' ? '[TEST] ' : ''}${event.type} notification from ${company}`;
  const fromAddress = general.notification_from_addresses?.[0];
  const headers = { 'X-Event-Id': event.event_id, 'X-Event-Type': event.type };
  const bodies = emailBodies(event);
  const sentAt = performance.now();
  let error: DeliveryAttempt['error'] = null;
  try {
    await platform.email.send({
      to: subscription.destination,
      ...(fromAddress ? { from: `${JSON.stringify(company)} <${fromAddress}>` } : {}),
      subject,
      ...bodies,
      headers,
      kind: 'event_notification',
      // One message per attempt: a repeated run of the same attempt (a lost record) sends once where the port can tell.
      dedupKey: `event:${event.account_id}:${event.mode}:${event.event_id}:${options.number}`,
    });
  } catch (caught) {
    error = { code: 'email_rejected', message: (caught as Error).message || 'The mail service refused the message' };
  }
  return {
    attempt: attemptEntry(options, started, subscription.destination, { status_code: null, duration_ms: Math.round(performance.now() - sentAt), error, response_body: null }),
    request: { method: 'EMAIL', url: `mailto:${subscription.destination}`, headers: { Subject: subject, ...headers }, body: bodies.html ?? bodies.text },
  };
}
