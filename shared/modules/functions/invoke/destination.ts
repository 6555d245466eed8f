/**
 * Hosted functions as event destinations (events.md §9): recognising an invoke URL when a
 * subscription is saved, and delivering a notification by calling the function directly (no
 * network hop, no token), within the account's concurrency limit and the delivery's time limit.
 */
import type { Site } from '../../../core/config';
import { newId } from '../../../core/ids';
import { settleWithin } from '../../../core/parallel';
import { ApiError } from '../../../core/errors';
import { InvalidInputError } from '../../../http/errors';
import type { InvokeOutcome, Platform } from '../../../platform/ports';
import type { RecordScope } from '../../../store/records';
import { findHostedFunction } from '../hosted-function-store';
import { responseOf } from './answer';
import { callFunction, servingTarget } from './call';
import { deliveryEvent } from './event';

/**
 * The function an invoke URL names (`{functions_url}/func/v1/<id>`, any query), or undefined
 * for any other URL. Host and scheme compare case-insensitively, as URLs do.
 */
export function invokedFunctionId(site: Pick<Site, 'functionsUrl'>, destination: string): string | undefined {
  let url: URL;
  let root: URL;
  try {
    url = new URL(destination);
    root = new URL(site.functionsUrl);
  } catch {
    return undefined;
  }
  if (url.origin !== root.origin) return undefined;
  const base = root.pathname.replace(/\/+$/, '');
  const match = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/func/v1/([^/]+)(?:/.*)?$`).exec(url.pathname);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

/**
 * The hosted function a destination names in `scope` (events.md §9), or null when the
 * destination is not an invoke URL; 400 `invalid_input` on `destination` when it names a
 * function that is not one of this account and mode.
 */
export async function destinationFunction(site: Pick<Site, 'functionsUrl'>, scope: RecordScope, destination: string): Promise<string | null> {
  const functionId = invokedFunctionId(site, destination);
  if (functionId === undefined) return null;
  const record = await findHostedFunction(scope, functionId);
  if (!record) {
    throw new InvalidInputError('The destination is the invoke URL of a hosted function that is not one of this account and mode; deliveries to functions stay within the account.', {
      property: 'destination',
      reason: 'not_allowed',
    });
  }
  return functionId;
}

/** What a delivery to a function came to, in the terms of an attempt (events.md §7.1, §9). */
export interface FunctionDelivery {
  status_code: number | null;
  error: { code: 'function_error' | 'function_not_found' | 'timeout' | 'http_status'; message: string } | null;
  response_body: string | null;
}

/**
 * Delivers a rendered notification to the function `functionId` of `scope` as a POST to
 * `destination`'s path and query, with the delivery `headers` (events.md §9). A 2xx `statusCode`
 * is success; an error, crash or invalid response is `function_error` (502); a timeout is
 * `timeout` (504); a deleted function is `function_not_found`.
 */
export async function deliverToFunction(platform: Pick<Platform, 'functions' | 'secrets' | 'clock'>, scope: RecordScope, functionId: string, destination: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<FunctionDelivery> {
  const record = await findHostedFunction(scope, functionId);
  if (!record) return { status_code: null, error: { code: 'function_not_found', message: `The hosted function ${functionId} was deleted` }, response_body: null };
  const target = servingTarget(platform, record);
  if (!target) return { status_code: null, error: { code: 'function_error', message: `The hosted function ${functionId} is ${record.status}, not deployed` }, response_body: null };
  const event = deliveryEvent(new URL(destination), headers, body, { accountId: scope.accountId, mode: scope.mode, functionId, requestId: newId(), sourceIp: '127.0.0.1' });
  // A call that outlasts the delivery's limit is a timeout; the caller stops waiting (the function may finish on its own).
  const outcome: InvokeOutcome = await settleWithin(callFunction(platform, target, event), Math.min(timeoutMs, target.timeoutSeconds * 1000 + 1000), { kind: 'timeout' });
  switch (outcome.kind) {
    case 'returned': {
      try {
        const response = responseOf(outcome.value, functionId);
        const text = response.body.toString('utf8').slice(0, 2048);
        const ok = response.statusCode >= 200 && response.statusCode <= 299;
        return { status_code: response.statusCode, error: ok ? null : { code: 'http_status', message: `The function answered ${response.statusCode}` }, response_body: text || null };
      } catch (error) {
        return { status_code: 502, error: { code: 'function_error', message: error instanceof ApiError ? error.message : 'The function returned an invalid response' }, response_body: null };
      }
    }
    case 'error':
      return { status_code: 502, error: { code: 'function_error', message: `${outcome.errorType}: ${outcome.errorMessage}`.slice(0, 1000) }, response_body: null };
    case 'timeout':
      return { status_code: 504, error: { code: 'timeout', message: `The function did not finish within ${Math.round(Math.min(timeoutMs, target.timeoutSeconds * 1000) / 1000)} seconds` }, response_body: null };
    case 'throttled':
      return { status_code: 429, error: { code: 'http_status', message: "The account's limit of concurrent invocations was reached" }, response_body: null };
    case 'not_found':
      return { status_code: null, error: { code: 'function_not_found', message: `The hosted function ${functionId} is not deployed` }, response_body: null };
    default:
      return { status_code: 502, error: { code: 'function_error', message: `The function ${outcome.kind === 'runtime_unavailable' ? outcome.message : outcome.kind === 'out_of_memory' ? 'ran out of memory' : 'crashed'}` }, response_body: null };
  }
}
