/** The access-rule step (auth.md §8): the route's permission against the caller's. */
import { isAllowed } from '../../core/access/permissions';
import { InsufficientPermissionsError } from '../auth-errors';
import { routeOf, stateOf, type ApiMiddleware, type ApiRequest } from './state';

/** Enforces the route's access rule against the caller's permissions (auth.md section 8). */
export function permission(): ApiMiddleware {
  return {
    before: (request: ApiRequest) => {
      const state = stateOf(request.event);
      const access = routeOf(state).access;
      const principal = state.principal;
      if (access.kind !== 'permission') return;
      // conventions.md §5: the 403 names the missing permission in the write format's words.
      const required = { required_permission: `${access.resource}:${access.method}` };
      if (!principal) throw new InsufficientPermissionsError(undefined, required);
      if (principal.isOwner) return;
      // Limited tokens reach single bound or paid-for resources; the action checks that (404 if not).
      if (principal.kind === 'limited' && access.reach) return;
      if (!isAllowed(principal.permissions, access.resource, access.method)) throw new InsufficientPermissionsError(undefined, required);
    },
  };
}
