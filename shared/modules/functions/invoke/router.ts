/**
 * The invoke surface, `{functions_url}/func/v1/<id>[/more][?query]` (functions.md §7): every
 * method, raw bodies, a secret token as Bearer or `?token=`, and the function's own answer passed
 * through. Composed from the surfaces' first steps (`respond`: request id and the error envelope;
 * `tlsRequired`), then its own: preflight, method, credential, permission, function, origin, body
 * size, state, the account's concurrency, the call, the answer.
 */
import middy from '@middy/core';
import { countOutcome, metricNames } from '../../../core/metrics';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { isAllowed } from '../../../core/access/permissions';
import { bearerToken } from '../../../core/access/tokens';
import { InsufficientPermissionsError } from '../../../http/auth-errors';
import { isOriginAllowed } from '../../../http/cors';
import { AccountLimitExceededError, InvalidOriginError, InvalidStateError, MethodNotAllowedError, NotFoundError } from '../../../http/errors';
import type { ApiGate } from '../../../http/gate';
import { respond } from '../../../http/middleware/respond';
import { stateOf, transportOfState, type ApiEvent } from '../../../http/middleware/state';
import { tlsRequired } from '../../../http/middleware/tls-required';
import type { Platform } from '../../../platform/ports';
import { MAX_INVOKE_BYTES } from '../limits';
import { getHostedFunction } from '../hosted-function-store';
import { answerOf } from './answer';
import { callFunction, servingTarget } from './call';
import { invokeEvent } from './event';

/** The methods a function serves (§7.1); OPTIONS is the platform's preflight. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** `/func/v1/<id>` and what follows it. */
const INVOKE_PATH = /^\/func\/v1\/([^/]+)(?:\/.*)?$/;

/** The preflight answer (§7.1): the requested origin, methods and headers echoed, without calling the function. */
function preflight(event: ApiEvent): APIGatewayProxyStructuredResultV2 {
  const headers = event.headers ?? {};
  return {
    statusCode: 204,
    headers: {
      ...(headers.origin ? { 'Access-Control-Allow-Origin': headers.origin } : {}),
      'Access-Control-Allow-Methods': headers['access-control-request-method'] ?? METHODS.join(', '),
      'Access-Control-Allow-Headers': headers['access-control-request-headers'] ?? 'Authorization, Content-Type',
      'Access-Control-Max-Age': '600',
      Vary: 'Origin',
    },
  };
}

/** The token of the request and where it came from: the Authorization header first, else `?token=`. */
function credentialOf(event: ApiEvent): { token: string | undefined; from: 'header' | 'query' } {
  const fromHeader = bearerToken(event.headers?.authorization);
  if (fromHeader) return { token: fromHeader, from: 'header' };
  const fromQuery = new URLSearchParams(event.rawQueryString ?? '').get('token') ?? undefined;
  return { token: fromQuery || undefined, from: 'query' };
}

/** The size of the request body as sent. */
function bodyBytes(event: ApiEvent): number {
  if (event.body === undefined) return 0;
  return event.isBase64Encoded ? Buffer.byteLength(event.body, 'base64') : Buffer.byteLength(event.body, 'utf8');
}

/** Serves one invoke URL request. */
async function invoke(event: ApiEvent, platform: Platform, gate: ApiGate): Promise<APIGatewayProxyStructuredResultV2> {
  const state = stateOf(event);
  const match = INVOKE_PATH.exec(event.rawPath);
  if (!match) throw new NotFoundError('No hosted function is named in this path; use /func/v1/<hosted_function_id>.');
  const method = event.requestContext.http.method.toUpperCase();
  if (method === 'OPTIONS') return preflight(event);
  if (!(METHODS as readonly string[]).includes(method)) throw new MethodNotAllowedError(method, [...METHODS, 'OPTIONS']);

  const credential = credentialOf(event);
  const principal = await gate.authenticate(credential.token);
  state.principal = principal;
  // §7.1: a secret token whose permissions include executions; limited and trusted tokens never.
  if (principal.kind !== 'secret' || !(principal.isOwner || isAllowed(principal.permissions, 'hosted_function_executions', 'create'))) {
    throw new InsufficientPermissionsError(undefined, { required_permission: 'hosted_function_executions:create' });
  }
  let functionId: string;
  try {
    functionId = decodeURIComponent(match[1]!);
  } catch {
    throw new NotFoundError();
  }
  const record = await getHostedFunction({ accountId: principal.accountId, mode: principal.mode }, functionId);

  const transport = transportOfState(state);
  let allowedOrigin: string | undefined;
  if (state.origin) {
    const allowed = await isOriginAllowed({
      origin: state.origin,
      scheme: transport.scheme,
      host: transport.host,
      accountId: principal.accountId,
      appsDomain: gate.appsDomain(),
      allowList: () => gate.allowedOrigins(principal.accountId),
    });
    if (!allowed) throw new InvalidOriginError(state.origin);
    allowedOrigin = state.origin;
  }
  if (bodyBytes(event) > MAX_INVOKE_BYTES) {
    throw new AccountLimitExceededError(`The request body is larger than ${MAX_INVOKE_BYTES / (1024 * 1024)} MB.`, { limit_bytes: MAX_INVOKE_BYTES });
  }
  const target = servingTarget(platform, record);
  if (!target) {
    throw new InvalidStateError(record.status === 'failed' ? `The hosted function failed to deploy: ${record.status_message ?? 'see its status_message'}` : 'The hosted function is still being deployed; retry shortly.', {
      hosted_function_id: functionId,
      status: record.status,
    });
  }
  const functionEvent = invokeEvent(event, { accountId: principal.accountId, mode: principal.mode, functionId, requestId: state.requestId, sourceIp: transport.sourceIp }, credential.from);
  const outcome = await callFunction(platform, target, functionEvent);
  countOutcome(metricNames.hostedFunctionInvocations, outcome.kind === 'returned' ? 'succeeded' : 'error');
  const answer = answerOf(outcome, functionId, target.timeoutSeconds);
  const headers: Record<string, string> = { ...answer.headers, 'X-Request-Id': state.requestId };
  if (allowedOrigin && !Object.keys(headers).some((name) => name.toLowerCase() === 'access-control-allow-origin')) {
    headers['Access-Control-Allow-Origin'] = allowedOrigin;
    headers.Vary = headers.Vary ? `${headers.Vary}, Origin` : 'Origin';
  }
  return {
    statusCode: answer.statusCode,
    headers,
    ...(answer.cookies.length ? { cookies: answer.cookies } : {}),
    ...(answer.body.length ? { body: answer.body.toString('base64'), isBase64Encoded: true } : {}),
  };
}

/**
 * The handler of the invoke surface over `platform` and `gate`: the function router's Lambda in
 * the cloud (`ANY /func/v1/{proxy+}`), and the local gateway's for `/func/v1/` on the same port
 * as the API, called with the same API Gateway v2 event.
 */
export function functionRouter(platform: Platform, gate: ApiGate) {
  return middy<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(respond(platform.clock))
    .use(tlsRequired({ edgeSecret: gate.edgeSecret }))
    .handler((event) => invoke(event, platform, gate));
}
