/** The step that finds the request's route in a family's table. */
import { routeKey, type RouteDefinition } from '../routes';
import { stateOf, type ApiMiddleware, type ApiRequest } from './state';

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
