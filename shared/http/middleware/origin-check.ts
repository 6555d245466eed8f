/** The CORS step (conventions.md §16): a browser `Origin` checked against the account's rules. */
import { isOriginAllowed } from '../cors';
import { InvalidOriginError } from '../errors';
import type { ApiGate } from '../gate';
import { parseQuery } from '../request';
import { stateOf, transportOfState, type ApiMiddleware, type ApiRequest } from './state';

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
