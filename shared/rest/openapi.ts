/**
 * The API description (conventions.md §19a): an OpenAPI 3.1 document of the whole `/api/v1`
 * surface, generated from the route table and the body schemas the actions declare
 * (`withBody`), never written by hand. What the document says a body takes is what the same
 * declaration accepts.
 */
import { z } from 'zod';
import { bodyKindOf, type BodyKind, type RouteDefinition } from '../http/routes';
import type { FamilyActions } from '../http/pipeline';

/** Parameters every route understands (conventions.md §4, §10, §11, §13, §14). */
const RENDER_PARAMETERS: ReadonlyArray<{ name: string; description: string; boolean?: true }> = [
  { name: 'expand', description: 'Comma-separated dot paths of links to replace by the objects they name (§10)' },
  { name: 'show', description: 'Comma-separated whitelist of properties (§11)' },
  { name: 'hide', description: 'Comma-separated blacklist of properties (§11)' },
  { name: 'formatted', description: 'Add localised `formatted` twins (§14)', boolean: true },
  { name: 'options', description: 'Legacy flag: the same as adding `options` to `expand`', boolean: true },
  { name: 'user_locale', description: 'Locale for formatted values and messages, e.g. `fr-CA`' },
  { name: 'timezone', description: 'IANA time zone of dates in the answer (§13)' },
];

/** The paging parameters of each list style (conventions.md §12). */
const LIST_PARAMETERS: Record<'offset' | 'cursor', ReadonlyArray<{ name: string; description: string; integer?: true }>> = {
  offset: [
    { name: 'limit', description: 'Page size, 1-100 (default 100)', integer: true },
    { name: 'offset', description: '0-based position of the first item (default 0)', integer: true },
    { name: 'desc', description: 'Descending order (default false)' },
  ],
  cursor: [
    { name: 'limit', description: 'Page size, 1-100 (default 100)', integer: true },
    { name: 'after_item', description: 'The id after which the page starts' },
    { name: 'before_item', description: 'The id before which the page ends' },
    { name: 'date_type', description: 'date_created (default) or date_modified: the order and the date filters' },
    { name: 'date_start', description: 'Earliest date_type, inclusive (§13)' },
    { name: 'date_end', description: 'Latest date_type, inclusive (§13)' },
    { name: 'desc', description: 'Descending order (default false)' },
  ],
};

const ERROR_ENVELOPE = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'reference', 'status', 'meta'],
      properties: {
        type: { type: 'string', examples: ['bad_request'] },
        code: { type: 'string', examples: ['invalid_input'] },
        message: { type: 'string' },
        reference: { type: 'string', description: 'Same value as the X-Request-Id header' },
        status: { type: 'integer' },
        meta: { type: ['object', 'null'] },
      },
    },
  },
} as const;

/** The success status of a route (conventions.md §3): 201 for creates, 204 for deletes, else 200. */
export function successStatus(route: Pick<RouteDefinition, 'method' | 'path' | 'access' | 'created'>): number {
  if (route.method === 'DELETE') return 204;
  if (route.created) return 201;
  if (route.method === 'POST' && route.access.kind === 'permission' && route.access.method === 'create' && !/}$/.test(route.path)) return 201;
  return 200;
}

function permissionOf(route: RouteDefinition): string {
  return route.access.kind === 'permission' ? `${route.access.resource}:${route.access.method}` : route.access.kind;
}

function bodySchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** The media types a declared body schema is sent as, by the route's body kind (a form's values are strings, which the schema converts). */
function bodyContent(kind: BodyKind, schema: unknown): Record<string, { schema: unknown }> {
  const form = { 'application/x-www-form-urlencoded': { schema } };
  if (kind === 'form') return form;
  if (kind === 'form-or-json') return { 'application/json': { schema }, ...form };
  return { 'application/json': { schema } };
}

function operation(route: RouteDefinition, actions: FamilyActions['actions']): Record<string, unknown> {
  const key = `${route.method} ${route.path}`;
  const action = actions[key];
  const status = successStatus(route);
  const pathNames = [...route.path.matchAll(/{([^}]+)}/g)].map((match) => match[1]!);
  const parameters: unknown[] = pathNames.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  for (const parameter of RENDER_PARAMETERS) {
    parameters.push({ name: parameter.name, in: 'query', required: false, description: parameter.description, schema: parameter.boolean ? { type: 'string', enum: ['true', 'false', '1', '0'] } : { type: 'string' } });
  }
  const query = action?.input?.query;
  if (query) {
    for (const parameter of LIST_PARAMETERS[query.list]) {
      parameters.push({ name: parameter.name, in: 'query', required: false, description: parameter.description, schema: parameter.integer ? { type: 'integer', minimum: 0 } : { type: 'string' } });
    }
    for (const [name, description] of Object.entries(query.filters ?? {})) {
      parameters.push({ name, in: 'query', required: false, description, schema: { type: 'string' } });
    }
  }
  const body = action?.input?.body;
  const result: Record<string, unknown> = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/^\/api\/v1/, '').replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase())}`,
    tags: [route.family],
    'x-cartwheel-permission': permissionOf(route),
    parameters,
    responses: {
      [String(status)]:
        status === 204
          ? { description: 'No content' }
          : {
              description: action?.input?.printable ? `Success: JSON, or ${action.input.printable} when the Accept header asks for it first (conventions.md §4)` : 'Success',
              content: { 'application/json': { schema: { type: 'object' } }, ...(action?.input?.printable ? { [action.input.printable]: { schema: { type: 'string', format: 'binary' } } } : {}) },
            },
      default: { description: 'Error (conventions.md §6)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
  if (route.access.kind === 'public') result.security = [{}, { bearer: [] }];
  const kind = bodyKindOf(route);
  if (body) result.requestBody = { required: true, content: bodyContent(kind, bodySchema(body)) };
  const byParam = action?.input?.bodyByParam;
  if (byParam) {
    const alternatives = Object.entries(byParam.schemas).map(([value, schema]) => ({ title: `${byParam.param} = ${value}`, ...bodySchema(schema) }));
    result.requestBody = {
      required: true,
      description: `The schema is the one of the path parameter ${byParam.param}: ${Object.keys(byParam.schemas).join(', ')}.`,
      content: bodyContent(kind, { oneOf: alternatives }),
    };
  }
  if (kind === 'raw') result.requestBody = { required: true, description: 'The body as sent, of any type, at most 1 MiB', content: { '*/*': { schema: {} } } };
  if (route.body === 'multipart') {
    result.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: {
              file: { type: 'string', contentMediaType: 'application/octet-stream', description: `At most ${route.multipart.maxBytes} bytes of request` },
              ...Object.fromEntries(Object.entries(route.multipart.fields ?? {}).map(([name, description]) => [name, { type: 'string', description }])),
            },
          },
        },
      },
    };
  }
  return result;
}

/**
 * The OpenAPI 3.1 document of `routes`, with the request bodies the families' actions declare.
 * `serverUrl` is the API root the caller used, e.g. `https://api.example.test/api/v1`.
 */
export function openApiDocument(routes: readonly RouteDefinition[], families: readonly FamilyActions[], serverUrl: string): Record<string, unknown> {
  const actions: FamilyActions['actions'] = {};
  for (const family of families) Object.assign(actions, family.actions);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/^\/api\/v1/, '');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, actions);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Cartwheel API', version: '1', description: 'Generated from the route table and the request-body declarations.' },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: { Error: ERROR_ENVELOPE },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'sk., tt. or lt. token (auth.md)' } },
    },
  };
}
