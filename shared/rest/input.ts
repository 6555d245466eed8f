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

/**
 * The value of a property after a partial update: what the body sends (null becomes `fallback`),
 * else the current value, else `fallback` (a create has no current value).
 *
 * @example valueAfter(body, 'comments', current?.comments, null)
 */
export function valueAfter<T>(body: object, property: string, current: T | undefined, fallback: T): T {
  if (sends(body, property)) return ((body as Record<string, unknown>)[property] ?? fallback) as T;
  return current ?? fallback;
}

/**
 * The entries of a list property that each name a `currency` (`prices`, `discount_amounts`),
 * each built by `build` with its currency upper-cased, once every currency is enabled for the
 * account and listed once: otherwise 400 invalid_input at `<property>[i].currency` (`conflict`
 * for a repeat).
 */
export function currencyEntries<E extends { currency: string }, R>(
  entries: readonly E[],
  property: string,
  enabled: readonly string[],
  build: (entry: E, currency: string) => R,
): R[] {
  const seen = new Set<string>();
  return entries.map((entry, index) => {
    const at = `${property}[${index}].currency`;
    const currency = entry.currency.toUpperCase();
    if (!enabled.includes(currency)) invalid(at, `The currency ${entry.currency} is not enabled for this account.`);
    if (seen.has(currency)) invalid(at, `The currency ${currency} is listed twice.`, 'conflict');
    seen.add(currency);
    return build(entry, currency);
  });
}
