/** The first step of every surface: the request's id and origin, and the error envelope. */
import { performance } from 'node:perf_hooks';
import { enterTraceContext } from '../../core/tracing';
import { newId } from '../../core/ids';
import { logAccess } from '../access-log';
import { routeKey } from '../routes';
import type { Clock } from '../../platform/ports';
import { errorResult, toResponse } from '../response';
import { stateOf, type ApiMiddleware, type ApiRequest, type ApiState } from './state';

/**
 * Starts the request (its id and origin) and turns anything a later step or the handler
 * throws into the error envelope, with the CORS and token headers of what is known by then
 * (the token's expiry as `clock` tells it). Ends it with the access line (./access-log), on
 * the success path and the error path alike (middy runs no `after` once `onError` answered).
 */
export function respond(clock: Clock): ApiMiddleware {
  return {
    before: (request: ApiRequest) => {
      const apiState: ApiState = { requestId: newId(), origin: request.event.headers?.origin, around: [], startedMs: performance.now() };
      request.event = { ...request.event, apiState };
      // The caller's W3C trace context (validated): the due work this request writes keeps it, and the
      // webhooks and license requests sent for that work, now or later, carry its trace id.
      enterTraceContext(request.event.headers?.traceparent);
    },
    after: (request: ApiRequest) => {
      accessLine(request);
    },
    onError: (request: ApiRequest) => {
      const state = stateOf(request.event);
      request.response = toResponse(errorResult(request.error, state.requestId), state.requestId, state.origin, state.principal, clock.nowMs());
      accessLine(request);
    },
  };
}

/** The request's access line, from what the steps learned (never from headers or the body). */
function accessLine(request: ApiRequest): void {
  const state = request.event.apiState;
  if (!state) return;
  logAccess({
    request_id: state.requestId,
    method: request.event.requestContext?.http?.method ?? '',
    route: state.route ? routeKey(state.route) : request.event.routeKey,
    status: request.response?.statusCode ?? 500,
    latency_ms: performance.now() - (state.startedMs ?? performance.now()),
    ...(state.principal ? { account_id: state.principal.accountId, mode: state.principal.mode } : {}),
  });
}
