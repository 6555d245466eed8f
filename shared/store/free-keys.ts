/**
 * Keys a client chose, stored safely (conventions.md "Free-form objects"). The SDK's marshalling
 * builds maps by assignment and classifies objects by their `constructor`, so a `meta` key named
 * `__proto__` vanished (or replaced a prototype) and one named `constructor` made the marshaller
 * throw. At the storage boundary, and only there, such a key is stored with one `~` in front
 * (`~__proto__`), and a key that already looks like that gets one more, so the mapping reverses
 * exactly on the way back; every other key is stored as it is.
 *
 * A middleware of the DynamoDB client (`db()` installs it) escapes every request's input before
 * the marshaller sees it and unescapes every answer after the unmarshaller built it. Values
 * without such keys pass through as the same objects (nothing is copied).
 */
import type { MiddlewareStack } from '@smithy/types';

/** The keys the SDK's marshalling cannot carry, with any number of `~` in front. */
const ESCAPED_SHAPE = /^~*(?:__proto__|constructor)$/;

/** Whether a key needs rewriting; a cheap first-character test keeps the common key fast. */
function special(key: string): boolean {
  const first = key.charCodeAt(0);
  // '_' (0x5f), 'c' (0x63), '~' (0x7e)
  return (first === 0x5f || first === 0x63 || first === 0x7e) && ESCAPED_SHAPE.test(key);
}

/**
 * `value` with `rename` applied to every special key of every plain object inside it, copying
 * only the objects on the path to a change; anything else (strings, numbers, Sets, Uint8Arrays,
 * the SDK's own value classes) is left as it is.
 */
function rewrite(value: unknown, rename: (key: string) => string | undefined): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = value[index];
      const next = rewrite(item, rename);
      if (next !== item) (copy ??= value.slice())[index] = next;
    }
    return copy ?? value;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  let copy: Record<string, unknown> | undefined;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const item = source[key];
    const next = rewrite(item, rename);
    const renamed = special(key) ? rename(key) : undefined;
    if (!copy) {
      if (next === item && renamed === undefined) continue;
      // The first change: the keys before it are copied as they are, in order.
      copy = {};
      for (let earlier = 0; earlier < index; earlier++) define(copy, keys[earlier]!, source[keys[earlier]!]);
    }
    define(copy, renamed ?? key, next);
  }
  return copy ?? value;
}

/** Adds an own, enumerable data property, whatever the key (an assignment to `__proto__` would set the prototype). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `__proto__` → `~__proto__`, `~constructor` → `~~constructor`. */
const escapeKey = (key: string): string => `~${key}`;

/** `~__proto__` → `__proto__`; a bare `__proto__` or `constructor` was never stored that way and stays. */
const unescapeKey = (key: string): string | undefined => (key.charCodeAt(0) === 0x7e ? key.slice(1) : undefined);

/** A request's input with client-chosen keys made storable. */
export function escapeStoredKeys<T>(input: T): T {
  return rewrite(input, escapeKey) as T;
}

/** An answer's items with client-chosen keys as the client sent them. */
export function unescapeStoredKeys<T>(output: T): T {
  return rewrite(output, unescapeKey) as T;
}

/**
 * Installs the escaping on a DynamoDB client's stack, in the initialize step: before the document
 * client marshals the input and after it unmarshals the output (so it sees native values).
 */
export function storeFreeKeysSafely(stack: MiddlewareStack<any, any>): void {
  stack.add(
    (next) => async (args: { input: unknown }) => {
      const result = await next({ ...args, input: escapeStoredKeys(args.input) });
      return { ...result, output: unescapeStoredKeys(result.output) };
    },
    { step: 'initialize', name: 'cartwheelFreeKeys', override: true },
  );
}
