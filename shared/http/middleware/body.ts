/**
 * The request-body step (conventions.md §4): the query string, and the body read by the parser
 * of the route's body kind (`body` in the route table, ../routes), before any work.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { parseFormOrJsonBody } from '../body/form-or-json';
import { parseFormBody } from '../body/form';
import { parseJsonBody } from '../body/json';
import { parseRawBody } from '../body/raw';
import { parseQuery } from '../request';
import { bodyKindOf, type BodyKind } from '../routes';
import { stateOf, type ApiMiddleware, type ApiRequest } from './state';

/** The parsers that give the action an object (`ApiContext.body`), by body kind. */
const OBJECT_PARSERS: Readonly<Record<Exclude<BodyKind, 'multipart' | 'raw'>, (event: APIGatewayProxyEventV2) => Record<string, unknown> | undefined>> = {
  json: parseJsonBody,
  form: parseFormBody,
  'form-or-json': parseFormOrJsonBody,
};

/**
 * Parses the query string and the body as the route's body kind says: a JSON object, form
 * fields, either (each 400 on a malformed body or another `Content-Type`), or the raw bytes.
 * A `multipart` route keeps its body for the action (../body/multipart), which keeps the
 * upload parser out of the bundles of families that take none.
 */
export function requestBody(): ApiMiddleware {
  return {
    before: (request: ApiRequest) => {
      const state = stateOf(request.event);
      state.query = parseQuery(request.event.rawQueryString);
      const kind = bodyKindOf(state.route ?? {});
      if (kind === 'multipart') return;
      if (kind === 'raw') state.raw = parseRawBody(request.event);
      else state.body = OBJECT_PARSERS[kind](request.event);
    },
  };
}
