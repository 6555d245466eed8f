/**
 * Request fields of `/hosted_functions` (functions.md §1-§3, §6), declared once: validation,
 * types and the API description. Multipart text fields and JSON properties share the rules
 * (`timeout` and `memory_mb` arrive as decimal text in a form, the variables as JSON text).
 * Rules between fields (the handler's form for its runtime, the handler file in the zip) are
 * checked on the function as it will be (./hosted-functions).
 */
import type { FunctionRuntime } from '../../platform/ports';
import { body, decimal, requiredText, text, z } from '../../rest/fields';

/** The runtimes (§2) by full name. */
export const RUNTIMES = ['nodejs22.x', 'python3.13', 'java21', 'dotnet8'] as const satisfies readonly FunctionRuntime[];

/** Short names accepted and stored as the full value (§2). */
const SHORT_NAMES: Readonly<Record<string, FunctionRuntime>> = {
  nodejs: 'nodejs22.x',
  node: 'nodejs22.x',
  python: 'python3.13',
  java: 'java21',
  dotnet: 'dotnet8',
  csharp: 'dotnet8',
};

/** The full runtime a name means, or undefined. */
export function runtimeNamed(value: string): FunctionRuntime | undefined {
  const name = value.trim().toLowerCase();
  return (RUNTIMES as readonly string[]).includes(name) ? (name as FunctionRuntime) : SHORT_NAMES[name];
}

/** A runtime, full or short name, answered as the full name. */
const runtime = z
  .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') })
  .transform((value, context) => {
    const named = runtimeNamed(value);
    if (!named) {
      context.addIssue({ code: 'custom', message: `must be one of ${RUNTIMES.join(', ')} (or nodejs, node, python, java, dotnet, csharp)` });
      return z.NEVER;
    }
    return named;
  })
  .meta({ description: `One of ${RUNTIMES.join(', ')}; short names nodejs, node, python, java, dotnet and csharp are stored as the full value` });

/** Most variables, longest name, most bytes of names and values together (§3). */
export const VARIABLE_LIMITS = { count: 50, nameLength: 64, totalBytes: 4096 } as const;

/** Names a function may not set (§3): the platform's, the runtime's own, and every name the cloud runtime reserves. */
const REFUSED_NAMES = new Set(['PATH', 'HOME', 'TMPDIR', 'TZ', 'LANG', 'NODE_OPTIONS', 'PYTHONPATH', 'LD_LIBRARY_PATH', '_HANDLER', '_X_AMZN_TRACE_ID', 'TEMP', 'TMP']);
/** Prefixes a function may not use: the platform's and the cloud runtime's (`AWS_*`, `LAMBDA_*`, `_AWS_*`). */
const REFUSED_PREFIXES = ['CARTWHEEL_', 'AWS_', 'LAMBDA_', '_AWS_', '_LAMBDA_'];

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why a variable name is refused, or undefined. */
export function refusedVariableName(name: string): string | undefined {
  if (name.length > VARIABLE_LIMITS.nameLength) return `must be at most ${VARIABLE_LIMITS.nameLength} characters`;
  if (!VARIABLE_NAME.test(name)) return 'must start with a letter or underscore and hold only letters, digits and underscores';
  const upper = name.toUpperCase();
  if (REFUSED_NAMES.has(upper) || REFUSED_PREFIXES.some((prefix) => upper.startsWith(prefix))) return 'is reserved by the platform or the function runtime';
  return undefined;
}

/** One variable as sent: a name, and a value unless the stored one is kept (§3). */
export interface SentVariable {
  name: string;
  value?: string;
}

/** Text sent in a form field is JSON; anything else is taken as sent. */
function jsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return Symbol.for('cartwheel.unreadable');
  }
}

/**
 * The variables (§3): `[{name, value}]` or `{NAME: value}` (in a form, that JSON as text);
 * names unique, valid and not reserved; at most 50; names and values at most 4 KB together. An
 * entry without `value` keeps the stored value (checked against the stored names on update).
 */
export const environmentVariables = z
  .preprocess(
    jsonText,
    z.union(
      [
        z.array(z.object({ name: z.string({ error: 'must be a string' }), value: z.string({ error: 'must be a string' }).optional() }, { error: 'must be an object with name and value' }), { error: 'must be an array' }),
        z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object' }).transform((object) => Object.entries(object).map(([name, value]) => ({ name, value }))),
      ],
      { error: 'must be an array of {name, value} or an object of names to values (JSON)' },
    ),
  )
  .nullable()
  .transform((entries, context): SentVariable[] => {
    const list = entries ?? [];
    if (list.length > VARIABLE_LIMITS.count) {
      context.addIssue({ code: 'custom', message: `must have at most ${VARIABLE_LIMITS.count} variables`, params: { reason: 'out_of_range' } });
      return z.NEVER;
    }
    const seen = new Set<string>();
    let bytes = 0;
    for (const entry of list) {
      const refused = refusedVariableName(entry.name);
      if (refused) {
        context.addIssue({ code: 'custom', message: `has the name ${JSON.stringify(entry.name.slice(0, 80))}, which ${refused}`, params: { reason: refused.startsWith('is reserved') ? 'not_allowed' : 'invalid' } });
        return z.NEVER;
      }
      if (seen.has(entry.name)) {
        context.addIssue({ code: 'custom', message: `names ${entry.name} twice`, params: { reason: 'conflict' } });
        return z.NEVER;
      }
      seen.add(entry.name);
      bytes += Buffer.byteLength(entry.name) + Buffer.byteLength(entry.value ?? '');
    }
    if (bytes > VARIABLE_LIMITS.totalBytes) {
      context.addIssue({ code: 'custom', message: `must hold at most ${VARIABLE_LIMITS.totalBytes} bytes of names and values together`, params: { reason: 'too_long' } });
      return z.NEVER;
    }
    return list.map((entry) => (entry.value === undefined ? { name: entry.name } : { name: entry.name, value: entry.value }));
  })
  .meta({ description: 'Array of {name, value} or an object of names to values (in multipart: that JSON as text). Replaces the stored set; an entry without value keeps the stored value of that name' });

/** The function's own limit in seconds (§8). */
const timeout = decimal({ integer: true, min: 1, max: 900 }).meta({ description: 'Seconds, 1 to 900 (default 30)' });
/** The memory it may use (§8). */
const memory = decimal({ integer: true, min: 128, max: 3008 }).meta({ description: 'MB, 128 to 3,008 (default 256)' });
/** A handler name; its form is checked against the runtime (./hosted-functions). */
const handler = requiredText(256).meta({ description: 'Entry point, e.g. index.handler (functions.md §2)' });

/** The fields of a function (create: name, runtime and handler required; the file is the form's). */
export const hostedFunctionCreate = body({
  name: requiredText(100),
  description: text(1000).optional(),
  runtime: runtime.optional(),
  /** The same value under its older name (admin clients send this one). */
  environment: runtime.optional(),
  handler,
  environment_variables: environmentVariables.optional(),
  timeout: timeout.optional(),
  memory_mb: memory.optional(),
});

/** The fields of an update: all optional (a partial update). */
export const hostedFunctionUpdate = body({
  name: requiredText(100).optional(),
  description: text(1000).optional(),
  runtime: runtime.optional(),
  environment: runtime.optional(),
  handler: handler.optional(),
  environment_variables: environmentVariables.optional(),
  timeout: timeout.optional(),
  memory_mb: memory.optional(),
});

export type HostedFunctionCreate = z.output<typeof hostedFunctionCreate>;
export type HostedFunctionUpdate = z.output<typeof hostedFunctionUpdate>;

/** Why `handler` does not have the form its runtime needs (§2), or undefined. */
export function handlerFormProblem(runtimeName: FunctionRuntime, name: string): string | undefined {
  switch (runtimeName) {
    case 'nodejs22.x':
    case 'python3.13': {
      const dot = name.lastIndexOf('.');
      if (dot <= 0 || dot === name.length - 1) return 'must be <file path>.<function name>, e.g. index.handler';
      if (name.startsWith('/') || name.split(/[/]/).some((part) => part === '..' || part === '.') || name.includes('\\')) return 'must be a path inside the package';
      return undefined;
    }
    case 'java21':
      return /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*::[A-Za-z_$][\w$]*$/.test(name) ? undefined : 'must be <fully qualified class>::<method>, e.g. com.example.Quotes::handle';
    case 'dotnet8':
      return /^[\w.]+::[\w.]+::\w+$/.test(name) ? undefined : 'must be <assembly>::<namespace.class>::<method>, e.g. Quotes::Quotes.Function::Handle';
  }
}

/** The files a Node.js or Python handler may name in the package, in the order they are tried (§2). */
export function handlerFiles(runtimeName: FunctionRuntime, name: string): string[] {
  const dot = name.lastIndexOf('.');
  const modulePath = name.slice(0, dot);
  if (runtimeName === 'nodejs22.x') return ['.js', '.mjs', '.cjs'].map((extension) => `${modulePath}${extension}`);
  if (runtimeName === 'python3.13') return [`${modulePath.replaceAll('.', '/')}.py`];
  return [];
}

