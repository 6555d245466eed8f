/**
 * Every answer the e2e helper `api()` receives from `/api/v1/` is checked against the API
 * description (`GET /api/v1/openapi.json`, built here from the same code): the success schema
 * of the matched route and status, or the error envelope for a 4xx/5xx. A mismatch fails the
 * test that made the request, naming the route, the schema and where the body differs, so the
 * description cannot drift from what the API does. Answers without JSON (204, PDFs, HTML pages,
 * scripts, redirects) pass through unchecked.
 *
 * The document is built once per source state and kept under `.tmp/openapi/` (building it
 * loads every route family: seconds per test file otherwise); validators are compiled once per
 * schema per process. Each process keeps its count in `.tmp/openapi-responses/<pid>.json`, so
 * a whole run's total is the sum (`npm run openapi:validated`). Outside vitest (the benches share
 * `api()`) nothing is checked unless `OPENAPI_RESPONSES=check`.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCE_DIRS = ['shared', 'handlers/http'];
const SERVER = 'http://localhost/api/v1';

/** The JSON answers this process checked, and the answers it let pass (no JSON, or not the API). */
const counts = { validated: 0, passed_through: 0 };

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }>; $ref?: string }>;
}

interface Description {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> };
}

/** A hash of every source file's path, size and modification time: the document's cache key. */
function sourceKey(): string {
  const hash = createHash('sha256');
  const files: string[] = [join(ROOT, 'package.json')];
  for (const dir of SOURCE_DIRS) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) if (entry.isFile()) files.push(join(entry.parentPath, entry.name));
  }
  files.sort();
  for (const file of files) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(ROOT, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

let described: Promise<Checker> | undefined;

/** The route matchers, most literal first (`/auths/me` before `/auths/{auth_id}`). */
function matchers(description: Description): Array<{ template: string; pattern: RegExp; methods: Record<string, Operation> }> {
  return Object.entries(description.paths)
    .map(([template, methods]) => ({
      template,
      methods,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      literal: template.split('/').filter((segment) => !segment.startsWith('{')).length,
    }))
    .sort((a, b) => b.literal - a.literal);
}

/** Removes `required` (but inside `if`) from a copy: what `show` and `hide` may trim. */
function withoutRequired(value: unknown, inIf = false): unknown {
  if (Array.isArray(value)) return value.map((element) => withoutRequired(element, inIf));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([key]) => inIf || key !== 'required')
      .map(([key, inner]) => [key, withoutRequired(inner, inIf || key === 'if')]),
  );
}

/** Checks answers against one description. */
class Checker {
  private readonly routes: ReturnType<typeof matchers>;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly strict: Ajv2020;
  private readonly trimmed: Ajv2020;

  constructor(private readonly description: Description) {
    this.routes = matchers(description);
    const ajv = () => {
      const instance = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
      addFormats.default(instance);
      return instance;
    };
    this.strict = ajv();
    this.strict.addSchema({ $id: 'openapi', components: description.components });
    this.trimmed = ajv();
    this.trimmed.addSchema({ $id: 'openapi', components: withoutRequired(description.components) });
  }

  /** The validator of a schema of the document (cached by its text and whether show/hide trimmed the answer). */
  private validator(schema: Record<string, unknown>, trimmed: boolean): ValidateFunction {
    const text = JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/');
    const key = `${trimmed}:${text}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const instance = trimmed ? this.trimmed : this.strict;
      validate = instance.compile(JSON.parse(trimmed ? JSON.stringify(withoutRequired(JSON.parse(text))) : text) as Record<string, unknown>);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** Undefined when the answer matches (or carries no JSON), else why not. */
  check(method: string, url: URL, status: number, contentType: string | null, text: string): string | undefined {
    const at = url.pathname.indexOf('/api/v1/');
    if (at < 0 || status === 204 || !text || !/^application\/json\b/.test(contentType ?? '')) {
      counts.passed_through++;
      return undefined;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${method} ${url.pathname} answered ${status} with Content-Type application/json but a body that is not JSON: ${text.slice(0, 200)}`;
    }
    const path = url.pathname.slice(at + '/api/v1'.length);
    const route = this.routes.find((candidate) => candidate.pattern.test(path));
    const operation = route?.methods[method.toLowerCase()];
    let schema: Record<string, unknown> | undefined;
    let name: string;
    if (status >= 400) {
      schema = { $ref: '#/components/schemas/Error' };
      name = 'Error';
    } else if (!operation) {
      return `${method} ${url.pathname} answered ${status} with JSON, but the description has no ${method} ${route?.template ?? path}`;
    } else {
      const response = operation.responses[String(status)];
      if (!response) return `${method} ${route!.template} answered ${status}, which its description does not list (it lists ${Object.keys(operation.responses).join(', ')})`;
      schema = response.content?.['application/json']?.schema;
      name = `${method} ${route!.template} ${status}`;
      if (!schema) return `${method} ${route!.template} answered ${status} with JSON, but its description says the answer has no JSON body`;
    }
    const trimmed = ['show', 'hide'].some((parameter) => (url.searchParams.get(parameter) ?? '').trim() !== '');
    const validate = this.validator(schema, trimmed);
    counts.validated++;
    if (validate(body)) return undefined;
    const reference = typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : 'inline schema';
    const problems = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '/'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''} (got ${JSON.stringify(valueAt(body, error.instancePath))?.slice(0, 120)})`);
    return `The answer of ${name} does not match the description (${reference}${trimmed ? ', show/hide: properties not required' : ''}):\n  ${problems.join('\n  ')}`;
  }
}

/** The value at a JSON pointer. */
function valueAt(value: unknown, pointer: string): unknown {
  let current = value;
  for (const part of pointer.split('/').slice(1)) current = (current as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return current;
}

/** The description, from the cache of this source state or built (once per process). */
async function checker(): Promise<Checker> {
  described ??= (async () => {
    const file = join(ROOT, '.tmp/openapi', `${sourceKey()}.json`);
    if (existsSync(file)) return new Checker(JSON.parse(readFileSync(file, 'utf8')) as Description);
    const { apiDocument } = await import('../../handlers/http/openapi');
    const document = apiDocument(SERVER) as unknown as Description;
    mkdirSync(join(ROOT, '.tmp/openapi'), { recursive: true });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(document));
    renameSync(partial, file);
    return new Checker(document);
  })();
  return described;
}

function record(): void {
  const folder = join(ROOT, '.tmp/openapi-responses');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `${process.pid}.json`), JSON.stringify(counts));
}

/**
 * Checks one answer of the API against its description; throws, naming the difference, when
 * it does not match.
 */
export async function checkResponse(method: string, url: string, status: number, contentType: string | null, text: string): Promise<void> {
  // Tests check; the benches that share api() measure the API, not this check.
  if (!process.env.VITEST && process.env.OPENAPI_RESPONSES !== 'check') return;
  const parsed = new URL(url);
  if (!parsed.pathname.includes('/api/v1/')) {
    counts.passed_through++;
    record();
    return;
  }
  const problem = (await checker()).check(method.toUpperCase(), parsed, status, contentType, text);
  record();
  if (!problem) return;
  // OPENAPI_RESPONSES=report: note every mismatch in .tmp/openapi-problems.txt and go on (to survey many at once).
  if (process.env.OPENAPI_RESPONSES === 'report') appendFileSync(join(ROOT, '.tmp/openapi-problems.txt'), `${problem}\n`);
  else throw new Error(problem);
}

/** What this process checked so far. */
export function responseCounts(): Readonly<typeof counts> {
  return { ...counts };
}
