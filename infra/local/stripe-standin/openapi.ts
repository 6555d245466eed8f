/**
 * Stripe's published OpenAPI description (github.com/stripe/openapi, `openapi/spec3.yaml` at
 * commit 63a674638635c68de26b9f3add13e58198f4df44, API version 2023-08-16, MIT licence:
 * ./openapi/LICENSE), vendored as JSON and gzipped (`openapi/spec3.json.gz`), loaded on first
 * use. The stand-in checks every request the adapter sends against it: the form-encoded body
 * (Stripe's `a[b][0]=v` deep-object encoding) or the query, against the operation's schema,
 * strictly as Stripe's API does (an unknown parameter is refused). That is a newer mirror's
 * spec3.json was not available offline; the SDK (23.1.0) speaks a newer API version, and the
 * adapter sends only parameters both know.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

type Schema = Record<string, unknown>;

let spec: { paths: Record<string, Record<string, Schema>> } | undefined;

/** The description, parsed once. */
function loadSpec(): NonNullable<typeof spec> {
  spec ??= JSON.parse(gunzipSync(readFileSync(new URL('./openapi/spec3.json.gz', import.meta.url))).toString('utf8'));
  return spec!;
}

/**
 * Parameters Stripe takes that the published description leaves out, allowed by name: raw card
 * data in `payment_method_data[card]` with `type=card` (commerce.md §4.7: for accounts Stripe allows
 * to send it).
 */
const UNDOCUMENTED: Record<string, Schema> = {
  'POST /v1/payment_intents payment_method_data.type': { type: 'string', enum: ['card'] },
  'POST /v1/payment_intents payment_method_data.card': {
    type: 'object',
    properties: { number: { type: 'string', maxLength: 19 }, exp_month: { type: 'integer' }, exp_year: { type: 'integer' }, cvc: { type: 'string', maxLength: 4 } },
    required: ['number', 'exp_month', 'exp_year'],
  },
  // The same raw card data when a SetupIntent saves a card (commerce.md §6.1 with allow_raw_card_data).
  'POST /v1/setup_intents payment_method_data.type': { type: 'string', enum: ['card'] },
  'POST /v1/setup_intents payment_method_data.card': {
    type: 'object',
    properties: { number: { type: 'string', maxLength: 19 }, exp_month: { type: 'integer' }, exp_year: { type: 'integer' }, cvc: { type: 'string', maxLength: 4 } },
    required: ['number', 'exp_month', 'exp_year'],
  },
};

/** Parses Stripe's form encoding (`metadata[a]=1&expand[0]=x`) into nested objects and arrays. */
export function parseStripeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    parts.forEach((part, index) => {
      const key = part === '' ? String(Object.keys(node).length) : part;
      if (index === parts.length - 1) node[key] = value;
      else node = (node[key] ??= {}) as Record<string, unknown>;
    });
  }
  return arraysOf(root) as Record<string, unknown>;
}

/** Objects whose keys are 0..n-1 become arrays. */
function arraysOf(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).map(([key, inner]) => [key, arraysOf(inner)] as const);
  if (entries.length > 0 && entries.every(([key], index) => key === String(index))) return entries.map(([, inner]) => inner);
  return Object.fromEntries(entries);
}

/** The operation of `method` and a concrete path (`/v1/payment_intents/pi_1` → `/v1/payment_intents/{intent}`). */
function operationOf(method: string, path: string): { template: string; operation: Schema } | undefined {
  const { paths } = loadSpec();
  const direct = paths[path]?.[method.toLowerCase()];
  if (direct) return { template: path, operation: direct };
  const segments = path.split('/');
  for (const [template, item] of Object.entries(paths)) {
    const pattern = template.split('/');
    if (pattern.length !== segments.length || !item[method.toLowerCase()]) continue;
    if (pattern.every((part, index) => part.startsWith('{') || part === segments[index])) return { template, operation: item[method.toLowerCase()]! };
  }
  return undefined;
}

/** The problems of a request against the description; empty when it is valid. */
export function checkStripeRequest(method: string, path: string, query: string, body: string): string[] {
  const found = operationOf(method, path);
  if (!found) return [`${method} ${path} is not an operation of Stripe's API`];
  const { template, operation } = found;
  const where = `${method} ${template}`;
  if (method === 'GET' || method === 'DELETE') {
    const params = parseStripeForm(query);
    const declared = (operation.parameters as Schema[] | undefined ?? []).filter((parameter) => parameter.in === 'query');
    const problems: string[] = [];
    for (const parameter of declared) {
      const name = parameter.name as string;
      if (params[name] === undefined) {
        if (parameter.required) problems.push(`${where}: query parameter ${name} is required`);
        continue;
      }
      problems.push(...check(params[name], parameter.schema as Schema, name, where, true));
    }
    for (const name of Object.keys(params)) if (!declared.some((parameter) => parameter.name === name)) problems.push(`${where}: unknown query parameter ${name}`);
    return problems;
  }
  const content = ((operation.requestBody as Schema | undefined)?.content as Record<string, Schema> | undefined)?.['application/x-www-form-urlencoded'];
  const schema = content?.schema as Schema | undefined;
  const params = parseStripeForm(body);
  if (!schema) return Object.keys(params).length ? [`${where} takes no parameters`] : [];
  return check(params, schema, '', where, true);
}

/** JSON Schema checks of the subset Stripe's description uses, with form strings read as their types (`coerce`). */
function check(value: unknown, schema: Schema, at: string, where: string, coerce: boolean): string[] {
  const name = at || '(body)';
  if (schema.anyOf) {
    const options = schema.anyOf as Schema[];
    const results = options.map((option) => check(value, option, at, where, coerce));
    if (results.some((problems) => problems.length === 0)) return [];
    return results.sort((a, b) => a.length - b.length)[0]!;
  }
  const type = schema.type as string | undefined;
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) return [`${where}: ${name} must be one of ${(schema.enum as unknown[]).join(', ')}`];
  switch (type) {
    case 'string':
      if (typeof value !== 'string') return [`${where}: ${name} must be a string`];
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) return [`${where}: ${name} is longer than ${schema.maxLength}`];
      return [];
    case 'integer':
      if (coerce ? !(typeof value === 'string' && /^-?\d+$/.test(value)) : !Number.isInteger(value)) return [`${where}: ${name} must be an integer`];
      return [];
    case 'number':
      if (coerce ? !(typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) : typeof value !== 'number') return [`${where}: ${name} must be a number`];
      return [];
    case 'boolean':
      if (coerce ? value !== 'true' && value !== 'false' : typeof value !== 'boolean') return [`${where}: ${name} must be a boolean`];
      return [];
    case 'array': {
      if (!Array.isArray(value)) return [`${where}: ${name} must be an array`];
      return value.flatMap((item, index) => check(item, (schema.items ?? {}) as Schema, `${at}[${index}]`, where, coerce));
    }
    case 'object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return [`${where}: ${name} must be an object`];
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const problems: string[] = [];
      for (const required of (schema.required as string[] | undefined) ?? []) {
        if ((value as Record<string, unknown>)[required] === undefined) problems.push(`${where}: ${at ? `${at}.` : ''}${required} is required`);
      }
      for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
        const path = at ? `${at}.${key}` : key;
        const declared = UNDOCUMENTED[`${where} ${path}`] ?? properties[key];
        if (declared) problems.push(...check(inner, declared, path, where, coerce));
        else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') problems.push(...check(inner, schema.additionalProperties as Schema, path, where, coerce));
        else problems.push(`${where}: unknown parameter ${path}`);
      }
      return problems;
    }
    default:
      return [];
  }
}
