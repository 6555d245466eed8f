/**
 * How a call's outcome becomes the HTTP answer (functions.md §7.5, §7.6): the function's
 * `success` value mapped to a response, or the error envelope of a failure. Errors never carry
 * a stack trace; the function's error type and message are cut to a sane length.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ApiError } from '../../../core/errors';
import { RequestLimitExceededError } from '../../../http/errors';
import type { InvokeOutcome } from '../../../platform/ports';
import { MAX_INVOKE_BYTES } from '../limits';

/** Headers the platform drops from a function's answer (the length is recomputed). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'content-length']);

/** 502 remote_server_error of a function call. */
export class FunctionFailedError extends ApiError {
  override name = 'FunctionFailedError';
  constructor(message: string, meta: Record<string, unknown>) {
    super(502, 'remote_server_error', message, meta);
  }
}

/** 504 remote_server_timeout of a function call. */
export class FunctionTimeoutError extends ApiError {
  override name = 'FunctionTimeoutError';
  constructor(functionId: string, timeoutSeconds: number) {
    super(504, 'remote_server_timeout', `The hosted function did not finish within ${timeoutSeconds} seconds.`, { hosted_function_id: functionId, timeout_seconds: timeoutSeconds });
  }
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** A mapped response (what the router answers). */
export type FunctionResponse = Required<Pick<APIGatewayProxyStructuredResultV2, 'statusCode' | 'headers'>> & { body: Buffer; cookies: string[] };

function invalidResponse(functionId: string, why: string): FunctionFailedError {
  return new FunctionFailedError(`The hosted function returned an invalid response: ${why}.`, { hosted_function_id: functionId, reason: 'invalid_response' });
}

/** A header value as sent: strings as they are, numbers and booleans converted; anything else is refused. */
function headerValues(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value) && value.every((entry) => ['string', 'number', 'boolean'].includes(typeof entry))) return value.map(String);
  return undefined;
}

/** The response a `success` value describes (§7.5), or the 502 of an invalid one. */
export function responseOf(value: unknown, functionId: string): FunctionResponse {
  if (value === undefined) throw invalidResponse(functionId, 'the handler finished without a result');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidResponse(functionId, 'the result is not an object');
  const success = value as Record<string, unknown>;
  const statusCode = success.statusCode ?? 200;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 200 || statusCode > 599) throw invalidResponse(functionId, 'statusCode must be an integer from 200 to 599');
  const sentHeaders = success.headers ?? {};
  if (sentHeaders === null || typeof sentHeaders !== 'object' || Array.isArray(sentHeaders)) throw invalidResponse(functionId, 'headers must be an object');
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, raw] of Object.entries(sentHeaders as Record<string, unknown>)) {
    if (HOP_BY_HOP.has(name.toLowerCase()) || raw === null || raw === undefined) continue;
    const values = headerValues(raw);
    if (!values) throw invalidResponse(functionId, `the header ${clip(name, 100)} has a value that is not text`);
    if (/[\r\n]/.test(name) || values.some((entry) => /[\r\n\0]/.test(entry))) throw invalidResponse(functionId, `the header ${clip(name.replace(/[\r\n]/g, ' '), 100)} holds a line break`);
    // One header per entry: API Gateway sends repeated Set-Cookie as cookies; others are joined.
    if (name.toLowerCase() === 'set-cookie') cookies.push(...values);
    else headers[name] = values.join(', ');
  }
  let body: Buffer;
  const sentBody = success.body;
  if (sentBody === undefined || sentBody === null) body = Buffer.alloc(0);
  else if (typeof sentBody === 'string') body = success.isBase64Encoded === true ? Buffer.from(sentBody, 'base64') : Buffer.from(sentBody, 'utf8');
  else body = Buffer.from(JSON.stringify(sentBody), 'utf8');
  if (body.length > MAX_INVOKE_BYTES) throw invalidResponse(functionId, `the response is larger than ${MAX_INVOKE_BYTES / (1024 * 1024)} MB`);
  if (body.length > 0 && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  return { statusCode, headers, body, cookies };
}

/** The response of a call, or the error a failure answers (§7.6; 429 when the runner refused for load). */
export function answerOf(outcome: InvokeOutcome, functionId: string, timeoutSeconds: number): FunctionResponse {
  switch (outcome.kind) {
    case 'returned':
      return responseOf(outcome.value, functionId);
    case 'error': {
      const errorType = clip(outcome.errorType || 'Error', 200);
      const errorMessage = clip(outcome.errorMessage ?? '', 1000);
      throw new FunctionFailedError(`The hosted function returned an error: ${errorMessage || errorType}`, { hosted_function_id: functionId, error_type: errorType, error_message: errorMessage });
    }
    case 'timeout':
      throw new FunctionTimeoutError(functionId, timeoutSeconds);
    case 'out_of_memory':
      throw new FunctionFailedError('The hosted function ran out of memory.', { hosted_function_id: functionId, reason: 'out_of_memory' });
    case 'runtime_unavailable':
      throw new FunctionFailedError(clip(outcome.message, 500), { hosted_function_id: functionId, reason: 'runtime_unavailable' });
    case 'throttled':
      throw new RequestLimitExceededError(1);
    case 'crashed':
      throw new FunctionFailedError('The hosted function crashed before it answered.', { hosted_function_id: functionId, reason: 'crashed' });
    case 'not_found':
      throw new FunctionFailedError('The hosted function is not deployed; upload its code again.', { hosted_function_id: functionId, reason: 'crashed' });
  }
}
