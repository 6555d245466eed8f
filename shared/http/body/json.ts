/** JSON request bodies (conventions.md §4, §20): the default body of a route. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { bodyTooLarge, MAX_BODY_BYTES } from '../body-limits';
import { InvalidInputError, InvalidSyntaxError } from '../errors';
import { rawBody } from '../request';
import { isMediaType } from './content-type';

/** Deepest nesting of any JSON body (conventions.md §20). */
export const MAX_BODY_DEPTH = 64;

/**
 * Whether JSON text nests deeper than `limit`, found by one pass over the text before it is
 * parsed: a body nested 10,000 deep is refused without building it.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}

/**
 * Parses a JSON request body. A body needs `Content-Type: application/json` (charset, if
 * given, utf-8); it must be at most 1 MiB, valid JSON, and an object.
 * Returns undefined for a bodiless request.
 */
export function parseJsonBody(event: APIGatewayProxyEventV2): Record<string, unknown> | undefined {
  const bytes = rawBody(event);
  if (!bytes || bytes.length === 0) return undefined;
  const contentType = event.headers?.['content-type'];
  if (!isJsonContentType(contentType)) {
    throw new InvalidSyntaxError('A request body must be sent with Content-Type: application/json.', {
      header: 'Content-Type',
      expected: 'application/json',
    });
  }
  return parseJsonBytes(bytes);
}

/** The checks of `parseJsonBody` once the type is known to be JSON: size, UTF-8, depth, syntax, an object, well-formed strings. */
export function parseJsonBytes(bytes: Buffer): Record<string, unknown> {
  if (bytes.length > MAX_BODY_BYTES) throw bodyTooLarge(MAX_BODY_BYTES);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InvalidSyntaxError('The request body is not valid UTF-8.');
  }
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
    throw new InvalidInputError(`The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`, { reason: 'too_deep', limit: MAX_BODY_DEPTH });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidSyntaxError('The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidInputError('The request body must be a JSON object.', { reason: 'invalid' });
  }
  const broken = illFormedString(value);
  if (broken !== undefined) {
    throw new InvalidInputError(`The property ${broken || '(a property name)'} is not valid Unicode text (a lone surrogate escape).`, {
      property: broken,
      reason: 'invalid',
    });
  }
  return value as Record<string, unknown>;
}

/**
 * The property path of the first string (value or property name) that is not well-formed
 * Unicode, such as a lone `\ud800` escape, which storage would silently mangle; undefined when
 * every string is well-formed.
 */
export function illFormedString(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (!node.isWellFormed()) return path;
    } else if (Array.isArray(node)) {
      node.forEach((child, index) => stack.push([child, `${path}[${index}]`]));
    } else if (node !== null && typeof node === 'object') {
      for (const [name, child] of Object.entries(node)) {
        if (!name.isWellFormed()) return path;
        stack.push([child, path ? `${path}.${name}` : name]);
      }
    }
  }
  return undefined;
}

/** Whether a Content-Type header names JSON (`application/json`, optional `charset=utf-8`). */
export function isJsonContentType(header: string | undefined): boolean {
  return isMediaType(header, 'application/json');
}
