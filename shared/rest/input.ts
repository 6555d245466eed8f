/**
 * Validation of request body properties (conventions.md §4, §7, §15): strict types, the
 * first error found reported with its dot path, empty optional strings stored as null,
 * `meta` limited to 2048 characters of compact JSON, client-chosen ids.
 */
import { InvalidInputError } from '../http/errors';

/** Throws 400 invalid_input for `property`. */
export function invalid(property: string, message: string, reason = 'invalid'): never {
  throw new InvalidInputError(message, { property, reason });
}

/** An optional string (null or '' → null), at most `max` characters. */
export function optionalString(value: unknown, property: string, max = 1000): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string') invalid(property, `The property ${property} must be a string.`);
  if (value.length > max) invalid(property, `The property ${property} must be at most ${max} characters.`, 'too_long');
  return value;
}

/** A required non-empty string of at most `max` characters. */
export function requiredString(value: unknown, property: string, max = 200): string {
  if (value === undefined || value === null || value === '') invalid(property, `The property ${property} is required.`, 'required');
  const text = optionalString(value, property, max);
  if (text === null || text.trim() === '') invalid(property, `The property ${property} must not be blank.`, 'required');
  return text;
}

/** A JSON boolean. */
export function booleanValue(value: unknown, property: string): boolean {
  if (typeof value !== 'boolean') invalid(property, `The property ${property} must be true or false.`);
  return value;
}

/** A finite JSON number (numeric strings are refused). */
export function numberValue(value: unknown, property: string, options: { min?: number; max?: number; integer?: boolean } = {}): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid(property, `The property ${property} must be a number.`);
  if (options.integer && !Number.isInteger(value)) invalid(property, `The property ${property} must be an integer.`);
  if ((options.min !== undefined && value < options.min) || (options.max !== undefined && value > options.max)) {
    invalid(property, `The property ${property} is out of range.`, 'out_of_range');
  }
  return value;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An optional email address. */
export function optionalEmail(value: unknown, property: string): string | null {
  const text = optionalString(value, property, 254);
  if (text !== null && !EMAIL.test(text)) invalid(property, `The property ${property} must be a valid email address.`);
  return text;
}

/** The `meta` value: string, number, object, array or null; at most 2048 characters of compact JSON. */
export function metaValue(value: unknown, property = 'meta'): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') invalid(property, `The property ${property} must be a string, number, object or array.`);
  if (JSON.stringify(value).length > 2048) invalid(property, `The property ${property} must be at most 2048 characters of JSON.`, 'too_long');
  return value;
}

const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A client-chosen id (conventions §7); `reserved` are literal path words of the collection. */
export function clientId(value: unknown, property: string, reserved: readonly string[]): string {
  if (typeof value !== 'string' || !CLIENT_ID.test(value)) {
    invalid(property, `The property ${property} must be 1 to 100 characters of A-Z, a-z, 0-9, ".", "_" and "-", starting with a letter or digit.`);
  }
  if (reserved.includes(value)) invalid(property, `The value ${value} is reserved and cannot be used as ${property}.`, 'not_allowed');
  return value;
}

/** Whether the body sends a property (present, even as null). */
export function sends(body: Record<string, unknown>, property: string): boolean {
  return Object.prototype.hasOwnProperty.call(body, property);
}

/** A nested object property for a merge: an object, or null/absent. */
export function objectValue(value: unknown, property: string): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) invalid(property, `The property ${property} must be an object.`);
  return value as Record<string, unknown>;
}
