/**
 * One attempt of a license request (licenses.md §5, §6): for a remote service a signed POST of
 * the request object to the merchant's script, judged by the reply rules of §5.3; for a list
 * service codes taken from the list (consumed atomically, reserved on the request in the same
 * transaction). It records what happened as an attempt and the sanitised code on success; it
 * stores nothing else: the callers (the automatic worker, the manual re-send) record the
 * outcome with their own rules (./record-outcome.ts).
 */
import { accountSignatureKey } from '../notifications/delivery/attempt';
import { countOutcome, metricNames } from '../../core/metrics';
import { renderContextFor } from '../notifications/fan-out';
import { jsonBody, xmlBody, type BodyTree } from '../notifications/body';
import { attemptEntry, sendSigned } from '../../outbound/attempt';
import { transportError } from '../../outbound/errors';
import { childTraceparent, currentTraceparent } from '../../core/tracing';
import type { Site } from '../../core/config';
import type { OutboundResponse, Platform } from '../../platform/ports';
import { expandResources, renderStored } from '../../rest/expand';
import { parseExpand } from '../../rest/paths';
import type { RecordScope } from '../../store/entity';
import { hasVisibleText, sanitizeLicenseReply, openServiceSecrets, takeCodes, type LicenseServiceRecord, licenseRequestDeclaration, OPERATIONAL_PROPERTIES, REQUEST_EXPAND, type LicenseAttempt, type LicenseAttemptErrorCode, type LicenseRequestRecord, findLicenseRequest, reserveCodesEntry } from '../../modules/licenses';

/** The User-Agent of every license request (§5.2). */
export const LICENSE_USER_AGENT = 'Cartwheel-Licenses/1.0';

/** Time limit of an automatic attempt (§5.3). */
export const LICENSE_TIMEOUT_MS = 30_000;

/** Time limit of a manual re-send (§10), so the API call ends within the platform's 30 s. */
export const LICENSE_MANUAL_TIMEOUT_MS = 25_000;

/** The longest license text a script may answer, in code points (§5.3). */
export const MAX_LICENSE_CHARS = 4096;

/** How an attempt is made. */
export interface LicenseAttemptOptions {
  /** 1-based number of this attempt among all the request's attempts. */
  number: number;
  trigger: LicenseAttempt['trigger'];
  timeoutMs: number;
}

/** One attempt's outcome: its log entry, the code on success, and the codes the request now holds reserved. */
export interface LicenseAttemptOutcome {
  attempt: LicenseAttempt;
  /** The sanitised license text (success only). */
  license: string | null;
  /** List services: every code reserved on the request after this attempt (stored ones and any taken now). */
  reserved: string[];
}

/** The scope of a request. */
export function requestScope(request: Pick<LicenseRequestRecord, 'account_id' | 'mode'>): RecordScope {
  return { accountId: request.account_id, mode: request.mode };
}

/**
 * Makes one attempt of `request` through `service` (its current settings; undefined when the
 * service was deleted, which fails the attempt).
 *
 * @example const { attempt, license } = await attemptLicense(platform, request, service, { number: 1, trigger: 'automatic', timeoutMs: LICENSE_TIMEOUT_MS });
 */
export async function attemptLicense(
  platform: Platform,
  request: LicenseRequestRecord,
  service: LicenseServiceRecord | undefined,
  options: LicenseAttemptOptions,
): Promise<LicenseAttemptOutcome> {
  const outcome = await makeLicenseAttempt(platform, request, service, options);
  countOutcome(metricNames.licenseDeliveries, outcome.attempt.success ? 'succeeded' : 'failed');
  return outcome;
}

/** The attempt itself (attemptLicense counts its outcome). */
async function makeLicenseAttempt(
  platform: Platform,
  request: LicenseRequestRecord,
  service: LicenseServiceRecord | undefined,
  options: LicenseAttemptOptions,
): Promise<LicenseAttemptOutcome> {
  const started = platform.clock.nowMs();
  if (!service) {
    const error = { code: 'service_deleted' as const, message: `The license service ${request.license_service_id} was deleted` };
    return { attempt: attemptEntry(options, started, '', { status_code: null, duration_ms: 0, error, response_body: null }), license: null, reserved: request.reserved_codes };
  }
  return service.type === 'list' ? listAttempt(platform, request, service, options, started) : remoteAttempt(platform, request, service, options, started);
}

/** §6: codes from the list, reserved on the request in the transaction that takes them. */
async function listAttempt(platform: Platform, request: LicenseRequestRecord, service: LicenseServiceRecord, options: LicenseAttemptOptions, started: number): Promise<LicenseAttemptOutcome> {
  const needed = service.per_quantity ? Math.max(1, request.quantity) : 1;
  const scope = requestScope(request);
  const reserved = [...request.reserved_codes];
  const sentAt = performance.now();
  let codes: string[] | undefined;
  if (!service.remove_after_use) {
    // Shared codes: every buyer gets the first N, nothing is consumed (and nothing reserved).
    const result = await takeCodes(scope, service.license_service_id, needed, { now: started, reserve: () => [] });
    if (result.outcome === 'taken') codes = result.codes;
  } else if (reserved.length >= needed) {
    // An earlier attempt took them and died before storing the license: they are this request's.
    codes = reserved.slice(0, needed);
  } else {
    const held = reserved.length;
    // `reserve` is asked for each chunk a round plans; a refused round is planned again, so only the result says what was taken.
    const result = await takeCodes(scope, service.license_service_id, needed - held, {
      now: started,
      reserve: (chunk, takenBefore) => [reserveCodesEntry(scope, request.license_request_id, chunk, held + takenBefore)],
    });
    if (result.outcome === 'taken') {
      reserved.push(...result.codes);
      codes = reserved.slice(0, needed);
    } else {
      // Chunks taken before the list ran short stay reserved on the request: read what it holds now.
      reserved.splice(0, reserved.length, ...((await findLicenseRequest(scope, request.license_request_id))?.reserved_codes ?? reserved));
    }
  }
  const duration = Math.round(performance.now() - sentAt);
  if (!codes) {
    const error = { code: 'no_licenses_available' as const, message: `The license service has fewer than ${needed} code${needed === 1 ? '' : 's'} left` };
    return { attempt: attemptEntry(options, started, '', { status_code: null, duration_ms: duration, error, response_body: null }), license: null, reserved };
  }
  return { attempt: attemptEntry(options, started, '', { status_code: null, duration_ms: duration, error: null, response_body: null }), license: codes.join('<br>'), reserved };
}

/**
 * The outbound body (§5.1): the license request object without its operational properties,
 * `order` expanded with its customer (items are inline), plus the service's `expand` paths
 * (at most 10, malformed ones dropped), dates in the account's zone, links absolute.
 */
export async function licenseRequestBody(site: Site, request: LicenseRequestRecord, service: LicenseServiceRecord, status: LicenseRequestRecord['status'], now: number): Promise<BodyTree> {
  const context = await renderContextFor(site, requestScope(request), { timezone: null, show: null, hide: null }, now);
  const json = renderStored(licenseRequestDeclaration, { ...request, status }, context);
  const paths = [REQUEST_EXPAND, ...(service.expand ?? '').split(',')].map((path) => path.trim()).filter(Boolean);
  await expandResources([{ json, declaration: licenseRequestDeclaration, stored: request }], parseExpand(paths.slice(0, 11).join(','), 'single'), context, false);
  for (const name of OPERATIONAL_PROPERTIES) delete json[name];
  return json as BodyTree;
}

/** §5.3: the error of a reply (or of its absence), or the sanitised code of a good one. */
export function judgeReply(response: OutboundResponse, timeoutMs: number): { error: { code: LicenseAttemptErrorCode; message: string } } | { license: string } {
  if (!response.ok) return { error: transportError(response, timeoutMs) };
  if (response.status >= 300 && response.status <= 399) return { error: { code: 'redirect', message: `The script answered ${response.status} (redirects are not followed)` } };
  if (response.status < 200 || response.status > 299) return { error: { code: 'http_status', message: `The script answered ${response.status}` } };
  const text = response.body.trim();
  const length = [...text].length;
  if (length === 0) return { error: { code: 'empty_response', message: 'The reply body was empty' } };
  if (length > MAX_LICENSE_CHARS) return { error: { code: 'response_too_long', message: `The reply body has ${length} characters; at most ${MAX_LICENSE_CHARS} are allowed` } };
  const license = sanitizeLicenseReply(text).trim();
  if (!hasVisibleText(license)) return { error: { code: 'empty_response', message: 'The reply body has no visible text once sanitised' } };
  return { license };
}

/** §5: one signed POST to the script, judged by §5.3. */
async function remoteAttempt(platform: Platform, request: LicenseRequestRecord, service: LicenseServiceRecord, options: LicenseAttemptOptions, started: number): Promise<LicenseAttemptOutcome> {
  const destination = service.url ?? '';
  const tree = await licenseRequestBody(platform.site, request, service, request.status, started);
  const body = service.format === 'xml' ? xmlBody(tree) : jsonBody(tree);
  const key = await accountSignatureKey(platform, request.account_id);
  const secrets = await openServiceSecrets(service, platform.secrets);
  const sent = await sendSigned(
    platform.http,
    {
      url: destination,
      body,
      contentType: service.format === 'xml' ? 'application/xml; charset=utf-8' : 'application/json',
      userAgent: LICENSE_USER_AGENT,
      webhookId: request.license_request_id,
      key,
      credentials: {
        username: service.http_authorization_username,
        password: secrets.http_authorization_password,
        authorization: null,
        headerName: service.custom_header_name,
        headerValue: secrets.custom_header_value,
      },
      // The trace of the request that made the order, else a re-send's own; a fresh parent id each attempt.
      traceparent: childTraceparent(request.traceparent ?? (options.trigger === 'manual' ? currentTraceparent() : undefined)),
    },
    { signedAtMs: started, timeoutMs: options.timeoutMs },
  );
  const judged = judgeReply(sent.response, options.timeoutMs);
  const attempt = attemptEntry(options, started, destination, { ...sent.measured, error: 'error' in judged ? judged.error : null });
  return { attempt, license: 'license' in judged ? judged.license : null, reserved: request.reserved_codes };
}
