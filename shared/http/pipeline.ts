/**
 * The API pipeline: what every `/api/v1` route family handler does around its actions.
 *
 *   transport (tls_required) → authentication + rate limit → origin check (CORS) →
 *   permission → body → idempotency → action → response headers
 *
 * A family handler is `apiHandler('auths', { 'GET /api/v1/auths': listAuths, ... })`: a middy
 * handler that both the API Gateway integration and the local gateway call with the same
 * API Gateway v2 event. Route metadata (access rules) comes from the route table.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routeKey, routesOf, type FamilyName, type FamilyRouteKey, type RouteDefinition, type RouteParams } from '../../infra/routes';
import { authenticate, expiresInSeconds } from '../auth/authenticate';
import { InsufficientPermissionsError } from '../auth/errors';
import { isAllowed } from '../auth/permissions';
import type { Principal } from '../auth/principal';
import { takeFromBucket } from '../auth/rate-limit';
import { bearerToken } from '../auth/tokens';
import { readTechnicalSettingsCached } from '../accounts/settings-cache';
import { config } from '../config';
import { newId } from '../ids';
import { logger } from '../logging';
import { ipBucketKey } from '../store/keys';
import { isOriginAllowed, EXPOSE_HEADERS } from './cors';
import { asApiError, errorEnvelope } from './envelope';
import { InvalidOriginError, TlsRequiredError } from './errors';
import { checkIdempotencyKey, runIdempotent } from './idempotency';
import { parseJsonBody, parseQuery } from './request';
import { transportOf } from './transport';
import { cloudPlatform } from '../platform/cloud';
import type { Platform } from '../platform/ports';
import type { Action, ApiContext, ApiResult } from './types';

/** The JSON content type, exactly (storefront clients match it strictly). */
export const JSON_TYPE = 'application/json';

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

/** Serializes an action result (or error) into an API Gateway v2 response. */
export function toResponse(
  result: ApiResult,
  requestId: string,
  origin: string | undefined,
  principal: Principal | undefined,
): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { 'X-Request-Id': requestId, ...result.headers };
  if (result.body !== undefined && result.status !== 204) headers['Content-Type'] = JSON_TYPE;
  if (result.location) headers.Location = result.location;
  // An answer that issues a token sets this header for the issued token itself.
  if (principal && headers['X-Token-Expires-In-Seconds'] === undefined) {
    const seconds = expiresInSeconds(principal);
    if (seconds !== undefined) headers['X-Token-Expires-In-Seconds'] = String(seconds);
  }
  if (origin) Object.assign(headers, EXPOSE_HEADERS, { 'Access-Control-Allow-Origin': origin });
  return {
    statusCode: result.status,
    headers,
    ...(result.body !== undefined && result.status !== 204 ? { body: JSON.stringify(result.body) } : {}),
  };
}

/** The error envelope of any thrown value, as an action result. */
export function errorResult(error: unknown, requestId: string): ApiResult {
  const apiError = asApiError(error);
  if (apiError !== error) logger.error('Unhandled error', { requestId, error: error as Error });
  return { status: apiError.status, body: errorEnvelope(apiError, requestId), headers: apiError.headers };
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
  const familyRoutes = new Set(routesOf(family).map((route) => routeKey(route)));
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
  const familyRoutes = new Map(routesOf(family).map((route) => [routeKey(route), route]));
  const core = async (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2> => {
    const requestId = newId();
    const origin = event.headers?.origin;
    let principal: Principal | undefined;
    try {
      const route = familyRoutes.get(event.routeKey);
      if (!route) throw new Error(`Family ${family} received unknown route ${event.routeKey}`);
      const transport = transportOf(event);
      if (transport.insecure) throw new TlsRequiredError();
      const token = bearerToken(event.headers?.authorization);
      if (route.access.kind === 'public') {
        principal = token ? await authenticate(token) : undefined;
        if (!principal) await takeFromBucket(ipBucketKey(transport.sourceIp), config().rateLimits.perIp);
      } else {
        principal = await authenticate(token);
      }
      // Public endpoints check the origin against the account they name (`account_id`).
      const originAccount = principal?.accountId ?? (route.access.kind === 'public' ? parseQuery(event.rawQueryString).account_id : undefined);
      if (origin && originAccount) await checkOrigin(origin, transport.scheme, transport.host, originAccount);
      authorize(route, principal);
      const apiContext: ApiContext = {
        requestId,
        method: event.requestContext.http.method,
        route,
        params: (event.pathParameters ?? {}) as Record<string, string>,
        query: parseQuery(event.rawQueryString),
        headers: event.headers as Record<string, string>,
        body: parseJsonBody(event),
        principal,
        baseUrl: `${transport.scheme}://${transport.host}/api/v1/`,
        sourceIp: transport.sourceIp,
        lambdaContext: context,
        platform,
      };
      const action = actions[event.routeKey]!;
      const idempotencyKey = event.headers?.['idempotency-key'];
      const result =
        route.method === 'POST' && idempotencyKey !== undefined && principal
          ? await runIdempotent({
              tokenHash: principal.tokenHash,
              key: checkIdempotencyKey(idempotencyKey),
              method: route.method,
              path: event.rawPath,
              body: apiContext.body,
              requestId,
              lambdaContext: context,
              secrets: platform.secrets,
              execute: () => action(apiContext),
              errorResult: (error) => errorResult(error, requestId),
            })
          : await action(apiContext);
      return toResponse(result, requestId, origin, principal);
    } catch (error) {
      return toResponse(errorResult(error, requestId), requestId, origin, principal);
    }
  };
  return middy(core);
}

async function checkOrigin(origin: string, scheme: string, host: string, accountId: string): Promise<void> {
  const allowed = await isOriginAllowed({
    origin,
    scheme,
    host,
    accountId,
    allowList: async () => (await readTechnicalSettingsCached(accountId))?.cors_allowed_origins ?? [],
  });
  if (!allowed) throw new InvalidOriginError(origin);
}

function authorize(route: RouteDefinition, principal: Principal | undefined): void {
  const access = route.access;
  if (access.kind !== 'permission') return;
  if (!principal) throw new InsufficientPermissionsError();
  if (principal.isOwner) return;
  // Limited tokens reach single bound or paid-for resources; the action checks that (404 if not).
  if (principal.kind === 'limited' && access.reach) return;
  if (!isAllowed(principal.permissions, access.resource, access.method)) throw new InsufficientPermissionsError();
}
