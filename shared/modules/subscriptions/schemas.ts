/** Request bodies of the subscription endpoints (commerce.md §10.3), declared once: validation, types and OpenAPI. */
import { body, flag, idReference, meta, text, z } from '../../rest/fields';

/** `POST /subscriptions/{id}`: the saved method charged at renewal, `meta`, and un-cancelling (`cancel_at_current_period_end: false`). */
export const subscriptionUpdate = body({
  payment_method_id: idReference().optional(),
  meta: meta().optional(),
  cancel_at_current_period_end: flag().optional(),
});

/** `POST /subscriptions/{id}/cancel`: at the period end (default) or now, with an optional reason. */
export const subscriptionCancel = body({
  cancel_at_current_period_end: flag().optional(),
  cancellation_reason: text(500).optional(),
});

/** A subscription update as parsed. */
export type SubscriptionUpdateInput = z.output<typeof subscriptionUpdate>;
/** A cancel request as parsed. */
export type SubscriptionCancelInput = z.output<typeof subscriptionCancel>;
