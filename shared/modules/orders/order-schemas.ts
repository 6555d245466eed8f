/** Request bodies of `/orders` (commerce.md §5.6), declared once: validation, types and OpenAPI. */
import { body, meta, text, z } from '../../rest/fields';

/** `POST /orders/{order_id}`: only `meta`, `referrer` and `affiliate_id` change; the rest is discarded. */
export const orderUpdate = body({
  meta: meta().optional(),
  referrer: text(200).optional(),
  affiliate_id: text(200).optional(),
});

/** `POST /orders/{order_id}/items/{item_id}`: only the item's `meta` changes. */
export const orderItemUpdate = body({
  meta: meta().optional(),
});

/** An order update as parsed. */
export type OrderInput = z.output<typeof orderUpdate>;
