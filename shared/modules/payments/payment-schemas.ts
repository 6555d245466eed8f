/**
 * Request bodies of payments (commerce.md §4): `payment_method` with new-card data (§4.2), cart
 * and direct payments (§4.3) and payment updates (§4.6), declared once: validation, types and
 * OpenAPI.
 *
 * The schemas check shapes and types. What needs more than the body stays with the operations
 * and keeps its codes: the Luhn check and expiry of a new card (`newCard`, reason `expired`), a
 * saved `payment_method_id` of the sale's customer (reason `not_found`), an enabled currency,
 * whether a payment method is needed at all (a zero total needs none), amounts that disagree,
 * and computed totals over the money limit.
 */
import { addressInput } from '../../rest/addresses';
import { body, priced, decimal, flag, meta, money, nested, oneOf, reason, sentCurrencyCode, text, z } from '../../rest/fields';
import { saleCustomerInput } from '../customers';

/** A custom issue that names its reason (conventions.md §6). */
function issue(path: PropertyKey[], message: string, why: 'required' | 'invalid') {
  return { code: 'custom' as const, path, message, params: { reason: why } };
}

/**
 * A required card field: `schema`, with null and `''` read as missing (reason `required`), as
 * new cards always answered. Any other value that `schema` refuses reads `schema`'s message.
 */
function filled<T extends z.ZodType>(schema: T) {
  return z
    .union([z.null(), z.literal(''), schema], {
      error: (sent) => (sent.input === undefined ? 'is required' : sent.code === 'invalid_union' ? sent.errors.at(-1)?.[0]?.message : undefined),
    })
    .superRefine((value, context) => {
      if (value === null || value === '') context.addIssue(issue([], 'is required', 'required'));
    })
    .transform((value) => value as z.output<T>);
}

/** The card number: a string (strict, like every string but ids and codes, conventions.md §4); spaces and dashes removed; 12–19 digits. */
const cardNumber = filled(
  z
    .string({ error: 'must be a string of digits' })
    .transform((value) => value.replace(/[ -]/g, ''))
    .refine((digits) => /^\d{12,19}$/.test(digits), { message: 'must be a card number of 12 to 19 digits' }),
);

/** The expiry month: 1–12, a number or a plain decimal string (`"07"`). */
const expiryMonth = filled(
  decimal({ integer: true }).refine((month) => month >= 1 && month <= 12, reason('invalid', 'must be a month from 1 to 12')),
);

/** The expiry year: four digits, or two meaning 20xx (`30` and `"30"` are 2030). */
const expiryYear = filled(
  decimal({ integer: true })
    .refine((year) => (year >= 0 && year <= 99) || (year >= 1000 && year <= 9999), reason('invalid', 'must be a year of four digits, or two meaning 20xx'))
    .transform((year) => (year <= 99 ? 2000 + year : year)),
);

/** The security code: a string of 3 or 4 digits, kept as entered (`000` means something, §4.4). */
const securityCode = filled(z.string({ error: 'must be 3 or 4 digits' }).regex(/^\d{3,4}$/, { error: 'must be 3 or 4 digits' }));

/** `payment_method.data` of a new card (§4.2), and `data` of a saved method being created (§6.1). */
export const cardData = body({
  number: cardNumber,
  exp_month: expiryMonth,
  exp_year: expiryYear,
  cvv: securityCode,
  cardholder_name: text(100).optional(),
  billing_address: addressInput.optional(),
});

/** A parsed new card's data, before the Luhn and expiry checks of `newCard`. */
export type CardDataInput = z.output<typeof cardData>;

/** The writable expiry, name and address of a saved card (§6.1): every one optional. */
export const savedCardFields = {
  exp_month: expiryMonth.optional(),
  exp_year: expiryYear.optional(),
  cardholder_name: text(100).optional(),
  billing_address: addressInput.optional(),
};

/** A Stripe PaymentMethod made in the shopper's browser with Stripe.js (commerce.md §4.7). */
const cardToken = z
  .string({ error: 'must be a string' })
  .max(255, { error: 'must be at most 255 characters' })
  .regex(/^pm_[A-Za-z0-9_]+$/, { error: 'must be a Stripe PaymentMethod id (pm_…)' });

/** The fields a raw card needs when no `token` is sent. */
const RAW_CARD_FIELDS = ['number', 'exp_month', 'exp_year', 'cvv'] as const;

/**
 * `payment_method.data` of a payment: a new card (§4.2), or `{token: "pm_…"}` for Stripe
 * (§4.7). Without a token the card's fields are required, as they always were.
 */
export const paymentCardData = body({
  token: cardToken.optional(),
  number: cardNumber.optional(),
  exp_month: expiryMonth.optional(),
  exp_year: expiryYear.optional(),
  cvv: securityCode.optional(),
  cardholder_name: text(100).optional(),
  billing_address: addressInput.optional(),
}).superRefine((data, context) => {
  if (data.token !== undefined) return;
  for (const name of RAW_CARD_FIELDS) if (data[name] === undefined) context.addIssue(issue([name], 'is required', 'required'));
});

/** A parsed `payment_method.data` of a payment. */
export type PaymentCardDataInput = z.output<typeof paymentCardData>;

/**
 * `payment_method` of a payment (§4.2): a saved method by `payment_method_id`, or a new card in
 * `data` (required then). Whether it is needed at all is the operation's: zero totals need none.
 */
export const paymentMethodInput = nested({
  type: oneOf(['credit_card']).optional(),
  payment_method_id: text(100).optional(),
  save: flag().optional(),
  data: paymentCardData.nullable().optional(),
}).superRefine((method, context) => {
  if (method && !method.payment_method_id && !method.data) context.addIssue(issue(['data'], 'is required', 'required'));
});

/** A parsed `payment_method` (absent, null, or the sent method). */
export type PaymentMethodInput = z.output<typeof paymentMethodInput> | undefined;

/** `POST /carts/{cart_id}/payments` (§4.3): charges the cart's stored total. */
export const cartPaymentCreate = body({
  payment_method: paymentMethodInput.optional(),
  allow_duplicate: flag().optional(),
  meta: meta().optional(),
});

/** A parsed cart payment. */
export type CartPaymentInput = z.output<typeof cartPaymentCreate>;

/**
 * `POST /payments` (§4.3): a direct payment. Each amount is at most 999,999,999,999; the
 * operation checks that the parts agree with `total` and that the computed total stays in range.
 */
export const directPaymentCreate = priced(body({
  currency: sentCurrencyCode(),
  subtotal: money().nullable().optional(),
  shipping: money().nullable().optional(),
  tax: money().nullable().optional(),
  total: money().nullable().optional(),
  reference: text(200).optional(),
  description: text(1000).optional(),
  referrer: text(200).optional(),
  meta: meta().optional(),
  customer: saleCustomerInput.optional(),
  customer_id: text(100).optional(),
  payment_method: paymentMethodInput.optional(),
  allow_duplicate: flag().optional(),
}), ['subtotal', 'shipping', 'tax', 'total']);

/** A parsed direct payment. */
export type DirectPaymentInput = z.output<typeof directPaymentCreate>;

/** `POST /payments/{payment_id}` (§4.6): changes only `reference`, `description` and `meta`. */
export const paymentUpdate = body({
  reference: text(200).optional(),
  description: text(1000).optional(),
  meta: meta().optional(),
});

/** A parsed payment update. */
export type PaymentUpdateInput = z.output<typeof paymentUpdate>;
