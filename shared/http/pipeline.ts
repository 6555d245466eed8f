/**
 * The `/api/v1` surface: what every route family handler does around its actions, composed
 * from the middleware factories of ./middleware/ (one factory per file). Each step is small and
 * does one thing; a surface composes the ones it needs, in order, around its own handler.
 * Options are merged and tables compiled once, when a factory is called, never per request.
 *
 *   respond → route → tlsRequired → authentication → originCheck → aliases → permission →
 *   requestBody → idempotency → (handler) dispatch
 *
 * that is: transport (tls_required) → authentication + rate limit → origin check (CORS) →
 * path aliases (`/customers/me/...` → the scope's customer, or 404) → permission → body (the parser of the route's body kind: json, form, form-or-json, raw; a
 * multipart upload is left to its action) → idempotency → action → response headers.
 *
 * The steps share one `ApiState` per request, carried on the event (`event.apiState`, set by
 * `respond`, which copies the event so concurrent invocations never share it; ./middleware/state).
 *
 * A family handler is `apiHandler(defineFamily('auths', { 'GET /api/v1/auths': listAuths, ... }), platform, gate)`:
 * a middy handler that both the API Gateway integration and the local gateway call with the
 * same API Gateway v2 event. Route metadata (access rules) comes with the family's routes.
 *
 * @example A future surface takes only what it needs, e.g. hosted functions (`/func/v1`, raw
 * bodies, any method, no token):
 *
 *   middy<ApiEvent, APIGatewayProxyStructuredResultV2>()
 *     .use(respond(platform.clock))
 *     .use(tlsRequired({ edgeSecret }))
 *     .handler(async (event) => runHostedFunction(event, stateOf(event)));
 *
 * and the sign-in pages would add `authentication(gate)` and read their form with
 * `parseFormBody` (./body/form), or declare their routes `body: 'form'` and use `requestBody()`.
 */
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Platform } from '../platform/ports';
import type { ApiGate } from './gate';
import { aliases } from './middleware/aliases';
import { authentication } from './middleware/authentication';
import { requestBody } from './middleware/body';
import { dispatch } from './middleware/dispatch';
import { idempotency } from './middleware/idempotency';
import { originCheck } from './middleware/origin-check';
import { permission } from './middleware/permission';
import { respond } from './middleware/respond';
import { route, type UnmatchedAnswer } from './middleware/route';
import type { ApiEvent } from './middleware/state';
import { tlsRequired } from './middleware/tls-required';
import type { RouteDefinition } from './routes';
import type { Action } from './types';

export { JSON_TYPE, errorResult, toResponse } from './response';

/** A family's actions by route key. */
export type ActionTable = Record<string, Action>;

/** A route family's actions (what a handler module exports as `family`, and what the API description reads). */
export interface FamilyActions {
  family: string;
  actions: ActionTable;
}

/** A family ready to serve: its actions and its routes (shared/app/families.ts checks the two against each other). */
export interface ServedFamily extends FamilyActions {
  routes: readonly RouteDefinition[];
}

/**
 * Builds the handler of a route family over `platform` and `gate` (and `unmatched`, the answer
 * to what a greedy API route caught that the family does not serve: shared/app/families.ts); both the API Gateway
 * integration (shared/app/families.ts `lambdaHandler`) and the local gateway (with the local
 * platform) call it with the same API Gateway v2 event.
 */
export function apiHandler({ family, actions, routes }: ServedFamily, platform: Platform, gate: ApiGate, unmatched?: UnmatchedAnswer) {
  return middy<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(respond(platform.clock))
    .use(route(routes, family, unmatched))
    .use(tlsRequired({ edgeSecret: gate.edgeSecret }))
    .use(authentication(gate))
    .use(originCheck(gate))
    .use(aliases())
    .use(permission())
    .use(requestBody())
    .use(idempotency({ secrets: platform.secrets }))
    .handler(dispatch(actions, platform, gate));
}
