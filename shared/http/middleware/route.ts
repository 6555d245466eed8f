/** The step that finds the request's route in a family's table. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { compileRoutes } from '../route-matcher';
import { routeKey, type RouteDefinition } from '../routes';
import { stateOf, type ApiMiddleware, type ApiRequest } from './state';

/** How a family answers a request its greedy API route caught but none of its routes holds (the fallback's 404, 405 or preflight). */
export type UnmatchedAnswer = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Finds the event's route among `routes`; the lookup tables are built once. An exact route key
 * (the local gateway's, or an API route of its own) is looked up; a greedy API route's key
 * (`ANY /api/v1/carts/{proxy+}`, infra/cloud/route-layout.ts) is matched by method and path the
 * way the local gateway matches, and the event gets that route's key and parameters. What
 * matches none is answered by `unmatched` (without it, a family received a route it never had).
 */
export function route(routes: readonly RouteDefinition[], surface: string, unmatched?: UnmatchedAnswer): ApiMiddleware {
  const byKey = new Map<string, RouteDefinition>(routes.map((definition) => [routeKey(definition), definition]));
  const matcher = compileRoutes(routes);
  return {
    before: async (request: ApiRequest) => {
      const found = byKey.get(request.event.routeKey);
      if (found) {
        stateOf(request.event).route = found;
        return undefined;
      }
      if (!unmatched) throw new Error(`Family ${surface} received unknown route ${request.event.routeKey}`);
      const match = matcher.match(request.event.requestContext.http.method, request.event.rawPath);
      if (!match) return unmatched(request.event);
      request.event = { ...request.event, routeKey: match.routeKey, pathParameters: match.params };
      stateOf(request.event).route = match.route;
      return undefined;
    },
  };
}
