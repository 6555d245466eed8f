/**
 * The steps of an HTTP surface, as middy middleware factories. Each is small and does one
 * thing; a surface composes the ones it needs, in order, around its own handler. Options are
 * merged and tables compiled once, when a factory is called, never per request.
 *
 *   respond → route → tlsRequired → authentication → originCheck → permission → jsonBody →
 *   idempotency → (handler) dispatch
 *
 * The steps share one `ApiState` per request, carried on the event (`event.apiState`, set by
 * `respond`, which copies the event so concurrent invocations never share it).
 *
 * @example A future surface takes only what it needs, e.g. hosted functions (`/func/v1`, raw
 * bodies, any method, no token):
 *
 *   middy<ApiEvent, APIGatewayProxyStructuredResultV2>()
 *     .use(respond(platform.clock))
 *     .use(tlsRequired())
 *     .handler(async (event) => runHostedFunction(event, stateOf(event)));
 *
 * and the sign-in pages would add `authentication(gate)` and their own form parsing instead of
 * `jsonBody()`.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routeKey, type RouteDefinition } from './routes';
import { InsufficientPermissionsError, InvalidTokenError } from './auth-errors';
import { isAllowed } from '../core/access/permissions';
import { type Principal } from '../core/access/principal';
import { bearerToken } from '../core/access/tokens';
import { tokenFitsHost } from './app-hosts';
import { newId } from '../core/ids';
import type { Clock, Platform, SecretsPort } from '../platform/ports';
import type { ApiGate } from './gate';
import { withRelay } from '../work/relay';
import { parseInput } from '../rest/validate';
import { isOriginAllowed } from './cors';
import { InvalidOriginError, TlsRequiredError } from './errors';
import { checkIdempotencyKey, runIdempotent } from './idempotency';
import { uploadFingerprint } from './upload-fingerprint';
import { parseJsonBody, parseQuery, rawBody } from './request';
import { errorResult, toResponse } from './response';
import { transportOf, type Transport } from './transport';
import type { Action, ApiContext, ApiResult } from './types';

/** What the steps of one request have learned so far. */
export interface ApiState {
  requestId: string;
  /** The `Origin` header, echoed in CORS response headers. */
  origin: string | undefined;
  route?: RouteDefinition;
  transport?: Transport;
  principal?: Principal;
  query?: Record<string, string>;
  body?: Record<string, unknown> | undefined;
  /** Steps that run around the action (idempotency), outermost first. */
  around: Array<(run: () => Promise<ApiResult>) => Promise<ApiResult>>;
}

/** The API Gateway v2 event as the steps see it: with the request's state. */
export type ApiEvent = APIGatewayProxyEventV2 & { apiState?: ApiState };

/** One step of a surface. */
export type ApiMiddleware = middy.MiddlewareObj<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>;

type ApiRequest = middy.Request<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>;

/** The request's state; `respond()` must come first in every surface. */
export function stateOf(event: ApiEvent): ApiState {
  if (!event.apiState) throw new Error('The respond() middleware must come first');
  return event.apiState;
}

/** The request's route; `route()` must come before the steps that read it. */
function routeOf(state: ApiState): RouteDefinition {
  if (!state.route) throw new Error('The route() middleware must come first');
  return state.route;
}

/** The request's transport; `tlsRequired()` must come before the steps that read it. */
function transportOfState(state: ApiState): Transport {
  if (!state.transport) throw new Error('The tlsRequired() middleware must come first');
  return state.transport;
}

/**
 * Starts the request (its id and origin) and turns anything a later step or the handler
 * throws into the error envelope, with the CORS and token headers of what is known by then
 * (the token's expiry as `clock` tells it).
 */
export function respond(clock: Clock): ApiMiddleware {
  return {
    before: (request: ApiRequest) => {
      const apiState: ApiState = { requestId: newId(), origin: request.event.headers?.origin, around: [] };
      request.event = { ...request.event, apiState };
    },
    onError: (request: ApiRequest) => {
      const state = stateOf(request.event);
      request.response = toResponse(errorResult(request.error, state.requestId), state.requestId, state.origin, state.principal, clock.nowMs());
    },
  };
}

/** Finds the event's route (API Gateway `routeKey`) among `routes`; the lookup table is built once. */
export function route(routes: readonly RouteDefinition[], surface: string): ApiMiddleware {
  const byKey = new Map<string, RouteDefinition>(routes.map((definition) => [routeKey(definition), definition]));
  return {
    before: (request: ApiRequest) => {
      const found = byKey.get(request.event.routeKey);
      if (!found) throw new Error(`Family ${surface} received unknown route ${request.event.routeKey}`);
      stateOf(request.event).route = found;
    },
  };
}

/** Reads the transport (scheme, host, client address) and refuses plain HTTP from non-loopback clients (401 tls_required). */
export function tlsRequired(): ApiMiddleware {
  return {
    before: (request: ApiRequest) => {
      const transport = transportOf(request.event);
      stateOf(request.event).transport = transport;
      if (transport.insecure) throw new TlsRequiredError();
    },
  };
}

/**
 * Authenticates the bearer token. On public routes a token is optional and callers without
 * one draw from the per-IP rate limit bucket; elsewhere a valid token is required. On an
 * account's app host, another account's token is refused as invalid.
 */
export function authentication(gate: ApiGate): ApiMiddleware {
  return {
    before: async (request: ApiRequest) => {
      const state = stateOf(request.event);
      const token = bearerToken(request.event.headers?.authorization);
      if (routeOf(state).access.kind === 'public') {
        state.principal = token ? await gate.authenticate(token) : undefined;
        if (!state.principal) await gate.throttleAnonymous(transportOfState(state).sourceIp);
      } else {
        state.principal = await gate.authenticate(token);
      }
      // On an app host the API answers only that account's tokens (hosting.md §9).
      if (state.principal && !tokenFitsHost(state.principal.accountId, transportOfState(state).host, gate.appsDomain())) {
        throw new InvalidTokenError('The access token belongs to another account than this app host.');
      }
    },
  };
}

/**
 * Checks a browser `Origin` against the account's CORS rules (conventions.md §16). Public
 * endpoints check it against the account they name (`account_id`).
 */
export function originCheck(gate: ApiGate): ApiMiddleware {
  return {
    before: async (request: ApiRequest) => {
      const state = stateOf(request.event);
      const isPublic = state.route?.access.kind === 'public';
      const accountId = state.principal?.accountId ?? (isPublic ? parseQuery(request.event.rawQueryString).account_id : undefined);
      if (!state.origin || !accountId) return;
      const transport = transportOfState(state);
      const allowed = await isOriginAllowed({
        origin: state.origin,
        scheme: transport.scheme,
        host: transport.host,
        accountId,
        appsDomain: gate.appsDomain(),
        allowList: () => gate.allowedOrigins(accountId),
      });
      if (!allowed) throw new InvalidOriginError(state.origin);
    },
  };
}

/** Enforces the route's access rule against the caller's permissions (auth.md section 8). */
export function permission(): ApiMiddleware {
  return {
    before: (request: ApiRequest) => {
      const state = stateOf(request.event);
      const access = routeOf(state).access;
      const principal = state.principal;
      if (access.kind !== 'permission') return;
      if (!principal) throw new InsufficientPermissionsError();
      if (principal.isOwner) return;
      // Limited tokens reach single bound or paid-for resources; the action checks that (404 if not).
      if (principal.kind === 'limited' && access.reach) return;
      if (!isAllowed(principal.permissions, access.resource, access.method)) throw new InsufficientPermissionsError();
    },
  };
}

/**
 * Parses the query string and the JSON body (400 on a malformed or non-object body). Upload
 * routes (`upload` in the route table) keep their multipart body for the action (./multipart).
 */
export function jsonBody(): ApiMiddleware {
  return {
    before: (request: ApiRequest) => {
      const state = stateOf(request.event);
      state.query = parseQuery(request.event.rawQueryString);
      if (state.route?.upload) return;
      state.body = parseJsonBody(request.event);
    },
  };
}

/** What the idempotency step needs: the port that seals stored answers holding a secret. */
export interface IdempotencyOptions {
  secrets: SecretsPort;
}

/**
 * `Idempotency-Key` on authenticated POSTs (conventions.md §19): validates the key, then runs
 * the action at most once per (token, key), replaying the stored answer afterwards.
 */
export function idempotency(options: IdempotencyOptions): ApiMiddleware {
  const { secrets } = options;
  return {
    before: (request: ApiRequest) => {
      const { event, context } = request;
      const state = stateOf(event);
      const method = state.route?.method ?? event.requestContext.http.method;
      const header = event.headers?.['idempotency-key'];
      const principal = state.principal;
      if (method !== 'POST' || header === undefined || !principal) return;
      const key = checkIdempotencyKey(header);
      state.around.push((execute) =>
        runIdempotent({
          tokenHash: principal.tokenHash,
          key,
          method,
          path: event.rawPath,
          // An upload is compared by its content (boundary aside), as JSON bodies are.
          body: state.body ?? uploadFingerprint(event),
          requestId: state.requestId,
          lambdaContext: context,
          secrets,
          execute,
          errorResult: (error) => errorResult(error, state.requestId),
        }),
      );
    },
  };
}

/**
 * The handler of an `/api/v1` surface: builds the action's `ApiContext` from what the steps
 * learned, runs the route's action (inside any `around` steps) and serializes its answer.
 */
export function dispatch(actions: Readonly<Record<string, Action>>, platform: Platform, gate: ApiGate) {
  return async (event: ApiEvent, context: Context): Promise<APIGatewayProxyStructuredResultV2> => {
    const state = stateOf(event);
    const route = routeOf(state);
    const transport = transportOfState(state);
    const action = actions[event.routeKey]!;
    const byParam = action.input?.bodyByParam;
    const params = (event.pathParameters ?? {}) as Record<string, string>;
    const schema = action.input?.body ?? (byParam && Object.hasOwn(byParam.schemas, params[byParam.param] ?? '') ? byParam.schemas[params[byParam.param]!] : undefined);
    const apiContext: ApiContext = {
      requestId: state.requestId,
      method: event.requestContext.http.method,
      route,
      params: (event.pathParameters ?? {}) as Record<string, string>,
      query: state.query ?? parseQuery(event.rawQueryString),
      headers: event.headers as Record<string, string>,
      // A declared body is validated before any work; the action gets the converted value.
      body: schema ? (parseInput(schema, state.body ?? {}) as Record<string, unknown>) : state.body,
      ...(route.upload ? { rawBody: rawBody(event) } : {}),
      principal: state.principal,
      baseUrl: `${transport.scheme}://${transport.host}/api/v1/`,
      sourceIp: transport.sourceIp,
      lambdaContext: context,
      platform,
      accountRendering: (accountId) => gate.accountRendering(accountId),
    };
    const run = state.around.reduceRight<() => Promise<ApiResult>>((inner, step) => () => step(inner), () => action(apiContext));
    // Occurrences the action recorded are fanned out by the queue's worker, relayed here after the commit.
    const result = await withRelay(platform, run);
    return toResponse(result, state.requestId, state.origin, state.principal, platform.clock.nowMs());
  };
}
