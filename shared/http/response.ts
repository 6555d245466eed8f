/** Turning action results and thrown errors into API Gateway v2 responses, for every surface. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { expiresInSeconds, type Principal } from '../core/access/principal';
import { logger } from '../core/logging';
import { EXPOSE_HEADERS } from './cors';
import { asApiError, errorEnvelope } from './envelope';
import type { ApiResult } from './types';

/** The JSON content type, exactly (storefront clients match it strictly). */
export const JSON_TYPE = 'application/json';

/**
 * Serializes an action result (or error) into an API Gateway v2 response; with a caller's
 * `principal`, `now` (the platform clock's epoch ms) dates its token expiry header.
 */
export function toResponse(result: ApiResult, requestId: string, origin: string | undefined, principal: undefined): APIGatewayProxyStructuredResultV2;
export function toResponse(result: ApiResult, requestId: string, origin: string | undefined, principal: Principal | undefined, now: number): APIGatewayProxyStructuredResultV2;
export function toResponse(
  result: ApiResult,
  requestId: string,
  origin: string | undefined,
  principal: Principal | undefined,
  now?: number,
): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { 'X-Request-Id': requestId, ...result.headers };
  if (result.raw) headers['Content-Type'] = result.raw.contentType;
  else if (result.body !== undefined && result.status !== 204) headers['Content-Type'] = JSON_TYPE;
  if (result.location) headers.Location = result.location;
  // An answer that issues a token sets this header for the issued token itself.
  if (principal && now !== undefined && headers['X-Token-Expires-In-Seconds'] === undefined) {
    const seconds = expiresInSeconds(principal, now);
    if (seconds !== undefined) headers['X-Token-Expires-In-Seconds'] = String(seconds);
  }
  if (origin) Object.assign(headers, EXPOSE_HEADERS, { 'Access-Control-Allow-Origin': origin });
  return {
    statusCode: result.status,
    headers,
    ...(result.raw ? rawBody(result.raw.body) : result.body !== undefined && result.status !== 204 ? { body: JSON.stringify(result.body) } : {}),
  };
}

/** A raw body as API Gateway carries it: text as it is, bytes (a PDF) base64-encoded and flagged so. */
function rawBody(body: string | Uint8Array): { body: string; isBase64Encoded?: true } {
  return typeof body === 'string' ? { body } : { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64'), isBase64Encoded: true };
}

/** The error envelope of any thrown value, as an action result. */
export function errorResult(error: unknown, requestId: string): ApiResult {
  const apiError = asApiError(error);
  if (apiError !== error) logger.error('Unhandled error', { requestId, error: error as Error });
  return { status: apiError.status, body: errorEnvelope(apiError, requestId), headers: apiError.headers };
}
