/**
 * Request bodies of `/customers/{customer_id}/payment_methods` (commerce.md §6.1), declared
 * once: validation, types and OpenAPI. A new card's Luhn check and expiry, and a changed
 * expiry that has passed, are checked by the operations (reason `expired`).
 */
import { body, flag, oneOf, text, z } from '../../rest/fields';
import { paymentCardData, savedCardFields } from '../payments';

/** The one payment method type (§4.2). */
const methodType = oneOf(['credit_card']).optional();

/**
 * `POST /customers/{customer_id}/payment_methods`: `{type, is_default, data}`; `data` is a new
 * card (§4.2), or through a Stripe connection `{token: "pm_…"}` (§4.7).
 */
export const paymentMethodCreate = body({
  type: methodType,
  is_default: flag().nullable().optional(),
  data: paymentCardData.nullable().optional(),
}).superRefine((method, context) => {
  if (!method.data) context.addIssue({ code: 'custom', path: ['data'], message: 'is required', params: { reason: 'required' } });
});

/** A parsed saved-method creation. */
export type PaymentMethodCreateInput = z.output<typeof paymentMethodCreate>;

/** The number and CVV of a saved card never change: sending one is refused (reason `read_only`). */
const readOnly = z
  .unknown()
  .refine((value) => value === undefined, { message: 'cannot change on a saved payment method', params: { reason: 'read_only' } })
  .optional()
  .meta({ description: 'Read-only: a saved card keeps its number and never stores a CVV' });

/** What a change may set, in `data` or at the top level (`data` wins). */
const changeable = { ...savedCardFields, label: text(100).optional() };

/**
 * `POST /customers/{customer_id}/payment_methods/{payment_method_id}`: a partial update of
 * `is_default` and, in `data` (or at the top level), `exp_month`, `exp_year`,
 * `cardholder_name`, `label` and `billing_address` (§6.1).
 */
export const paymentMethodUpdate = body({
  data: body({ number: readOnly, cvv: readOnly, ...changeable }).nullable().optional(),
  type: methodType,
  ...changeable,
  is_default: flag().optional(),
});

/** A parsed saved-method change. */
export type PaymentMethodUpdateInput = z.output<typeof paymentMethodUpdate>;
