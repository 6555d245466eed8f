/**
 * An invoice (commerce.md §9) mapped onto the printable document: title `Invoice`, its number,
 * publication and due dates, its state, the sale customer, the lines and totals (§1.3, the same
 * line shape as orders), the payments so far and what remains. The input names the invoice's
 * fields as the contract does, so the invoices module's record (or its rendered JSON, with dates
 * as epoch milliseconds) maps onto it field by field; `renderInvoicePdf(invoiceDocument(...))` is
 * the one call a `GET /invoices/{id}` with `Accept: application/pdf` needs.
 */
import { addressLines, type ConfirmationAddress } from '../checkout/emails';
import type { PrintableDocument } from './printable-document';
import type { SellerFacts } from './order-receipt';

/** One invoice line (a product line or a custom line), amounts as stored. */
export interface InvoiceLineFacts {
  item_id: string;
  product_id: string | null;
  name: string;
  quantity: number;
  price_original: number;
  discount: number;
  tax_rate: number;
  tax: number;
  subtotal: number;
}

/** The invoice fields a printed invoice shows (commerce.md §9), dates as epoch milliseconds. */
export interface InvoiceFacts {
  invoice_id: string;
  test: boolean;
  draft: boolean;
  payment_status: 'unpaid' | 'completed' | 'cancelled';
  date_created_ms: number;
  date_published_ms: number | null;
  date_due_ms: number | null;
  currency: string;
  customer: {
    name: string | null;
    email: string | null;
    company_name: string | null;
    phone: string | null;
    tax_number: string | null;
    billing_address: ConfirmationAddress | null;
    shipping_address: ConfirmationAddress | null;
  } | null;
  items: readonly InvoiceLineFacts[];
  shipping_item: { name: string; subtotal: number; tax_rate: number; tax: number } | null;
  promotion_code: string | null;
  subtotal: number;
  subtotal_original: number;
  discount: number;
  shipping: number;
  tax: number;
  total: number;
  tax_inclusive: boolean;
  total_payments: number;
  total_remaining: number;
}

/** A completed payment toward the invoice. */
export interface InvoicePaymentFacts {
  payment_id: string;
  date_created_ms: number;
  total: number;
  /** The card's label (`Visa 4242`), never its number. */
  method_label: string | null;
}

/** §9.2's state in words. */
function stateOf(invoice: InvoiceFacts): string {
  if (invoice.payment_status === 'completed') return 'Paid';
  if (invoice.payment_status === 'cancelled') return 'Cancelled';
  if (invoice.draft) return 'Draft';
  return invoice.total_payments > 0 ? 'Open, partly paid' : 'Open';
}

/**
 * The printable form of an invoice.
 *
 * @example renderInvoicePdf(invoiceDocument(facts, payments, seller, { locale, zone }))
 */
export function invoiceDocument(
  invoice: InvoiceFacts,
  payments: readonly InvoicePaymentFacts[],
  seller: SellerFacts,
  rendering: { locale: string; zone: string },
): PrintableDocument {
  const customer = invoice.customer;
  const shipTo = customer?.shipping_address ? addressLines(customer.shipping_address) : [];
  const support = [seller.support_email, seller.support_website].filter(Boolean).join(' · ');
  return {
    title: 'Invoice',
    number: invoice.invoice_id,
    test: invoice.test,
    currency: invoice.currency,
    locale: rendering.locale,
    zone: rendering.zone,
    dates: [
      { label: 'Date', dateMs: invoice.date_published_ms ?? invoice.date_created_ms },
      { label: 'Due', dateMs: invoice.date_due_ms },
    ],
    facts: [
      { label: 'Status', value: stateOf(invoice) },
      ...(invoice.promotion_code ? [{ label: 'Promotion', value: invoice.promotion_code }] : []),
    ],
    seller: { name: seller.company_name, email: seller.support_email, website: seller.support_website },
    buyer: customer
      ? { name: customer.name, companyName: customer.company_name, email: customer.email, phone: customer.phone, taxNumber: customer.tax_number, address: customer.billing_address ? addressLines({ ...customer.billing_address, name: null }) : [] }
      : null,
    shipTo: invoice.shipping_item && shipTo.length ? shipTo : null,
    lines: invoice.items.map((item) => ({
      name: item.name,
      reference: item.product_id ?? item.item_id,
      quantity: item.quantity,
      unitPrice: item.price_original,
      discount: item.discount,
      taxRate: item.tax_rate,
      tax: item.tax,
      amount: item.subtotal,
    })),
    shipping: invoice.shipping_item ? { name: invoice.shipping_item.name, amount: invoice.shipping_item.subtotal, taxRate: invoice.shipping_item.tax_rate, tax: invoice.shipping_item.tax } : null,
    totals: {
      subtotalOriginal: invoice.subtotal_original,
      discount: invoice.discount,
      promotionCode: invoice.promotion_code,
      subtotal: invoice.subtotal,
      shipping: invoice.shipping,
      tax: invoice.tax,
      taxInclusive: invoice.tax_inclusive,
      total: invoice.total,
    },
    payments: [...payments]
      .sort((a, b) => a.date_created_ms - b.date_created_ms)
      .map((payment) => ({ dateMs: payment.date_created_ms, method: payment.method_label ?? 'Card', reference: payment.payment_id, amount: payment.total })),
    refunds: [],
    balance:
      invoice.payment_status === 'cancelled'
        ? []
        : [
            { label: 'Paid so far', amount: invoice.total_payments },
            { label: 'Remaining', amount: invoice.total_remaining, strong: true },
          ],
    licenses: [],
    footer: [support ? `Questions about this invoice? ${support}` : '', `Please mention invoice ${invoice.invoice_id}.`],
  };
}
