/**
 * The request body of a refund (commerce.md §7), declared once: validation, types and OpenAPI.
 * Exactly one form: `items` (orders only), `total`, or neither (full). Whether the amounts fit
 * what is still refundable, and the precision of `total` in the payment's currency, are the
 * operation's (refund-amounts.ts): the body alone does not know the sale.
 */
import { body, flag, list, meta, money, quantity, requiredText, text, z } from '../../rest/fields';

/** One refunded line: an order item and how many of its units. */
const refundLine = body({ item_id: requiredText(100), quantity: quantity() });

/** `POST /orders/{order_id}/refunds` and `POST /payments/{payment_id}/refunds`. */
export const refundCreate = body({
  items: list(refundLine, 100).optional(),
  shipping: flag().optional(),
  total: money().nullable().optional(),
  reason: text(500).optional(),
  meta: meta().optional(),
}).superRefine((value, context) => {
  const byItems = value.items !== undefined || value.shipping === true;
  if (byItems && value.total !== undefined && value.total !== null) {
    context.addIssue({ code: 'custom', path: ['total'], message: 'Send items or total, not both.', params: { reason: 'conflict' } });
  }
});

/** A parsed refund request. */
export type RefundCreateInput = z.output<typeof refundCreate>;
