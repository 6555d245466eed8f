/**
 * Request bodies of `/invoices` (commerce.md §9), declared once: validation, types and OpenAPI.
 * What a schema cannot know stays with the operations: whether a product exists, whether a
 * currency is enabled, a price's precision in the invoice currency, whether a code applies.
 */
import { saleCustomerInput } from '../customers';
import { body, dateInput, flag, idReference, list, meta, money, oneOf, optionalClientId, quantity, requiredText, sentCurrencyCode, text, z } from '../../rest/fields';
import { MAX_QUANTITY } from '../carts';

/** Most entries one `items` array may carry (as a cart's). */
export const MAX_INVOICE_ITEM_ENTRIES = 200;

/**
 * One `items[i]`: a product line `{product_id, quantity, meta, price?}` or a custom line
 * `{item_id?, name, type, price, quantity, meta}` (no `product_id`, defined here). Which one,
 * and what a custom line requires, the operation decides (`name`, `type` and `price` are
 * required there, with the entry's path).
 */
export const invoiceLine = body({
  product_id: idReference(100).nullable().optional(),
  item_id: optionalClientId().optional(),
  name: requiredText(200).optional(),
  type: oneOf(['digital', 'physical', 'service']).optional(),
  price: money().optional(),
  quantity: quantity(0, MAX_QUANTITY).optional(),
  meta: meta().optional(),
});

const invoiceShape = {
  draft: flag().optional(),
  date_due: dateInput().optional(),
  items: list(invoiceLine, MAX_INVOICE_ITEM_ENTRIES).nullable().optional(),
  currency: sentCurrencyCode().optional(),
  customer: saleCustomerInput.optional(),
  customer_id: text(100).optional(),
  promotion_code: text(200).optional(),
  shipping_method_id: text(100).optional(),
  meta: meta().optional(),
};

/** `POST /invoices`: every property optional (a draft may start empty). */
export const invoiceCreate = body(invoiceShape);

/** `POST /invoices/{invoice_id}`: the create fields, partially. */
export const invoiceUpdate = body(invoiceShape);

/** An invoice body as parsed, create or update. */
export type InvoiceInput = z.output<typeof invoiceUpdate>;

/** One parsed `items[i]`. */
export type InvoiceLineInput = z.output<typeof invoiceLine>;
