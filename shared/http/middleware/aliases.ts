/** The step that resolves path words standing for the caller's own resource (`/customers/me/...`). */
import { PATH_ALIASES, resolvePathAliases } from '../../core/access/aliases';
import { NotFoundError } from '../errors';
import { routeOf, stateOf, type ApiMiddleware, type ApiRequest } from './state';

/**
 * Replaces an alias in the path parameters (`customer_id` = `me`, core/access/aliases.ts) by the
 * id it stands for, before the permission step and the action see them: every route under
 * `/customers/{customer_id}` answers under `/customers/me` for a customer-scope token, and any
 * other caller gets 404 there, as on `/customers/me` (commerce.md §6.1). Routes without an
 * aliased parameter are passed through untouched (decided once per route).
 */
export function aliases(): ApiMiddleware {
  const aliased = new WeakMap<object, boolean>();
  const hasAlias = (path: string) => Object.keys(PATH_ALIASES).some((name) => path.includes(`{${name}}`));
  return {
    before: (request: ApiRequest) => {
      const state = stateOf(request.event);
      const route = routeOf(state);
      let applies = aliased.get(route);
      if (applies === undefined) aliased.set(route, (applies = hasAlias(route.path)));
      const params = request.event.pathParameters;
      if (!applies || !params) return;
      const found = resolvePathAliases(params as Record<string, string>, state.principal);
      if (found.unresolved) throw new NotFoundError(`The ${found.unresolved.what} does not exist.`);
      if (found.params !== params) request.event.pathParameters = { ...found.params };
    },
  };
}
