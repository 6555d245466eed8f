/**
 * What operations still say about a body after its schema (`shared/rest/fields.ts`) has parsed it:
 * refusals that need data or settings (an unknown product, a disabled currency) and whether a
 * partial update sent a property. Types, tolerance and limits are the schemas' alone.
 */
import { InvalidInputError } from '../http/errors';

/** Throws 400 invalid_input for `property`. */
export function invalid(property: string, message: string, reason = 'invalid'): never {
  throw new InvalidInputError(message, { property, reason });
}

/** Whether the body sends a property (present, even as null). */
export function sends(body: object, property: string): boolean {
  return Object.prototype.hasOwnProperty.call(body, property);
}
