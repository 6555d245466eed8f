/** The request-body step (conventions.md §4): the query string and the body, parsed before any work. */
import { parseJsonBody, parseQuery } from '../request';
import { stateOf, type ApiMiddleware, type ApiRequest } from './state';

/**
 * Parses the query string and the JSON body (400 on a malformed or non-object body). Upload
 * routes (`upload` in the route table) keep their multipart body for the action (../multipart).
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
