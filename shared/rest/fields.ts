/**
 * The building blocks of request-body schemas (conventions.md §4, §7, §15, §20), on zod 4.
 *
 * Every body property the API accepts is declared with these, once per resource and
 * operation; the same declaration validates the request, types the parsed body and becomes
 * the OpenAPI description (`./openapi`). The storefront tolerance lives here and nowhere
 * else: a plain decimal string is a number, a number is a string where the field is an id or
 * code; booleans stay strict. So do the limits: money magnitude, quantities, `meta` size and
 * depth.
 *
 * Messages are phrases ("must be a number"); `./validate` prefixes the property path.
 */
import { z } from 'zod';
import { isDateInput } from './dates';
import { isCountryCode } from './formatted';
import { isCurrencyCode, minorUnits, roundMoney } from './money';

/** A string that is exactly a plain decimal number: optional minus, digits, optional fraction. */
export const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/** The largest money amount, in the currency's major unit (conventions.md §20). */
export const MAX_MONEY = 999_999_999_999;

/** The largest quantity of a line (conventions.md §20). */
export const MAX_QUANTITY = 1_000_000;

/** Deepest nesting of a `meta` value (conventions.md §20). */
export const MAX_META_DEPTH = 32;

/** Longest compact JSON text of a `meta` value (conventions.md §15). */
export const MAX_META_CHARS = 2048;

/** A failure reason carried to the error's `meta.reason` (conventions.md §6). */
export type Reason = 'required' | 'invalid' | 'too_long' | 'too_short' | 'out_of_range' | 'not_allowed' | 'conflict' | 'precision';

/** zod's `params` for a refinement, carrying our reason. */
export function reason(value: Reason, message: string): { message: string; params: { reason: Reason } } {
  return { message, params: { reason: value } };
}

interface NumberRules {
  min?: number;
  max?: number;
  integer?: boolean;
}

function numberOf(rules: NumberRules) {
  let number = z.number({ error: 'must be a number' });
  if (rules.integer) number = number.int({ error: 'must be an integer' });
  if (rules.min !== undefined) number = number.min(rules.min, { error: rangeMessage(rules) });
  if (rules.max !== undefined) number = number.max(rules.max, { error: rangeMessage(rules) });
  return number;
}

function rangeMessage(rules: NumberRules): string {
  if (rules.min !== undefined && rules.max !== undefined) return `must be between ${rules.min} and ${rules.max}`;
  if (rules.min !== undefined) return `must be at least ${rules.min}`;
  return `must be at most ${rules.max}`;
}

/**
 * A number: a JSON number, or a string that is exactly a plain decimal (`"2"`, `"19.99"`,
 * `"-1"`), converted; then the rules apply as to a number. `"1 "`, `"1e3"`, `"two"`, `[]`
 * and `{}` are refused.
 *
 * @example decimal({ integer: true, min: 1, max: 365 })
 */
export function decimal(rules: NumberRules = {}) {
  const accepted = rules.integer ? 'an integer' : 'a number';
  return z
    .union([z.number(), z.string().regex(PLAIN_DECIMAL, { error: `must be ${accepted}` })], { error: `must be ${accepted}` })
    .transform((value) => (typeof value === 'string' ? Number(value) : value))
    .pipe(numberOf(rules));
}

/** A money amount: at least `min` (default 0), at most 999,999,999,999. */
export function money(min = 0) {
  return decimal({ min, max: MAX_MONEY });
}

/**
 * Refuses amounts with more decimals than their currency's minor units (commerce.md §1.2:
 * `19.999` USD is 400 `invalid_input`, reason `precision`; nothing is rounded on the way in).
 * `object` holds the currency under `currency` and the amounts under `amounts`; an unknown or
 * malformed currency is left to the currency's own check, an absent or null amount to its own.
 *
 * @example priced(body({ currency: currencyCode(), price: money() }), ['price'])
 */
export function priced<T extends z.ZodType<Record<string, unknown>>>(object: T, amounts: readonly string[]) {
  return object.superRefine((value, context) => {
    const currency = value.currency;
    if (typeof currency !== 'string' || !isCurrencyCode(currency)) return;
    for (const name of amounts) {
      const amount = value[name];
      if (typeof amount !== 'number' || roundMoney(amount, currency) === amount) continue;
      const digits = minorUnits(currency);
      context.addIssue({
        code: 'custom',
        path: [name],
        message: `must have at most ${digits} decimal${digits === 1 ? '' : 's'} for ${currency.toUpperCase()}`,
        params: { reason: 'precision' },
      });
    }
  });
}

/** A line quantity: an integer from `min` to `max` (conventions.md §20: 1–1,000,000). */
export function quantity(min = 1, max = MAX_QUANTITY) {
  return decimal({ integer: true, min, max });
}

/** A JSON boolean; nothing else is true or false. */
export function flag() {
  return z.boolean({ error: 'must be true or false' });
}

/** C0 control characters other than tab, line feed and carriage return, and DEL. */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** Refuses control characters in a text: they are never part of a name, address or code. */
const printable = reason('invalid', 'must not contain control characters');

/** An optional text: a string of at most `max` characters, `''` and null stored as null. */
export function text(max: number) {
  return z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((value) => !CONTROL_CHARACTERS.test(value), printable)
    .nullable()
    .transform((value) => (value === '' ? null : value));
}

/** A required text: a non-blank string of at most `max` characters; null is "required" too. */
export function requiredText(max: number) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((value) => !CONTROL_CHARACTERS.test(value), printable)
    .refine((value) => value.trim() !== '', reason('required', 'must not be blank'))
    .nullable()
    .refine((value) => value !== null, reason('required', 'is required'))
    .transform((value) => value as string);
}

/**
 * An optional value of `schema`: `''` and null are null (conventions.md §15), anything else
 * must pass `schema`, whose own messages are reported.
 *
 * @example orNull(currencyCode())
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' ? null : value), schema.nullable());
}

/**
 * An optional id or code that clients may send as a number (`postal_code`, `phone`): a string,
 * or a number converted to its decimal string; `''` and null are null.
 */
export function code(max: number) {
  return z
    .union([z.string(), z.number()], { error: 'must be a string' })
    .transform((value) => (typeof value === 'number' ? String(value) : value))
    .pipe(z.string().max(max, { error: `must be at most ${max} characters` }))
    .nullable()
    .transform((value) => (value === '' ? null : value));
}

/** A required id that clients may send as a number (`product_id` in a line). */
export function idReference(max = 100) {
  return z
    .union([z.string(), z.number()], { error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') })
    .transform((value) => (typeof value === 'number' ? String(value) : value))
    .pipe(z.string().min(1, { error: 'is required' }).max(max, { error: `must be at most ${max} characters` }));
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An optional email address (`''` and null are null). */
export function email() {
  return text(254).refine((value) => value === null || EMAIL.test(value), { message: 'must be a valid email address' });
}

/** One of fixed words. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(', ')}` });
}

const CURRENCY_MESSAGE = 'must be an ISO 4217 currency code such as USD';

/**
 * A currency code as sent: a non-empty string (`null` and `''` read as missing). Case and
 * whether the account enables it are the operation's (commerce.md §1.1).
 */
export function sentCurrencyCode() {
  return z
    .string({ error: 'must be a currency code' })
    .nullable()
    .refine((value) => value !== null && value !== '', reason('required', 'is required'))
    .transform((value) => value as string);
}

/** An ISO 4217 currency code, any letter case in, uppercase out. Whether it is enabled is the operation's business. */
export function currencyCode() {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : CURRENCY_MESSAGE) })
    .refine((value) => value !== '', reason('required', 'is required'))
    .refine((value) => value === '' || isCurrencyCode(value), { message: CURRENCY_MESSAGE })
    .transform((value) => value.toUpperCase());
}

const COUNTRY_MESSAGE = 'must be an ISO 3166-1 alpha-2 country code such as US';

/** An ISO 3166-1 alpha-2 country code, any letter case in, uppercase out. */
export function countryCode() {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : COUNTRY_MESSAGE) })
    .refine((value) => value !== '', reason('required', 'is required'))
    .refine((value) => value === '' || isCountryCode(value), { message: COUNTRY_MESSAGE })
    .transform((value) => value.toUpperCase());
}

/** The canonical form of one BCP 47 language tag (`en-us` → `en-US`), or undefined. */
function canonicalTag(value: string): string | undefined {
  try {
    const [tag, ...more] = Intl.getCanonicalLocales(value);
    return more.length === 0 ? tag : undefined;
  } catch {
    return undefined; // RangeError: not a well-formed tag
  }
}

const TAG_MESSAGE = 'must be a BCP 47 language tag such as en-US';

/** A BCP 47 language tag of at most `max` characters, stored canonical (`en-us` → `en-US`). */
export function languageTag(max = 64) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : TAG_MESSAGE) })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((value) => canonicalTag(value) !== undefined, { message: TAG_MESSAGE })
    .transform((value) => canonicalTag(value)!);
}

const DATE_MESSAGE = 'must be an ISO 8601 date or time, or a date shorthand such as today or -7';

/**
 * An optional date input (conventions.md §13): an ISO 8601 value or a shorthand, checked for
 * form here; `''` and null are null. The operation resolves it in the zone in effect, with
 * the edge the property needs (`parseDateInput`), since both depend on the request.
 */
export function dateInput() {
  return orNull(z.string({ error: DATE_MESSAGE }).refine(isDateInput, { message: DATE_MESSAGE }));
}

/** Nesting depth of a JSON value (a scalar is 0, `{}` and `[]` are 1), counted without recursion. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * `meta` (conventions.md §15, §20): a string, number, object, array or null; at most 2048
 * characters of compact JSON and 32 levels deep. Never interpreted.
 */
export function meta() {
  return z
    .unknown()
    .refine((value) => typeof value !== 'boolean', { message: 'must be a string, number, object or array' })
    .refine((value) => jsonDepth(value) <= MAX_META_DEPTH, reason('too_long', `must be nested at most ${MAX_META_DEPTH} levels deep`))
    .refine((value) => value === undefined || JSON.stringify(value).length <= MAX_META_CHARS, reason('too_long', `must be at most ${MAX_META_CHARS} characters of JSON`))
    .transform((value) => value ?? null)
    .meta({ description: `Any JSON value but a boolean; at most ${MAX_META_CHARS} characters of compact JSON, ${MAX_META_DEPTH} levels deep` });
}

const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A client-chosen id (conventions.md §7); `reserved` are literal path words of the collection. */
export function clientId(reserved: readonly string[] = []) {
  return z
    .string({ error: 'must be a string' })
    .regex(CLIENT_ID, { error: 'must be 1 to 100 characters of A-Z, a-z, 0-9, ".", "_" and "-", starting with a letter or digit' })
    .refine((value) => !reserved.includes(value), reason('not_allowed', 'is a reserved word'));
}

/** An optional client-chosen id: absent, null or `''` means "generate one". */
export function optionalClientId(reserved: readonly string[] = []) {
  return z
    .union([z.literal(''), z.null(), clientId(reserved)], { error: 'must be a string' })
    .transform((value) => (value === '' ? null : value));
}

/**
 * An object whose keys the client chooses (conventions.md "Free-form objects"): every own key,
 * `__proto__`, `constructor`, `prototype` and `toString` included, comes out as an own data
 * property, and each value is parsed by `value` (an issue names its key). zod's `z.record`
 * assigns keys one by one, so a `__proto__` key vanished there, or replaced the prototype.
 *
 * @example freeRecord(z.string(), 'must be an object of strings')
 */
export function freeRecord<V extends z.ZodType>(value: V, message = 'must be an object') {
  return z.unknown().transform((input, context): Record<string, z.output<V>> => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      context.addIssue({ code: 'custom', message, params: { reason: 'invalid' } });
      return z.NEVER;
    }
    const entries: Array<[string, z.output<V>]> = [];
    let failed = false;
    for (const [key, raw] of Object.entries(input)) {
      const parsed = value.safeParse(raw);
      if (parsed.success) entries.push([key, parsed.data]);
      else {
        failed = true;
        for (const issue of parsed.error.issues) context.addIssue({ ...issue, path: [key, ...issue.path] } as Parameters<typeof context.addIssue>[0]);
      }
    }
    // fromEntries defines each key as an own property; an assignment would not.
    return failed ? z.NEVER : Object.fromEntries(entries);
  });
}

/** A body object: unknown properties are silently discarded (conventions.md §15). */
export function body<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object(shape, { error: 'must be an object' });
}

/** A nested object that may be sent as null (addresses, `customer`, `subscription_plan`). */
export function nested<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object(shape, { error: 'must be an object' }).nullable();
}

/** An array of at most `max` entries. */
export function list<T extends z.ZodType>(entry: T, max: number) {
  return z.array(entry, { error: 'must be an array' }).max(max, { error: `must have at most ${max} entries` });
}

export { z };
