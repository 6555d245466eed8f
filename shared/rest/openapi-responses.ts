/**
 * The response side of the API description: a schema per declared resource, built from the JSON
 * shape its `toJson` renders (read by the TypeScript checker, infra/openapi/resource-shapes.ts)
 * with the declaration's own facts laid over it (links are a URL or the expanded object,
 * sub-collections a URL or an offset list, embedded arrays their element's schema, virtual
 * expansions, formatted twins, the free-form `meta`); the list envelopes of both paging styles;
 * the resource each route answers with, found from its path through the declarations'
 * collections and sub-collections; the expand paths a route offers; examples made from the
 * schemas. Nothing here names a resource: a new declaration is described as it is registered.
 */
import type { ResourceDeclaration } from './declarations';
import type { RouteDefinition } from '../http/routes';

/** A JSON Schema object (draft 2020-12, OpenAPI 3.1's dialect). */
export type JsonSchema = Record<string, unknown>;

/** What the response schemas are made from. */
export interface ResponseFacts {
  /** Every declared resource (the app's registry). */
  declarations: readonly ResourceDeclaration[];
  /** The JSON shape of each declaration's `toJson`, by declaration name (generated; a declaration without one gets its declared facts only). */
  shapes: Readonly<Record<string, JsonSchema>>;
  /** Values a property may take where the contract lists them, by `<declaration>.<property>` (event types). */
  enums?: Readonly<Record<string, readonly string[]>>;
  /** The JSON shape of each specific answer an action declares (`declareAnswer(..., { shape })`), by shape name (generated: shared/app/answer-shapes.json). */
  answers?: Readonly<Record<string, JsonSchema>>;
  /** The event catalog, for the `webhooks` section: each type, the resource its `data` carries and when it happens. */
  eventTypes?: ReadonlyArray<{ type: string; resource: string; description: string }>;
}

/** What a route answers with, as far as the route table and the declarations tell. */
export type RouteResponse =
  | { kind: 'resource'; declaration: ResourceDeclaration }
  | { kind: 'list'; declaration: ResourceDeclaration; style: 'offset' | 'cursor'; parent?: ResourceDeclaration }
  | { kind: 'action'; declaration: ResourceDeclaration; action: string }
  | { kind: 'unknown' };

/** `order_item` → `OrderItem`: a declaration's component name. */
export function componentName(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** A `$ref` to a component schema. */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

const URL_STRING = { type: 'string', format: 'uri' } as const;

/** The types a schema admits, as a list (`{type: ['string', 'null']}` → both). */
function typesOf(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).flatMap(typesOf);
  return [];
}

const spokenName = (name: string) => name.replace(/_/g, ' ');

/** The object alternative of a rendered property (its `null` taken out). */
function withoutNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) {
    const rest = (schema.anyOf as JsonSchema[]).filter((alternative) => alternative.type !== 'null' && alternative.type !== 'string');
    return rest.length === 1 ? rest[0]! : { anyOf: rest };
  }
  if (Array.isArray(schema.type)) return { ...schema, type: 'object' };
  return schema;
}

/** Adds `null` to a schema's alternatives. */
function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.oneOf)) return { ...schema, oneOf: [...(schema.oneOf as JsonSchema[]), { type: 'null' }] };
  return { oneOf: [schema, { type: 'null' }] };
}

/** The offset list envelope's fields (conventions: lists), around `items`. */
export function offsetList(items: JsonSchema, description: string): JsonSchema {
  const pageUrl = { type: ['string', 'null'], format: 'uri' };
  const pageOffset = { type: ['integer', 'null'], minimum: 0 };
  return {
    type: 'object',
    description,
    required: ['object', 'total_items', 'total_pages', 'current_page', 'next_page_url', 'next_page_offset', 'previous_page_url', 'previous_page_offset', 'current_page_url', 'data'],
    properties: {
      object: { type: 'string', const: 'list' },
      total_items: { type: 'integer', minimum: 0, description: 'How many items the whole list holds' },
      total_pages: { type: 'integer', minimum: 0, description: 'ceil(total_items / limit); 0 for an empty list' },
      current_page: { type: 'integer', minimum: 1, description: 'floor(offset / limit) + 1' },
      next_page_url: { ...pageUrl, description: 'The next page, or null on the last one' },
      next_page_offset: { ...pageOffset, description: 'offset + limit when more items follow, else null' },
      previous_page_url: { ...pageUrl, description: 'The previous page, or null on the first one' },
      previous_page_offset: { ...pageOffset, description: 'max(0, offset - limit) when offset > 0, else null' },
      current_page_url: { type: 'string', format: 'uri', description: 'This page' },
      data: { type: 'array', items },
    },
    additionalProperties: false,
  };
}

/** The cursor list envelope's fields (conventions: lists), around `items`. */
export function cursorList(items: JsonSchema, description: string): JsonSchema {
  return {
    type: 'object',
    description,
    required: ['object', 'next_page_url', 'next_page_after_item', 'previous_page_url', 'previous_page_before_item', 'current_page_url', 'data'],
    properties: {
      object: { type: 'string', const: 'list' },
      next_page_url: { type: ['string', 'null'], format: 'uri', description: 'The next page, or null when no items follow' },
      next_page_after_item: { type: ['string', 'null'], description: 'The id of the last item of `data` when more items follow (pass it as `after_item`), else null' },
      previous_page_url: { type: ['string', 'null'], format: 'uri', description: 'The previous page, or null when no items precede' },
      previous_page_before_item: { type: ['string', 'null'], description: 'The id of the first item of `data` when earlier items exist (pass it as `before_item`), else null' },
      current_page_url: { type: 'string', format: 'uri', description: 'This page' },
      data: { type: 'array', items },
    },
    additionalProperties: false,
  };
}

/** Component name of a resource's list of one style: `ProductOffsetList`. */
export function listName(declaration: ResourceDeclaration, style: 'offset' | 'cursor'): string {
  return `${componentName(declaration.name)}${style === 'offset' ? 'Offset' : 'Cursor'}List`;
}

/** The declarations by name and by collection path segment. */
export class ResourceIndex {
  readonly byName = new Map<string, ResourceDeclaration>();
  readonly byCollection = new Map<string, ResourceDeclaration>();

  constructor(readonly facts: ResponseFacts) {
    for (const declaration of facts.declarations) {
      this.byName.set(declaration.name, declaration);
      if (!this.byCollection.has(declaration.collection)) this.byCollection.set(declaration.collection, declaration);
    }
  }

  /**
   * What a route answers with, walked along its path: a collection segment names its resource,
   * `{id}` after it one of them (or `me`, the caller's own), a sub-collection or embedded array
   * of that resource the listed one; any other word after an item is an action on it.
   */
  responseOf(route: Pick<RouteDefinition, 'method' | 'path'>, listStyle: 'offset' | 'cursor' | undefined): RouteResponse {
    const segments = route.path.replace(/^\/api\/v1\/?/, '').split('/').filter(Boolean);
    let current: ResourceDeclaration | undefined;
    let parent: ResourceDeclaration | undefined;
    let position: 'collection' | 'item' = 'collection';
    for (const [index, segment] of segments.entries()) {
      const parameter = /^{.+}$/.test(segment);
      if (index === 0) {
        current = this.byCollection.get(segment);
        if (!current) return { kind: 'unknown' };
        continue;
      }
      if (!current) return { kind: 'unknown' };
      if (position === 'collection') {
        if (parameter || segment === 'me') position = 'item';
        else if (index === segments.length - 1 && route.method === 'POST') return { kind: 'action', declaration: current, action: segment };
        else return { kind: 'unknown' };
        continue;
      }
      if (parameter) return { kind: 'unknown' };
      const sub = current.subCollections?.[segment]?.resource ?? current.embedded?.[segment];
      const listed = sub ? this.byName.get(sub) : this.byCollection.get(segment);
      if (listed && (sub || index === segments.length - 1)) {
        parent = current;
        current = listed;
        position = 'collection';
        continue;
      }
      if (index === segments.length - 1 && route.method === 'POST') return { kind: 'action', declaration: current, action: segment };
      return { kind: 'unknown' };
    }
    if (!current) return { kind: 'unknown' };
    if (position === 'item') return { kind: 'resource', declaration: current };
    if (route.method === 'GET') return listStyle ? { kind: 'list', declaration: current, style: listStyle, ...(parent ? { parent } : {}) } : { kind: 'unknown' };
    return { kind: 'resource', declaration: current };
  }

  /**
   * The expand paths a resource offers, up to `depth` segments: its links, sub-collections (not
   * inside a list element), virtual expansions, and the links of its embedded arrays' elements.
   */
  expandPaths(declaration: ResourceDeclaration, depth: number, inList: boolean, seen: readonly string[] = []): string[] {
    if (depth === 0 || seen.includes(declaration.name)) return [];
    const paths: string[] = [];
    const walk = (property: string, target: string | undefined, crosses: boolean) => {
      if (!crosses) paths.push(property);
      const next = target ? this.byName.get(target) : undefined;
      if (next) for (const path of this.expandPaths(next, depth - (crosses ? 0 : 1), inList, [...seen, declaration.name])) paths.push(`${property}.${path}`);
    };
    for (const [property, target] of Object.entries(declaration.links ?? {})) walk(property, target, false);
    if (!inList) for (const [property, sub] of Object.entries(declaration.subCollections ?? {})) walk(property, sub.resource, false);
    for (const [property, virtual] of Object.entries(declaration.virtuals ?? {})) walk(property, virtual.resource, false);
    for (const [property, target] of Object.entries(declaration.embedded ?? {})) walk(property, target, true);
    return [...new Set(paths)];
  }
}

/** The `object` value a declaration's objects carry: the literal its `toJson` writes (`item` for cart lines), else its name. */
export function objectOf(declaration: ResourceDeclaration, shapes: Readonly<Record<string, JsonSchema>>): string {
  const written = (shapes[declaration.name]?.properties as Record<string, JsonSchema> | undefined)?.object?.const;
  return typeof written === 'string' ? written : declaration.name;
}

/** Deep copy of a JSON value. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * An answer shape, refined as a resource's is (timestamps, free-form `meta`) and, like a
 * resource's schema, without the generator's "more properties may follow" at its top (a typed
 * client would take any misspelled field for one of them).
 */
export function refineAnswer(schema: JsonSchema): JsonSchema {
  const refined = refine(copy(schema));
  if (refined.additionalProperties && typeof refined.additionalProperties === 'object' && Object.keys(refined.additionalProperties).length === 0) delete refined.additionalProperties;
  return refined;
}

/** Sets `format: date-time` on timestamp properties (`date`, `date_*`) and makes every `meta` free-form, at any depth. */
function refine(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties) {
    for (const [name, property] of Object.entries(properties)) {
      if (name === 'meta') {
        properties[name] = { description: 'Free-form data the client stored (string, number, object, array or null); the platform never interprets it' };
        continue;
      }
      if ((name === 'date' || name.startsWith('date_')) && typesOf(property).includes('string') && !property.enum) property.format = 'date-time';
      refine(property);
    }
  }
  if (schema.items && typeof schema.items === 'object') refine(schema.items as JsonSchema);
  for (const key of ['anyOf', 'oneOf', 'prefixItems'] as const) for (const alternative of (schema[key] as JsonSchema[] | undefined) ?? []) refine(alternative);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') refine(schema.additionalProperties as JsonSchema);
  return schema;
}

/** The `formatted` twins of an object: display strings (or null) by property name. */
const FORMATTED = {
  type: 'object',
  description: 'Only with `formatted=true`: a display string (or null) for each money, date, percentage and country property, in the caller\'s locale',
  additionalProperties: { type: ['string', 'null'] },
} as const;

/**
 * The component schemas of every declared resource and the list envelopes `lists` asks for.
 * Each property keeps the type its `toJson` renders; a link is its URL or, when expanded, the
 * object (`oneOf` string and object), a sub-collection its URL or the first page as an offset list.
 */
export function resourceSchemas(index: ResourceIndex): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const declaration of index.facts.declarations) {
    const shape = refine(copy(index.facts.shapes[declaration.name] ?? { type: 'object' }));
    const properties = ((shape.properties as Record<string, JsonSchema> | undefined) ?? {}) as Record<string, JsonSchema>;
    const required = new Set((shape.required as string[] | undefined) ?? []);
    const known = Object.keys(properties).length > 0;
    properties.object = { type: 'string', const: objectOf(declaration, index.facts.shapes), description: 'The kind of object' };
    required.add('object');
    properties.url = { ...URL_STRING, description: 'The absolute URL of this object' };
    properties[declaration.idField] = { ...(properties[declaration.idField] ?? { type: 'string' }), description: `The ${declaration.name.replace(/_/g, ' ')}'s id` };
    for (const [property, target] of Object.entries(declaration.links ?? {})) {
      // A link is its URL, or the object once expanded; some resources render an inline object
      // in its place (a sale's customer snapshot), which stays an alternative.
      const rendered = properties[property];
      const types = typesOf(rendered);
      const alternatives: JsonSchema[] = [];
      if (!rendered || types.includes('string')) alternatives.push({ ...URL_STRING, description: `The URL of the ${spokenName(target)}` });
      if (rendered && types.includes('object')) alternatives.push(withoutNull(rendered));
      alternatives.push({ ...ref(componentName(target)), description: `With \`expand=${property}\`: the ${spokenName(target)}` });
      if (!rendered || types.includes('null')) alternatives.push({ type: 'null' });
      properties[property] = { anyOf: alternatives };
    }
    for (const [property, sub] of Object.entries(declaration.subCollections ?? {})) {
      const target = index.byName.get(sub.resource);
      properties[property] = {
        oneOf: [
          { ...URL_STRING, description: `The URL of the ${sub.resource.replace(/_/g, ' ')} list (always present)` },
          target ? { ...ref(listName(target, 'offset')), description: `With \`expand=${property}\`: the first page` } : { type: 'object', description: `With \`expand=${property}\`: the first page` },
        ],
      };
    }
    for (const [property, target] of Object.entries(declaration.embedded ?? {})) {
      const element = ref(componentName(target));
      const rendered = properties[property];
      if (typesOf(rendered).includes('array')) properties[property] = { type: 'array', items: element };
      else properties[property] = typesOf(rendered).includes('null') ? nullable(element) : element;
    }
    // What a computed expansion naming no resource answers, read from its `compute` (infra/openapi/resource-shapes.ts).
    const virtualShapes = (shape['x-virtuals'] ?? {}) as Record<string, JsonSchema>;
    for (const [property, virtual] of Object.entries(declaration.virtuals ?? {})) {
      const target = virtual.resource ? index.byName.get(virtual.resource) : undefined;
      const computed = { ...(target ? ref(componentName(target.name)) : (virtualShapes[property] ?? {})), description: `With \`expand=${property}\`: computed when asked for` };
      const rendered = properties[property];
      // A property rendered anyway (a URL) that expanding replaces keeps both forms.
      if (rendered && target) properties[property] = { anyOf: [rendered, computed] };
      else if (rendered) properties[property] = { ...rendered, description: `${String(rendered.description ?? '')} With \`expand=${property}\`: the computed value`.trim() };
      else {
        properties[property] = { ...computed, description: `Only with \`expand=${property}\`: computed when asked for` };
        required.delete(property);
      }
    }
    const money = Object.keys(declaration.formatted?.money ?? {});
    for (const name of money) properties[name] ??= { type: ['number', 'null'], description: 'An amount in the major unit of its currency' };
    for (const name of declaration.formatted?.dates ?? []) properties[name] ??= { type: ['string', 'null'], format: 'date-time' };
    if (declaration.formatted) properties.formatted = FORMATTED;
    const schema: JsonSchema = {
      type: 'object',
      title: declaration.name,
      description: known
        ? `A ${declaration.name.replace(/_/g, ' ')}, as the API renders it.`
        : `A ${declaration.name.replace(/_/g, ' ')}. Only the properties its declaration names are described; run \`npm run generate:api\` to describe the rest.`,
      properties,
      required: [...required].filter((name) => name in properties),
    };
    schemas[componentName(declaration.name)] = schema;
  }
  for (const declaration of index.facts.declarations) {
    const name = declaration.name.replace(/_/g, ' ');
    schemas[listName(declaration, 'offset')] = offsetList(ref(componentName(declaration.name)), `An offset list of ${name} objects`);
    schemas[listName(declaration, 'cursor')] = cursorList(ref(componentName(declaration.name)), `A cursor list of ${name} objects`);
  }
  return schemas;
}

const EXAMPLE_ID = '3HE81X8T8P1B';
const EXAMPLE_DATE = '2026-11-21T14:05:09Z';

/**
 * An example value of a schema, made from its types: ids and URLs that look like the API's, the
 * first enum value, links as URLs, lists with one element. `resolve` reads a `$ref`.
 */
export function exampleOf(schema: JsonSchema, resolve: (ref: string) => JsonSchema | undefined, serverUrl: string, name = '', depth = 0): unknown {
  if (depth > 16) return null;
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref);
    return target ? exampleOf(target, resolve, serverUrl, name, depth + 1) : {};
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.oneOf)) return exampleOf((schema.oneOf as JsonSchema[])[0]!, resolve, serverUrl, name, depth + 1);
  if (Array.isArray(schema.anyOf)) return exampleOf((schema.anyOf as JsonSchema[])[0]!, resolve, serverUrl, name, depth + 1);
  const types = typesOf(schema);
  const type = types.find((candidate) => candidate !== 'null') ?? types[0];
  switch (type) {
    case 'object': {
      const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
      const result: Record<string, unknown> = {};
      const kind = typeof properties.object?.const === 'string' ? (properties.object.const as string) : undefined;
      for (const [property, value] of Object.entries(properties)) {
        if (property === 'formatted') continue;
        if (/^Only with/.test(String(value.description ?? ''))) continue;
        result[property] = exampleOf(value, resolve, serverUrl, property, depth + 1);
      }
      if (kind && typeof result.url === 'string') {
        const id = Object.keys(properties).find((property) => property.endsWith('_id') && property.startsWith(kind));
        result.url = `${serverUrl}/${kind}s/${id ? String(result[id]) : EXAMPLE_ID}`;
      }
      return result;
    }
    case 'array':
      return schema.items && typeof schema.items === 'object' ? [exampleOf(schema.items as JsonSchema, resolve, serverUrl, name, depth + 1)] : [];
    case 'string':
      if (schema.format === 'date-time') return EXAMPLE_DATE;
      if (schema.format === 'uri') return `${serverUrl}/${name.replace(/_url$/, '')}${name.endsWith('s') ? '' : 's'}/${EXAMPLE_ID}`;
      if (name.endsWith('_id') || name === 'reference' || name === 'fingerprint') return EXAMPLE_ID;
      if (name === 'currency' || name.endsWith('_currency')) return 'USD';
      if (name === 'email') return 'ana@example.org';
      if (name === 'account_id') return 'XG5908XMX3MH';
      return name ? `${name.replace(/_/g, ' ')}` : 'text';
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'number':
      return name.includes('count') || name.includes('quantity') ? 1 : 19.99;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return null;
  }
}
