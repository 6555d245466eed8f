/**
 * Remembers what dynalite's expression parsers made of an expression (issue 12: the local store
 * made cheap).
 *
 * dynalite runs a PEG parser over every ConditionExpression, UpdateExpression,
 * KeyConditionExpression, FilterExpression and ProjectionExpression of every call; in a checkout
 * that was 8 % of the runtime's CPU, for the same few dozen expressions over and over. The
 * parser resolves `#name`s to attribute names and `:value`s to the request's value objects as it
 * goes, and checks operand types. So a parse is kept per expression text, attribute names and
 * the TYPE of each attribute value, with every value object replaced by a slot; a later request
 * with the same text, names and value types gets a fresh copy of the tree with its own value
 * objects in the slots, and the same names and values marked as used.
 *
 * Checks that read a value's content rather than its type (BETWEEN's bounds, attribute_type's
 * type name) would not be repeated from a kept parse: an expression that contains either is
 * parsed every time. Errors are never kept (a failing expression is parsed again, and fails
 * again with the same message). What dynalite does with a tree is unchanged: each request gets
 * its own copy, so nothing it changes in one reaches another.
 */
import { createRequire } from 'node:module';

/** The context dynalite's `validations/index.js` hands its parsers. */
interface ParseContext {
  attrNames?: Record<string, string>;
  attrVals?: Record<string, Record<string, unknown>>;
  unusedAttrNames?: Record<string, boolean>;
  unusedAttrVals?: Record<string, boolean>;
  [other: string]: unknown;
}

type Parse = (text: string, options: { context: ParseContext }) => unknown;

/** One of dynalite's generated parser modules (`db/conditionParser.js` and its siblings). */
interface ParserModule {
  parse: Parse;
}

/** A kept parse: the tree with slots for values, and which names and values it used. */
interface Kept {
  tree: unknown;
  usedNames: string[];
  usedValues: string[];
}

/** Where a request's value object goes in a kept tree. */
class ValueSlot {
  constructor(readonly key: string) {}
}

/** Parses kept at most (expressions in the platform are a fixed few dozen; this only bounds abuse). */
const MAX_KEPT = 1000;

/** Expressions whose checks read a value's content: never kept (see the header). */
const contentChecked = /between|attribute_type/i;

/** dynalite's attribute types, in the order its parsers test them. */
const valueTypes = ['S', 'N', 'B', 'NULL', 'BOOL', 'SS', 'NS', 'BS', 'L', 'M'] as const;

/** What counts for a kept parse: the text, the names, and each value's key and type. */
function keyOf(parser: number, text: string, context: ParseContext): string {
  let values = '';
  for (const key in context.attrVals) {
    const value = context.attrVals[key]!;
    values += `${key}=${valueTypes.find((type) => value[type] != null) ?? '?'};`;
  }
  return `${parser}\u0000${text}\u0000${JSON.stringify(context.attrNames ?? null)}\u0000${values}`;
}

/** A copy of `tree` with each request value object replaced by its slot (`slots`, by object). */
function toTemplate(tree: unknown, slots: Map<unknown, ValueSlot>): unknown {
  if (typeof tree !== 'object' || tree === null) return tree;
  const slot = slots.get(tree);
  if (slot) return slot;
  if (Array.isArray(tree)) return tree.map((node) => toTemplate(node, slots));
  const copy: Record<string, unknown> = {};
  for (const [name, node] of Object.entries(tree)) copy[name] = toTemplate(node, slots);
  return copy;
}

/** A fresh tree from a template, with the request's own value objects in the slots. */
function fromTemplate(template: unknown, values: Record<string, unknown>): unknown {
  if (typeof template !== 'object' || template === null) return template;
  if (template instanceof ValueSlot) return values[template.key];
  if (Array.isArray(template)) return template.map((node) => fromTemplate(node, values));
  const tree: Record<string, unknown> = {};
  for (const name in template) tree[name] = fromTemplate((template as Record<string, unknown>)[name], values);
  return tree;
}

/** Marks as used what the parse used, as the parser itself does. */
function markUsed(context: ParseContext, kept: Kept): void {
  if (context.unusedAttrNames) for (const name of kept.usedNames) delete context.unusedAttrNames[name];
  if (context.unusedAttrVals) for (const key of kept.usedValues) delete context.unusedAttrVals[key];
}

/** Wraps one parser's `parse` with the kept parses; `stats` counts for tests. */
function keepParses(parser: number, parse: Parse, kept: Map<string, Kept>, stats: ExpressionStats): Parse {
  return (text, options) => {
    const context = options.context;
    if (typeof text !== 'string' || contentChecked.test(text)) return parse(text, options);
    const key = keyOf(parser, text, context);
    const found = kept.get(key);
    if (found) {
      stats.hits++;
      markUsed(context, found);
      return fromTemplate(found.tree, context.attrVals ?? {});
    }
    stats.misses++;
    // Parsed against fresh "unused" sets, so what this expression uses shows whatever other
    // expressions of the request used before it. A parse that fails throws and keeps nothing.
    const unusedNames = Object.fromEntries(Object.keys(context.attrNames ?? {}).map((name) => [name, true]));
    const unusedValues = Object.fromEntries(Object.keys(context.attrVals ?? {}).map((name) => [name, true]));
    const tree = parse(text, { context: { ...context, unusedAttrNames: unusedNames, unusedAttrVals: unusedValues } });
    const entry: Kept = {
      tree: toTemplate(tree, new Map(Object.entries(context.attrVals ?? {}).map(([name, value]) => [value, new ValueSlot(name)]))),
      usedNames: Object.keys(context.attrNames ?? {}).filter((name) => !(name in unusedNames)),
      usedValues: Object.keys(context.attrVals ?? {}).filter((name) => !(name in unusedValues)),
    };
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(key, entry);
    markUsed(context, entry);
    return tree;
  };
}

/** Kept parses used and parses run since start (for tests and benches). */
export interface ExpressionStats {
  hits: number;
  misses: number;
}

const stats: ExpressionStats = { hits: 0, misses: 0 };
let installed = false;

/**
 * Puts the kept parses in front of dynalite's three expression parsers (once per process: the
 * parser modules are shared by every dynalite in it). Answers the running counts.
 */
export function keepExpressionParses(): ExpressionStats {
  if (installed) return stats;
  installed = true;
  const require = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const kept = new Map<string, Kept>();
  ['./db/conditionParser', './db/updateParser', './db/projectionParser'].forEach((path, parser) => {
    const module = require(path) as ParserModule;
    module.parse = keepParses(parser, module.parse, kept, stats);
  });
  return stats;
}
