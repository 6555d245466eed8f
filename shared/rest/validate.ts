/**
 * Runs a request-body schema and turns its first failure into the contract's 400
 * `invalid_input` (conventions.md §6): `meta.property` is the dot path with array indexes in
 * brackets (`items[1].quantity`), `meta.reason` a short machine word, and the message a
 * sentence a shopper can read.
 */
import type { z } from 'zod';
import { InvalidInputError } from '../http/errors';
import type { Reason } from './fields';

/** The contract's property path of a zod issue path: `['items', 1, 'quantity']` → `items[1].quantity`. */
export function propertyPath(path: readonly PropertyKey[], prefix = ''): string {
  let text = prefix;
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text ? `.${String(segment)}` : String(segment);
  }
  return text;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

function reasonOf(issue: z.core.$ZodIssue, missing: boolean): Reason {
  const declared = (issue as { params?: { reason?: Reason } }).params?.reason;
  if (declared) return declared;
  switch (issue.code) {
    case 'invalid_type':
    case 'invalid_union':
    case 'invalid_value':
      return missing ? 'required' : 'invalid';
    case 'too_big':
      return issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint' ? 'out_of_range' : 'too_long';
    case 'too_small':
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') return 'out_of_range';
      return 'required';
    default:
      return 'invalid';
  }
}

/** The 400 `invalid_input` error for the first issue of a failed parse of `input`. */
export function inputError(error: z.ZodError, input: unknown, prefix = ''): InvalidInputError {
  const issue = error.issues[0]!;
  const missing = valueAt(input, issue.path) === undefined;
  const property = propertyPath(issue.path, prefix);
  const reason = reasonOf(issue, missing);
  const phrase = missing && reason === 'required' ? 'is required' : issue.message;
  const message = property ? `The property ${property} ${phrase}.` : `The request body ${phrase}.`;
  return new InvalidInputError(message, property ? { property, reason } : { reason });
}

/**
 * Validates `input` against `schema` and returns the parsed, converted value, or throws the
 * first failure as 400 `invalid_input`. `prefix` names where the value sits in the body.
 *
 * @example const fields = parseInput(productCreate, context.body ?? {})
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw inputError(result.error, input, prefix);
  return result.data;
}
