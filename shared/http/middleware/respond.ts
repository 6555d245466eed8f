/** The first step of every surface: the request's id and origin, and the error envelope. */
import { newId } from '../../core/ids';
import type { Clock } from '../../platform/ports';
import { errorResult, toResponse } from '../response';
import { stateOf, type ApiMiddleware, type ApiRequest, type ApiState } from './state';

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
