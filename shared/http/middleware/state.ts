/**
 * What the steps of an HTTP surface share: one `ApiState` per request, carried on the event
 * (`event.apiState`, set by `respond`, which copies the event so concurrent invocations never
 * share it), and the accessors that say which step must come first.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '../../core/access/principal';
import type { RawBody } from '../body/raw';
import type { RouteDefinition } from '../routes';
import type { Transport } from '../transport';
import type { ApiResult } from '../types';

/** What the steps of one request have learned so far. */
export interface ApiState {
  requestId: string;
  /** `performance.now()` when the request started (the access line's latency). */
  startedMs?: number;
  /** The `Origin` header, echoed in CORS response headers. */
  origin: string | undefined;
  route?: RouteDefinition;
  transport?: Transport;
  principal?: Principal;
  query?: Record<string, string>;
  /** The parsed body of a `json`, `form` or `form-or-json` route. */
  body?: Record<string, unknown> | undefined;
  /** The body of a `raw` route, as sent. */
  raw?: RawBody | undefined;
  /** Steps that run around the action (idempotency), outermost first. */
  around: Array<(run: () => Promise<ApiResult>) => Promise<ApiResult>>;
}

/** The API Gateway v2 event as the steps see it: with the request's state. */
export type ApiEvent = APIGatewayProxyEventV2 & { apiState?: ApiState };

/** One step of a surface. */
export type ApiMiddleware = middy.MiddlewareObj<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>;

/** The middy request one step sees. */
export type ApiRequest = middy.Request<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>;

/** The request's state; `respond()` must come first in every surface. */
export function stateOf(event: ApiEvent): ApiState {
  if (!event.apiState) throw new Error('The respond() middleware must come first');
  return event.apiState;
}

/** The request's route; `route()` must come before the steps that read it. */
export function routeOf(state: ApiState): RouteDefinition {
  if (!state.route) throw new Error('The route() middleware must come first');
  return state.route;
}

/** The request's transport; `tlsRequired()` must come before the steps that read it. */
export function transportOfState(state: ApiState): Transport {
  if (!state.transport) throw new Error('The tlsRequired() middleware must come first');
  return state.transport;
}
