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
      if (!principal) throw new InsufficientPermissionsError();
      if (principal.isOwner) return;
      // Limited tokens reach single bound or paid-for resources; the action checks that (404 if not).
      if (principal.kind === 'limited' && access.reach) return;
      if (!isAllowed(principal.permissions, access.resource, access.method)) throw new InsufficientPermissionsError();
    },
  };
}
