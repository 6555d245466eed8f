/** Request bodies of the shipment endpoints (commerce.md §8), declared once: validation, types and OpenAPI. */
import { body, dateInput, idReference, list, meta, quantity, reason, text, z } from '../../rest/fields';

/** A tracking link: an absolute http(s) URL (storefronts show it as a link), or null. */
const trackingUrl = text(2000).refine((value) => value === null || /^https?:\/\/[^\s/]+/i.test(value), reason('invalid', 'must be an absolute http or https URL'));

/** The writable tracking fields, on create and update. */
const tracking = {
  courier: text(200).optional(),
  tracking_number: text(200).optional(),
  tracking_url: trackingUrl.optional(),
  /** A timestamp or date shorthand (conventions.md §13), resolved in the zone in effect; default now. */
  date_shipped: dateInput().optional(),
  meta: meta().optional(),
};

/** The most lines one shipment names (an order has at most as many items). */
export const MAX_SHIPMENT_LINES = 500;

/** `POST /orders/{order_id}/shipments`: tracking fields and the quantities shipped (default: every unshipped physical unit). */
export const shipmentCreate = body({
  ...tracking,
  items: list(body({ item_id: idReference(), quantity: quantity() }), MAX_SHIPMENT_LINES)
    .min(1, { error: 'must have at least one entry' })
    .optional(),
});

/** `POST /shipments/{shipment_id}`: tracking fields, `date_shipped` and `meta`; the rest (items, order) is discarded. */
export const shipmentUpdate = body(tracking);

/** A shipment create as parsed. */
export type ShipmentCreateInput = z.output<typeof shipmentCreate>;
/** A shipment update as parsed. */
export type ShipmentUpdateInput = z.output<typeof shipmentUpdate>;
