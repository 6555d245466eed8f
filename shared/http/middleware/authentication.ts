/** The bearer-token step (auth.md §1.3), with the per-IP rate limit of anonymous callers. */
import { bearerToken } from '../../core/access/tokens';
import { tokenFitsHost } from '../app-hosts';
import { InvalidTokenError } from '../auth-errors';
import type { ApiGate } from '../gate';
import { routeOf, stateOf, transportOfState, type ApiMiddleware, type ApiRequest } from './state';

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
