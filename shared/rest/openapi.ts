/**
 * The API description (conventions.md §19a): an OpenAPI 3.1 document of the whole `/api/v1`
 * surface, generated from the route table and the body schemas the actions declare
 * (`withBody`), never written by hand. What the document says a body takes is what the same
 * declaration accepts.
 */
import { z } from 'zod';
import { bodyKindOf, type BodyKind, type RouteDefinition } from '../http/routes';
import type { FamilyActions } from '../http/pipeline';
import type { AnswerDeclaration } from '../http/types';
import { componentName, exampleOf, listName, objectOf, ref, refineAnswer, ResourceIndex, resourceSchemas, type JsonSchema, type ResponseFacts, type RouteResponse } from './openapi-responses';

export type { ResponseFacts } from './openapi-responses';

/** Parameters every route understands (the rendering conventions: expand, show and hide, formatted, dates). */
const RENDER_PARAMETERS: ReadonlyArray<{ name: string; description: string; boolean?: true }> = [
  { name: 'expand', description: 'Comma-separated dot paths of links to replace by the objects they name (at most 12 on a single resource, 2 on a list, 4 segments deep; unknown paths are ignored)' },
  { name: 'show', description: 'Comma-separated whitelist of properties, as dot paths (cannot be combined with a non-empty `hide`)' },
  { name: 'hide', description: 'Comma-separated blacklist of properties, as dot paths (cannot be combined with a non-empty `show`)' },
  { name: 'formatted', description: 'Add a `formatted` object beside each object with money, dates, percentages or countries: display strings in the caller\'s locale', boolean: true },
  { name: 'options', description: 'Legacy flag: the same as adding `options` to `expand`', boolean: true },
  { name: 'user_locale', description: 'Locale for formatted values and messages, e.g. `fr-CA` (else `Accept-Language`, else the account default)' },
  { name: 'timezone', description: 'IANA time zone of the dates in the answer, e.g. `Europe/Berlin` (else the account default)' },
];

/** The paging parameters of each list style. */
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
    { name: 'date_start', description: 'Earliest date_type, inclusive: an ISO 8601 value or a shorthand such as `today`, `-7` or `2026-11`' },
    { name: 'date_end', description: 'Latest date_type, inclusive: an ISO 8601 value or a shorthand such as `yesterday`, `-1` or `2026-11-21`' },
    { name: 'desc', description: 'Descending order (default false)' },
  ],
};

/** The error envelope every 4xx and 5xx answer carries. */
const ERROR_ENVELOPE = {
  type: 'object',
  description: 'Every error answer (4xx and 5xx) carries this envelope.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'reference', 'status', 'meta'],
      properties: {
        type: { type: 'string', description: 'The text form of the status, e.g. `bad_request`, `not_found`', examples: ['bad_request'] },
        code: { type: 'string', description: 'The specific category clients branch on (new codes may appear; handle unknown ones by `status`)', examples: ['invalid_input'] },
        message: { type: 'string', description: 'A readable English sentence, safe to show to end users' },
        reference: { type: 'string', description: 'Unique per error; the same value as the X-Request-Id header' },
        status: { type: 'integer', description: 'The HTTP status, as a number' },
        meta: { type: ['object', 'null'], description: 'Details: `property` (a body field\'s dot path), `parameter` (a query parameter or header), `reason`, and for payment errors `payment`', additionalProperties: true },
      },
    },
  },
  example: { error: { type: 'bad_request', code: 'invalid_input', message: 'The property customer.email must be a valid email address.', reference: 'R7Q2M4KX9TBA', status: 400, meta: { property: 'customer.email', reason: 'invalid' } } },
} as const;

/** Any JSON object the API answers with: when its `object` names a declared resource, it is that resource. */
function anyObjectSchema(index: ResourceIndex): JsonSchema {
  const byObject = new Map<string, string[]>();
  for (const declaration of index.facts.declarations) {
    const object = objectOf(declaration, index.facts.shapes);
    byObject.set(object, [...(byObject.get(object) ?? []), componentName(declaration.name)]);
  }
  return {
    type: 'object',
    description: 'A JSON object. When its `object` property names a resource, the object is that resource.',
    allOf: [...byObject].map(([object, names]) => ({
      if: { type: 'object', properties: { object: { const: object } }, required: ['object'] },
      then: names.length === 1 ? ref(names[0]!) : { anyOf: names.map(ref) },
    })),
  };
}

/** The success status of a route : 201 for creates, 204 for deletes, else 200. */
export function successStatus(route: Pick<RouteDefinition, 'method' | 'path' | 'access' | 'created'>): number {
  if (route.method === 'DELETE') return 204;
  if (route.created) return 201;
  if (route.method === 'POST' && route.access.kind === 'permission' && route.access.method === 'create' && !/}$/.test(route.path)) return 201;
  return 200;
}

function permissionOf(route: RouteDefinition): string {
  return route.access.kind === 'permission' ? `${route.access.resource}:${route.access.method}` : route.access.kind;
}

/**
 * Whether a declared body schema refuses a request without a body: the pipeline validates an
 * absent body as `{}`, so a schema whose properties are all optional takes none
 * (`requestBody.required` is false), one with a required property refuses it.
 */
export function refusesEmpty(schema: z.ZodType): boolean {
  try {
    return !schema.safeParse({}).success;
  } catch {
    return true;
  }
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

const article = (word: string) => (/^(?:[aeio]|u(?!s))/.test(word) ? `an ${word}` : `a ${word}`);
const spoken = (name: string) => name.replace(/_/g, ' ');
const plural = (name: string) => {
  const words = spoken(name);
  if (/[^aeiou]y$/.test(words)) return `${words.slice(0, -1)}ies`;
  return /(s|x|ch|sh)$/.test(words) ? `${words}es` : `${words}s`;
};

/** A summary and description written from what the route does. */
function wording(route: RouteDefinition, response: RouteResponse, status: number, answer: AnswerDeclaration | undefined): { summary: string; description: string } {
  const lines: string[] = [];
  let summary: string;
  const path = route.path.replace(/^\/api\/v1/, '');
  switch (response.kind) {
    case 'list':
      summary = response.parent ? `List the ${plural(response.declaration.name)} of ${article(spoken(response.parent.name))}` : `List ${plural(response.declaration.name)}`;
      lines.push(
        response.style === 'cursor'
          ? `A cursor list: pass \`next_page_after_item\` as \`after_item\` (or \`previous_page_before_item\` as \`before_item\`) to page; ordered by \`date_type\` with the id as tie-breaker.`
          : 'An offset list: page with `limit` and `offset`; `total_items` counts the whole list.',
      );
      break;
    case 'resource':
      if (route.method === 'DELETE') summary = path.endsWith('/me') ? `Delete your own ${spoken(response.declaration.name)}` : `Delete ${article(spoken(response.declaration.name))}`;
      else if (route.method === 'GET') summary = path.endsWith('/me') ? `Retrieve your own ${spoken(response.declaration.name)}` : `Retrieve ${article(spoken(response.declaration.name))}`;
      else if (status === 201 || !/(}|\/me)$/.test(path)) summary = `Create ${article(spoken(response.declaration.name))}`;
      else summary = path.endsWith('/me') ? `Update your own ${spoken(response.declaration.name)}` : `Update ${article(spoken(response.declaration.name))}`;
      if (route.method === 'POST' && status === 200) lines.push('A partial update: properties sent are changed, `null` clears one, omitted ones are left alone; unknown and read-only properties are ignored. Answers the whole updated object.');
      if (status === 201) lines.push('Answers 201 with the new object; the `Location` header holds its URL.');
      break;
    case 'action':
      summary = /}$/.test(path.replace(/\/[^/]+$/, ''))
        ? `${response.action[0]!.toUpperCase()}${spoken(response.action.slice(1))} ${article(spoken(response.declaration.name))}`
        : `${plural(response.declaration.name)[0]!.toUpperCase()}${plural(response.declaration.name).slice(1)}: ${spoken(response.action)}`;
      lines.push(
        answer && 'resource' in answer && answer.resource === response.declaration.name && !answer.description
          ? `The \`${response.action}\` action on ${article(spoken(response.declaration.name))}. Answers the ${spoken(response.declaration.name)} as it stands after the action.`
          : `The \`${response.action}\` action on ${article(spoken(response.declaration.name))}.`,
      );
      break;
    default:
      summary = `${route.method === 'GET' ? 'Read' : route.method === 'DELETE' ? 'Delete' : 'Send'} ${path.replace(/^\//, '').replace(/\{([^}]+)\}/g, '<$1>').replace(/\//g, ' ').replace(/_/g, ' ')}`;
  }
  if (answer?.summary) summary = answer.summary;
  if (answer?.description) lines.push(answer.description);
  else if (answer && 'resource' in answer && response.kind !== 'action') lines.push(`Answers ${article(spoken(answer.resource))}.`);
  lines.push(route.access.kind === 'permission' ? `Needs the permission \`${permissionOf(route)}\`.` : route.access.kind === 'public' ? 'Public: no token needed (a token, when sent, is used).' : 'Any valid token.');
  return { summary, description: lines.join('\n\n') };
}

/** The success answer of a route: its schema and an example. */
/** The schema an action's declared answer names: the resource's component, the answer shape's, or the schema written out. */
function answerSchema(answer: AnswerDeclaration, index: ResourceIndex): JsonSchema {
  if ('resource' in answer) {
    if (!index.byName.has(answer.resource)) throw new Error(`An action declares it answers "${answer.resource}", which no declaration is named`);
    return ref(componentName(answer.resource));
  }
  if ('shape' in answer) {
    if (!index.facts.answers?.[answer.shape]) throw new Error(`The answer shape "${answer.shape}" is not in shared/app/answer-shapes.json: run \`npm run generate:api\``);
    return ref(answerComponentName(answer.shape));
  }
  if ('schema' in answer) return { ...answer.schema };
  return { type: 'string' };
}

/** The component name of an answer shape: `payment_options` → `PaymentOptions`. */
export function answerComponentName(shape: string): string {
  return componentName(shape);
}

function successContent(response: RouteResponse, index: ResourceIndex, resolve: (ref: string) => JsonSchema | undefined, serverUrl: string, answer: AnswerDeclaration | undefined): { schema: JsonSchema; example?: unknown } {
  if (answer) {
    const schema = answerSchema(answer, index);
    return 'schema' in answer || 'text' in answer ? { schema } : { schema, example: exampleOf(schema, resolve, serverUrl) };
  }
  let schema: JsonSchema;
  if (response.kind === 'list') schema = ref(listName(response.declaration, response.style));
  else if (response.kind === 'resource') schema = ref(componentName(response.declaration.name));
  else schema = ref('AnyObject');
  if (response.kind === 'resource') return { schema, example: exampleOf(schema, resolve, serverUrl) };
  if (response.kind === 'list') {
    // One page holding the one example item: no page before or after it.
    const example = exampleOf(schema, resolve, serverUrl) as Record<string, unknown>;
    const page = `${serverUrl}/${response.declaration.collection}?limit=100`;
    const paging = response.style === 'offset'
      ? { total_items: 1, total_pages: 1, current_page: 1, next_page_url: null, next_page_offset: null, previous_page_url: null, previous_page_offset: null, current_page_url: page }
      : { next_page_url: null, next_page_after_item: null, previous_page_url: null, previous_page_before_item: null, current_page_url: page };
    return { schema, example: { ...example, ...paging, data: example.data } };
  }
  return { schema };
}

function operation(route: RouteDefinition, actions: FamilyActions['actions'], index: ResourceIndex | undefined, resolve: (ref: string) => JsonSchema | undefined, serverUrl: string): Record<string, unknown> {
  const key = `${route.method} ${route.path}`;
  const action = actions[key];
  const status = successStatus(route);
  const query = action?.input?.query;
  const response: RouteResponse = index ? index.responseOf(route, query?.list) : { kind: 'unknown' };
  const expandPaths = index && (response.kind === 'resource' || response.kind === 'list' || response.kind === 'action') ? index.expandPaths(response.declaration, 2, response.kind === 'list') : [];
  const pathNames = [...route.path.matchAll(/{([^}]+)}/g)].map((match) => match[1]!);
  const parameters: unknown[] = pathNames.map((name) => ({ name, in: 'path', required: true, description: `The ${spoken(name.replace(/_id$/, ''))}${name.endsWith('_id') ? '\'s id' : ''}`, schema: { type: 'string' } }));
  for (const parameter of RENDER_PARAMETERS) {
    if (parameter.name !== 'expand') {
      parameters.push({ $ref: `#/components/parameters/${parameter.name}` });
      continue;
    }
    const description = expandPaths.length > 0 ? `${parameter.description}. Paths this route offers: ${expandPaths.map((path) => `\`${path}\``).join(', ')}` : parameter.description;
    parameters.push({ name: parameter.name, in: 'query', required: false, description, schema: { type: 'string' } });
  }
  if (query) {
    for (const parameter of LIST_PARAMETERS[query.list]) {
      parameters.push({ name: parameter.name, in: 'query', required: false, description: parameter.description, schema: parameter.integer ? { type: 'integer', minimum: 0 } : { type: 'string' } });
    }
    for (const [name, description] of Object.entries(query.filters ?? {})) {
      parameters.push({ name, in: 'query', required: false, description, schema: { type: 'string' } });
    }
  }
  const body = action?.input?.body;
  // Without the response facts nothing but the request side is described.
  const answer = index ? action?.input?.answer : undefined;
  const { summary, description } = wording(route, response, status, answer);
  const mediaType = answer && 'text' in answer ? answer.text : 'application/json';
  const success = status === 204 ? { description: 'Done: no content' } : { description: summary.replace(/^(\w)/, (letter) => letter.toLowerCase()).replace(/^/, 'Answer to: '), content: { [mediaType]: successContent(response, index!, resolve, serverUrl, answer) } };
  if (status === 201) Object.assign(success, { headers: { Location: { description: 'The absolute URL of the created object', schema: { type: 'string', format: 'uri' } } } });
  if (status !== 204 && !index) (success as { content: Record<string, { schema: JsonSchema }> }).content[mediaType] = { schema: { type: 'object' } };
  const printable = action?.input?.printable;
  if (status !== 204 && printable) {
    // The same route answers a printable document when the Accept header asks for it first.
    (success as { content: Record<string, unknown> }).content[printable] = { schema: { type: 'string', contentEncoding: 'binary' } };
    success.description = `${success.description}; JSON, or ${printable} when the Accept header lists it first`;
  }
  const result: Record<string, unknown> = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/^\/api\/v1/, '').replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase())}`,
    summary,
    description,
    tags: [route.family],
    'x-cartwheel-permission': permissionOf(route),
    ...(expandPaths.length > 0 ? { 'x-cartwheel-expand': expandPaths } : {}),
    parameters,
    responses: {
      [String(status)]: success,
      ...Object.fromEntries((route.alsoAnswers ?? []).filter((other) => other !== status).map((other) => [String(other), other === 204 ? { description: 'Done: no content' } : { ...success, headers: undefined }])),
      '4XX': { $ref: '#/components/responses/ClientError' },
      '5XX': { $ref: '#/components/responses/ServerError' },
    },
  };
  if (route.access.kind === 'public') result.security = [{}, { bearer: [] }];
  const kind = bodyKindOf(route);
  if (body) result.requestBody = { required: refusesEmpty(body), content: bodyContent(kind, bodySchema(body)) };
  const byParam = action?.input?.bodyByParam;
  if (byParam) {
    const alternatives = Object.entries(byParam.schemas).map(([value, schema]) => ({ title: `${byParam.param} = ${value}`, ...bodySchema(schema) }));
    result.requestBody = {
      required: Object.values(byParam.schemas).some(refusesEmpty),
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

/** The notification bodies of every event type: OpenAPI 3.1 `webhooks`, one per type. */
function webhooks(index: ResourceIndex): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const entry of index.facts.eventTypes ?? []) {
    const declaration = index.byName.get(entry.resource);
    const data = declaration ? ref(componentName(declaration.name)) : { type: 'object', description: `The ${spoken(entry.resource)}` };
    result[entry.type] = {
      post: {
        operationId: `webhook${componentName(entry.type)}`,
        summary: `${entry.type}: ${entry.description}`,
        description: `Sent to each active subscription of \`${entry.type}\`: an HTTP POST to its destination (or an email), signed with \`X-Service-Signature\` and the Standard Webhooks headers \`webhook-id\`, \`webhook-timestamp\` and \`webhook-signature\`. \`data\` is the ${spoken(entry.resource)} as it stood when it happened, shaped by the subscription's \`expand\`, \`show\`, \`hide\` and \`timezone\`. The JSON format is shown; \`xml\` and \`html\` carry the same tree.`,
        tags: ['webhooks'],
        security: [],
        parameters: [
          { name: 'webhook-id', in: 'header', required: true, description: 'The event id (the same on every attempt)', schema: { type: 'string' } },
          { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix time in seconds when this attempt was signed', schema: { type: 'string' } },
          { name: 'webhook-signature', in: 'header', required: true, description: '`v1,` + base64 of HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`', schema: { type: 'string' } },
          { name: 'X-Service-Signature', in: 'header', required: true, description: 'Base64 of HMAC-SHA256 over the exact body bytes', schema: { type: 'string' } },
          { name: 'X-Event-Type', in: 'header', required: true, description: 'The event type', schema: { type: 'string', const: entry.type } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { allOf: [ref('Notification')], properties: { type: { const: entry.type }, data } },
            },
          },
        },
        responses: { '200': { description: 'Any 2xx within 30 seconds is a delivery; anything else is retried (410 ends the event)' } },
      },
    };
  }
  return result;
}

/** The notification envelope every event body shares. */
function notificationSchema(types: readonly string[]): JsonSchema {
  return {
    type: 'object',
    description: 'A notification body: one event of one occurrence for one subscription',
    required: ['object', 'event_id', 'fingerprint', 'type', 'date_created', 'test', 'account_id', 'data'],
    properties: {
      object: { type: 'string', const: 'event' },
      event_id: { type: 'string', description: 'Identifies this notification; unchanged across retries (the `webhook-id` header)' },
      fingerprint: { type: 'string', description: 'Identifies the occurrence; shared by its notifications to every subscription' },
      type: { type: 'string', ...(types.length > 0 ? { enum: [...types] } : {}), description: 'The event type' },
      date_created: { type: 'string', format: 'date-time' },
      test: { type: 'boolean', description: 'Test mode' },
      account_id: { type: 'string' },
      environment_variables: { type: 'object', additionalProperties: { type: 'string' }, description: 'The subscription\'s environment variables' },
      data: { type: 'object', description: 'The resource the event concerns' },
    },
  };
}

/**
 * Drops the list envelopes, answer shapes and `AnyObject` when no route or expansion refers to
 * them (every resource gets both list styles first, a route picks one; an answer shape's action
 * may not be documented).
 */
function withoutUnusedLists(document: Record<string, unknown>, schemas: Record<string, unknown>, answers: readonly string[]): void {
  const used = new Set<string>();
  const text = JSON.stringify(document);
  for (const match of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) used.add(match[1]!);
  // `AnyObject` is what an undeclared action answers: unused while every action declares its answer.
  const optional = new Set([...answers.map(answerComponentName), 'AnyObject']);
  for (const name of Object.keys(schemas)) if ((/(Offset|Cursor)List$/.test(name) || optional.has(name)) && !used.has(name)) delete schemas[name];
}

/** Replaces `§`-citations of contract documents the repository does not ship, in a description text. */
export function withoutCitations(text: string): string {
  return text
    .replace(/\s*\((?:[a-z-]+\.md[ ,]*)?§[^)]*\)/g, '')
    .replace(/\s*\(([a-z-]+)\.md\)/g, '')
    .replace(/\s*(?:\b(?:see|in)\s+)?[a-z-]+\.md(?:\s*(?:section\s*)?§?[\d.]+(?:[–-]§?[\d.]+)?)?/g, '')
    .replace(/\s*§\s*[\d.]+[a-z]?(?:[–-]§?[\d.]+)?/g, '')
    .replace(/\s+([,.;:)])/g, '$1')
    .replace(/\(\s*\)/g, '')
    .trim();
}

/** Every `description` and `summary` in a document, with citations removed (the request schemas carry their fields' comments). */
function cleanTexts(value: unknown): void {
  if (Array.isArray(value)) {
    for (const element of value) cleanTexts(element);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const [key, inner] of Object.entries(record)) {
    if ((key === 'description' || key === 'summary' || key === 'title') && typeof inner === 'string') record[key] = withoutCitations(inner);
    else cleanTexts(inner);
  }
}

/**
 * The OpenAPI 3.1 document of `routes`, with the request bodies the families' actions declare
 * and, given `facts`, the response schemas of every route and the notification bodies.
 * `serverUrl` is the API root the caller used, e.g. `https://api.example.test/api/v1`.
 */
export function openApiDocument(routes: readonly RouteDefinition[], families: readonly FamilyActions[], serverUrl: string, facts?: ResponseFacts): Record<string, unknown> {
  const actions: FamilyActions['actions'] = {};
  for (const family of families) Object.assign(actions, family.actions);
  const index = facts ? new ResourceIndex(facts) : undefined;
  const schemas: Record<string, unknown> = { Error: ERROR_ENVELOPE };
  if (index) {
    Object.assign(schemas, resourceSchemas(index));
    for (const [key, values] of Object.entries(facts?.enums ?? {})) {
      const [name, property] = key.split('.') as [string, string];
      const target = (schemas[componentName(name)] as { properties?: Record<string, JsonSchema> } | undefined)?.properties?.[property];
      if (target) target.enum = [...values];
    }
    for (const [name, shape] of Object.entries(facts?.answers ?? {})) {
      const component = answerComponentName(name);
      if (schemas[component]) throw new Error(`The answer shape "${name}" has the component name of a resource (${component})`);
      schemas[component] = refineAnswer({ title: name, ...shape });
    }
    schemas.AnyObject = anyObjectSchema(index);
    schemas.Notification = notificationSchema((facts?.eventTypes ?? []).map((entry) => entry.type));
  }
  const resolve = (reference: string) => schemas[reference.replace('#/components/schemas/', '')] as JsonSchema | undefined;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/^\/api\/v1/, '');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, actions, index, resolve, serverUrl);
  }
  const tags = [...new Set(routes.map((route) => route.family))].map((name) => ({ name, description: `Routes served by the ${name} family` }));
  const document: Record<string, unknown> = {
    openapi: '3.1.0',
    info: {
      title: 'Cartwheel API',
      version: '1',
      summary: 'Carts, payments, orders, customers, products and more, in separate test and live modes.',
      description: [
        'A JSON REST API. Every answer is `application/json` (a 204 has no body); errors carry the `Error` envelope.',
        'Authenticate with `Authorization: Bearer <token>`: secret (`sk.`), trusted (`tt.`) or limited (`lt.`) tokens; a token with `.test.` works on test data only.',
        'Links are absolute URLs; `expand` replaces them by the objects they name. Lists are offset lists (`limit`, `offset`) or cursor lists (`after_item`, `before_item`), as each route says.',
        'Any `POST` may carry `Idempotency-Key` (1-255 printable characters, kept 24 hours per token): a retry with the same key and body answers the stored response with `Idempotent-Replayed: true`.',
        'Generated from the route table, the request-body declarations and the resources\' declarations.',
      ].join('\n\n'),
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: serverUrl, description: 'The API root this document was read from' }],
    security: [{ bearer: [] }],
    tags: index ? [...tags, { name: 'webhooks', description: 'Notification bodies the platform sends to event subscriptions' }] : tags,
    paths,
    components: {
      schemas,
      parameters: Object.fromEntries(
        RENDER_PARAMETERS.filter((parameter) => parameter.name !== 'expand').map((parameter) => [
          parameter.name,
          { name: parameter.name, in: 'query', required: false, description: parameter.description, schema: parameter.boolean ? { type: 'string', enum: ['true', 'false', '1', '0'] } : { type: 'string' } },
        ]),
      ),
      responses: {
        ClientError: { description: 'A client error: `error.code` says which (`invalid_input`, `invalid_token`, `resource_not_found`, ...)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        ServerError: { description: 'A server or upstream error: `error.code` says which', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A secret (`sk.`), trusted (`tt.`) or limited (`lt.`) token' } },
    },
  };
  if (index) document.webhooks = webhooks(index);
  withoutUnusedLists(document, schemas, Object.keys(facts?.answers ?? {}));
  cleanTexts(document);
  return document;
}
