/**
 * Answers every request no route matches (API Gateway's `$default` route, and the local
 * gateway's miss): CORS preflights (204, no token check), 405 with `Allow` when the path
 * exists with other methods, and 404 `resource_not_found` otherwise, including every API
 * version other than v1.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { performance } from 'node:perf_hooks';
import { newId } from '../core/ids';
import { logAccess } from './access-log';
import { PREFLIGHT_HEADERS } from './cors';
import { MethodNotAllowedError, NotFoundError, TlsRequiredError } from './errors';
import { errorResult, toResponse } from './response';
import { compileRoutes, type RouteMatcher } from './route-matcher';
import type { RouteDefinition } from './routes';
import { transportOf } from './transport';

/**
 * The fallback answer for a request none of `routes` matched (the table is compiled once);
 * `edgeSecret` is the secret of our own edge, whose forwarded scheme counts (none: no edge's does).
 */
export function fallback(routes: readonly RouteDefinition[], options: { edgeSecret: string | undefined }): (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2> {
  const matcher = compileRoutes(routes);
  const { edgeSecret } = options;
  return async (event) => {
    const startedMs = performance.now();
    const requestId = newId();
    const answer = answerUnmatched(matcher, event, edgeSecret, requestId);
    logAccess({ request_id: requestId, method: event.requestContext.http.method, route: event.routeKey, status: answer.statusCode ?? 500, latency_ms: performance.now() - startedMs });
    return answer;
  };
}

function answerUnmatched(matcher: RouteMatcher, event: APIGatewayProxyEventV2, edgeSecret: string | undefined, requestId: string): APIGatewayProxyStructuredResultV2 {
  const method = event.requestContext.http.method;
  const origin = event.headers?.origin;
  if (method === 'OPTIONS') {
    return {
      statusCode: 204,
      headers: { ...PREFLIGHT_HEADERS, ...(origin ? { 'Access-Control-Allow-Origin': origin } : {}), 'X-Request-Id': requestId },
    };
  }
  let error: Error;
  if (transportOf(event, edgeSecret).insecure) error = new TlsRequiredError();
  else {
    const allowed = matcher.allowedMethods(event.rawPath);
    error = allowed.length ? new MethodNotAllowedError(method, allowed) : new NotFoundError('No such path exists in this API.');
  }
  return toResponse(errorResult(error, requestId), requestId, origin, undefined);
}
