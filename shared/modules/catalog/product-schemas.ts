/** Request bodies of `/products` (commerce.md §2), declared once: validation, types and OpenAPI. */
import { MAX_PRODUCT_IMAGES } from '../images';
import { body, decimal, priced, flag, list, meta, money, nested, oneOf, optionalClientId, requiredText, text, z } from '../../rest/fields';

/** Product types. */
export const PRODUCT_TYPES = ['digital', 'physical', 'service'] as const;

/** Billing interval units; `hour` only in test mode (checked by the operation). */
export const BILLING_UNITS = ['hour', 'day', 'week', 'month', 'year'] as const;

const priceEntry = priced(body({
  currency: z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a currency code') }).max(3, { error: 'must be a currency code' }),
  price: money(),
}), ['price']);

const subscriptionPlan = nested({
  billing_interval: decimal({ integer: true, min: 1, max: 365 }),
  billing_interval_unit: oneOf(BILLING_UNITS),
  end_at_billing_count: decimal({ integer: true, min: 1, max: 1_000_000 }).nullable().optional(),
});

/** `image_ids`: the listed images in order; null or `''` clears (duplicates and existence are the operation's). */
const imageIds = z
  .preprocess(
    (value) => (value === '' ? null : value),
    list(z.string({ error: 'must be an image id' }).min(1, { error: 'must be an image id' }).max(100, { error: 'must be an image id' }), MAX_PRODUCT_IMAGES).nullable(),
  )
  .transform((value) => value ?? []);

const writable = {
  image_ids: imageIds.optional(),
  headline: text(500).optional(),
  description: text(100_000).optional(),
  active: flag().optional(),
  hidden: flag().optional(),
  tax_code: text(100).optional(),
  subscription_plan: subscriptionPlan.optional(),
  license_service_id: text(100).optional(),
  meta: meta().optional(),
};

/** `POST /products`. */
export const productCreate = body({
  product_id: optionalClientId().optional(),
  name: requiredText(200),
  type: oneOf(PRODUCT_TYPES),
  prices: list(priceEntry, 50).min(1, { error: 'must list at least one price' }),
  ...writable,
});

/** `POST /products/{product_id}`: every property optional; `{"deleted": false}` restores. */
export const productUpdate = body({
  name: requiredText(200).optional(),
  type: oneOf(PRODUCT_TYPES).optional(),
  prices: list(priceEntry, 50).min(1, { error: 'must list at least one price' }).optional(),
  deleted: flag().optional(),
  ...writable,
});

/** A product body as parsed, create or update. */
export type ProductInput = z.output<typeof productUpdate> & { product_id?: string | null };
