/** The handler of an `/api/v1` surface: the action's `ApiContext`, the action, the response. */
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Platform } from '../../platform/ports';
import { parseInput } from '../../rest/validate';
import { withRelay } from '../../work/relay';
import type { ApiGate } from '../gate';
import { parseQuery, rawBody } from '../request';
import { toResponse } from '../response';
import type { Action, ApiContext, ApiResult } from '../types';
import { routeOf, stateOf, transportOfState, type ApiEvent } from './state';

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
      // An upload's bytes for its parser (../body/multipart); a raw route's bytes as sent.
      ...(route.body === 'multipart' ? { rawBody: rawBody(event) } : route.body === 'raw' ? { rawBody: state.raw?.bytes } : {}),
      principal: state.principal,
      baseUrl: `${transport.scheme}://${transport.host}/api/v1/`,
      sourceIp: transport.sourceIp,
      fromOwnEdge: transport.fromOwnEdge,
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
