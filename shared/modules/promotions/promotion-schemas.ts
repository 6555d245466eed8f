/** Request bodies of `/promotions` (commerce.md §11), declared once: validation, types and OpenAPI. */
import { body, priced, clientId, currencyCode, dateInput, decimal, flag, list, meta, money, oneOf, optionalClientId, reason, requiredText, z } from '../../rest/fields';
import { DISCOUNT_TYPES } from './discounts';

/** A promotion code: 1–50 characters from `A-Za-z0-9_-`, matched case-insensitively. */
export const PROMOTION_CODE = /^[A-Za-z0-9_-]{1,50}$/;

const MAX_PRODUCT_IDS = 1000;
const MAX_DISCOUNT_AMOUNTS = 200;

const promotionCode = z
  .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') })
  .min(1, { error: 'is required' })
  .max(50, { error: 'must be at most 50 characters' })
  .regex(PROMOTION_CODE, { error: 'must be 1 to 50 characters of A-Z, a-z, 0-9, "_" and "-"' });

/** A fixed discount per sale in one currency; whether the currency is enabled is checked by the operation. */
const discountAmount = priced(body({
  currency: currencyCode(),
  amount: money().refine((amount) => amount > 0, reason('out_of_range', 'must be greater than 0')),
}), ['amount']);

/**
 * Properties either operation may send. Both discount properties are accepted whatever the
 * type, so a whole promotion posted back validates; the operation keeps the one of its
 * `discount_type` and asks for it when it is missing.
 */
const writable = {
  type: z.literal('coupon', { error: 'must be coupon' }).nullable().optional(),
  discount_percent: decimal({ max: 1 })
    .refine((fraction) => fraction > 0, reason('out_of_range', 'must be a fraction greater than 0 and at most 1'))
    .nullable()
    .optional(),
  discount_amounts: list(discountAmount, MAX_DISCOUNT_AMOUNTS).nullable().optional(),
  active: flag().optional(),
  /** Eligible products (a repeated id counts once); empty or null means every product line. */
  product_ids: list(clientId(), MAX_PRODUCT_IDS)
    .transform((ids) => [...new Set(ids)])
    .nullable()
    .optional(),
  /** Resolved by the operation in the zone in effect; a date-only value means the end of that day. */
  expires: dateInput().optional(),
  max_uses: decimal({ integer: true, min: 1 }).nullable().optional(),
  meta: meta().optional(),
};

/** `POST /promotions`. */
export const promotionCreate = body({
  promotion_id: optionalClientId().optional(),
  name: requiredText(200),
  code: promotionCode,
  discount_type: oneOf(DISCOUNT_TYPES),
  ...writable,
});

/** `POST /promotions/{promotion_id}`: a partial update; `{"deleted": false}` restores. */
export const promotionUpdate = body({
  name: requiredText(200).optional(),
  code: promotionCode.optional(),
  discount_type: oneOf(DISCOUNT_TYPES).optional(),
  deleted: flag().optional(),
  ...writable,
});

/** A promotion body as parsed, create or update. */
export type PromotionInput = z.output<typeof promotionUpdate> & { promotion_id?: string | null };
