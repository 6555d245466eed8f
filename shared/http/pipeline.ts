/**
 * The `/api/v1` surface: what every route family handler does around its actions, composed
 * from the middleware factories of ./middleware:
 *
 *   transport (tls_required) → authentication + rate limit → origin check (CORS) →
 *   permission → body → idempotency → action → response headers
 *
 * A family handler is `apiHandler(defineFamily('auths', { 'GET /api/v1/auths': listAuths, ... }))`:
 * a middy handler that both the API Gateway integration and the local gateway call with the
 * same API Gateway v2 event. Route metadata (access rules) comes from the route table.
 */
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routeKey, routesOf, type FamilyName, type FamilyRouteKey, type RouteParams } from '../app/routes';
import { cloudPlatform } from '../platform/adapters/cloud';
import type { Platform } from '../platform/ports';
import {
  authentication,
  dispatch,
  idempotency,
  jsonBody,
  originCheck,
  permission,
  respond,
  route,
  tlsRequired,
  type ApiEvent,
} from './middleware';
import type { Action } from './types';

export { JSON_TYPE, errorResult, toResponse } from './response';

/** A family's actions by route key. */
export type ActionTable = Record<string, Action>;

/**
 * Exactly one action per route of family `F`, each typed with its route's path parameters:
 * a missing route or a key outside the family fails the compiler.
 */
export type FamilyActionTable<F extends FamilyName> = { [Key in FamilyRouteKey<F>]: Action<RouteParams<Key>> };

/** A route family's actions, checked against the route table; what a handler module exports as `family`. */
export interface FamilyActions {
  family: FamilyName;
  actions: ActionTable;
}

/**
 * Declares a route family's actions. The compiler checks the table against the route table;
 * the same check runs at load time for tables it could not see (built dynamically), so a
 * route can never dispatch to nothing.
 *
 * @example defineFamily('settings', { 'GET /api/v1/settings/{group}': async ({ params }) => ..., ... })
 */
export function defineFamily<F extends FamilyName>(family: F, actions: FamilyActionTable<F>): FamilyActions {
  // Each action reads only its own route's parameters, which the pipeline fills from that route.
  const table = actions as unknown as ActionTable;
  const familyRoutes = new Set(routesOf(family).map((definition) => routeKey(definition)));
  for (const key of familyRoutes) {
    if (!table[key]) throw new Error(`Family ${family}: route ${key} has no action`);
  }
  for (const key of Object.keys(table)) {
    if (!familyRoutes.has(key)) throw new Error(`Family ${family}: action ${key} is not in the route table`);
  }
  return { family, actions: table };
}

/** The Lambda handler of a family: the cloud platform, built once when the module loads. */
export function lambdaHandler(definition: FamilyActions) {
  return apiHandler(definition, cloudPlatform());
}

/**
 * Builds the handler of a route family over `platform`; both the API Gateway integration
 * (through `lambdaHandler`) and the local gateway (with the local platform) call it with the
 * same API Gateway v2 event.
 */
export function apiHandler({ family, actions }: FamilyActions, platform: Platform) {
  return middy<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(respond())
    .use(route(routesOf(family), family))
    .use(tlsRequired())
    .use(authentication())
    .use(originCheck())
    .use(permission())
    .use(jsonBody())
    .use(idempotency({ secrets: platform.secrets }))
    .handler(dispatch(actions, platform));
}
