/** Request bodies of `/customers` and the customer sign-ins (commerce.md §6), declared once: validation, types and OpenAPI. */
import { addressInput } from '../../rest/addresses';
import { body, code, email, flag, languageTag, meta, nested, optionalClientId, orNull, reason, text, z } from '../../rest/fields';

/** Path words of `/customers` that cannot be customer ids (conventions.md §7). */
export const RESERVED_CUSTOMER_IDS = ['me', 'login'] as const;

const USERNAME = /^[^\s]+$/;

/** Password length limits, in characters (code points). */
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 128;

/** A new password: write-only, 8 to 128 characters; null leaves the password as it is. */
const password = z
  .string({ error: 'must be a string' })
  .refine((value) => [...value].length >= MIN_PASSWORD, reason('too_short', `must be at least ${MIN_PASSWORD} characters long`))
  .refine((value) => [...value].length <= MAX_PASSWORD, reason('too_long', `must be at most ${MAX_PASSWORD} characters long`))
  .nullable();

/** Writable customer properties; the read-only and unknown ones are discarded (conventions.md §15). */
const writable = {
  name: text(200).optional(),
  email: email().optional(),
  company_name: text(200).optional(),
  phone: code(50).optional(),
  tax_number: text(50).optional(),
  username: text(100)
    .refine((value) => value === null || USERNAME.test(value), { message: 'must be 1 to 100 characters without spaces' })
    .optional(),
  password: password.optional(),
  billing_address: addressInput.optional(),
  shipping_address: addressInput.optional(),
  tax_exempt: flag().optional(),
  locale: orNull(languageTag(35)).optional(),
  meta: meta().optional(),
};

/** `POST /customers`. */
export const customerCreate = body({
  customer_id: optionalClientId(RESERVED_CUSTOMER_IDS).optional(),
  ...writable,
});

/** `POST /customers/{customer_id}`: a partial update. */
export const customerUpdate = body(writable);

/** `POST /customers/me`: the signed-in customer's own partial update; `tax_exempt` is read-only for it. */
export const customerSelfUpdate = customerUpdate.omit({ tax_exempt: true });

/** A customer body as parsed, create or update. */
export type CustomerInput = z.output<typeof customerUpdate> & { customer_id?: string | null };

/**
 * A sign-in credential: a non-empty string. Longer than any stored username (100) or password
 * (128) cannot match, and past 1000 characters it is not even looked at.
 */
const credential = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .min(1, { error: 'is required' })
  .max(1000, { error: 'must be at most 1000 characters' })
  .nullable()
  .refine((value) => value !== null, reason('required', 'is required'))
  .transform((value) => value as string);

/** `POST /customers/login` and `POST /carts/{cart_id}/login`. */
export const customerLogin = body({ username: credential, password: credential });

/** What a sign-in sends, parsed. */
export type Credentials = z.output<typeof customerLogin>;

/**
 * The sale customer of a body (commerce.md §1.5): a cart's, merged property by property (null
 * clears the details), and a direct payment's payer (§4.3).
 */
export const saleCustomerInput = nested({
  customer_id: text(100).optional(),
  name: text(200).optional(),
  email: email().optional(),
  company_name: text(200).optional(),
  phone: code(50).optional(),
  tax_number: text(50).optional(),
  billing_address: addressInput.optional(),
  shipping_address: addressInput.optional(),
});

/** The parsed sale customer of a body (absent, null, or the sent properties). */
export type SaleCustomerInput = z.output<typeof saleCustomerInput> | undefined;
