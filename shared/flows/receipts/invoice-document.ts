/**
 * An invoice (commerce.md §9) mapped onto the printable document: title `Invoice`, its number,
 * publication and due dates, its state, the sale customer, the lines and totals (§1.3, the same
 * line shape as orders), the payments so far and what remains. It reads the invoices module's
 * own document (`invoiceDocumentOf`, `readInvoiceDocument`), so nothing maps one onto the other;
 * `renderInvoicePdf(invoiceDocument(...))` is the one call a `GET /invoices/{id}` with
 * `Accept: application/pdf` needs.
 */
import type { InvoiceDocument } from '../../modules/invoices';
import { addressLines } from '../checkout/emails';
import type { PrintableDocument } from './printable-document';
import type { SellerFacts } from './order-receipt';

/** A completed payment toward the invoice. */
export interface InvoicePaymentFacts {
  payment_id: string;
  date_created_ms: number;
  total: number;
  /** The card's label (`Visa 4242`), never its number. */
  method_label: string | null;
}

/** §9.2's state in words. */
function stateOf(invoice: InvoiceDocument): string {
  if (invoice.state === 'paid') return 'Paid';
  if (invoice.state === 'cancelled') return 'Cancelled';
  if (invoice.state === 'draft') return 'Draft';
  return invoice.total_payments > 0 ? 'Open, partly paid' : 'Open';
}

/**
 * The printable form of an invoice.
 *
 * @example renderInvoicePdf(invoiceDocument(invoiceDocumentOf(invoice), payments, seller, { locale, zone }))
 */
export function invoiceDocument(
  invoice: InvoiceDocument,
  payments: readonly InvoicePaymentFacts[],
  seller: SellerFacts,
  rendering: { locale: string; zone: string },
): PrintableDocument {
  const { customer, totals, shipping } = invoice;
  const shipTo = customer.shipping_address ? addressLines(customer.shipping_address) : [];
  const support = [seller.support_email, seller.support_website].filter(Boolean).join(' · ');
  return {
    title: 'Invoice',
    number: invoice.invoice_id,
    test: invoice.mode === 'test',
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
    buyer: { name: customer.name, companyName: customer.company_name, email: customer.email, phone: customer.phone, taxNumber: customer.tax_number, address: customer.billing_address ? addressLines({ ...customer.billing_address, name: null }) : [] },
    shipTo: shipping && shipTo.length ? shipTo : null,
    lines: invoice.lines.map((item) => ({
      name: item.name,
      reference: item.product_id ?? item.item_id,
      quantity: item.quantity,
      unitPrice: item.price_original,
      discount: item.discount,
      taxRate: item.tax_rate,
      tax: item.tax,
      amount: item.subtotal,
    })),
    shipping: shipping ? { name: shipping.name, amount: shipping.subtotal, taxRate: shipping.tax_rate, tax: shipping.tax } : null,
    totals: {
      subtotalOriginal: totals.subtotal_original,
      discount: totals.discount,
      promotionCode: invoice.promotion_code,
      subtotal: totals.subtotal,
      shipping: totals.shipping,
      tax: totals.tax,
      taxInclusive: totals.tax_inclusive,
      total: totals.total,
    },
    payments: [...payments]
      .sort((a, b) => a.date_created_ms - b.date_created_ms)
      .map((payment) => ({ dateMs: payment.date_created_ms, method: payment.method_label ?? 'Card', reference: payment.payment_id, amount: payment.total })),
    refunds: [],
    balance:
      invoice.state === 'cancelled'
        ? []
        : [
            { label: 'Paid so far', amount: invoice.total_payments },
            { label: 'Remaining', amount: invoice.total_remaining, strong: true },
          ],
    licenses: [],
    footer: [support ? `Questions about this invoice? ${support}` : '', `Please mention invoice ${invoice.invoice_id}.`],
  };
}
