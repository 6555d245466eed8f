/**
 * Reading an invoice as a document: what a printable invoice (`Accept: application/pdf` on
 * `GET /invoices/{id}`, conventions.md §4) draws, in one plain call with no HTTP and no rendering.
 */
import type { RecordScope } from '../../store/records';
import type { SaleCustomer } from '../customers';
import type { SaleLineTotals, ShippingLineTotals } from '../pricing';
import { totalRemaining } from './declaration';
import { invoices } from './invoice-store';
import { invoiceState, type InvoiceItemRecord, type InvoiceRecord, type InvoiceState } from './records';

/** One line of the document: the stored line with its priced amounts. */
export interface InvoiceDocumentLine extends Omit<SaleLineTotals, 'product_id'> {
  /** Null for a custom line. */
  product_id: string | null;
  reference_price: number | null;
  reference_currency: string | null;
  meta: unknown;
}

/** An invoice with its lines and totals, as a document shows it. */
export interface InvoiceDocument {
  invoice_id: string;
  mode: 'live' | 'test';
  state: InvoiceState;
  currency: string;
  customer: SaleCustomer;
  date_created_ms: number;
  date_published_ms: number | null;
  date_due_ms: number | null;
  lines: InvoiceDocumentLine[];
  shipping: ShippingLineTotals | null;
  promotion_code: string | null;
  totals: Omit<InvoiceRecord['totals'], 'items' | 'shipping_item'>;
  total_payments: number;
  total_remaining: number;
  order_id: string | null;
  meta: unknown;
}

/** The document of a stored invoice (pure). */
export function invoiceDocumentOf(invoice: InvoiceRecord): InvoiceDocument {
  const stored = new Map<string, InvoiceItemRecord>(invoice.items.map((item) => [item.item_id, item]));
  const { items, shipping_item, ...totals } = invoice.totals;
  return {
    invoice_id: invoice.invoice_id,
    mode: invoice.mode,
    state: invoiceState(invoice),
    currency: invoice.currency,
    customer: invoice.customer,
    date_created_ms: invoice.created_ms,
    date_published_ms: invoice.date_published_ms,
    date_due_ms: invoice.date_due_ms,
    lines: items.map((line) => {
      const item = stored.get(line.item_id);
      return {
        ...line,
        product_id: item?.product_id ?? null,
        reference_price: item?.product_id ? item.reference_price : null,
        reference_currency: item?.product_id ? item.reference_currency : null,
        meta: item?.meta ?? null,
      };
    }),
    shipping: shipping_item,
    promotion_code: invoice.promotion_code,
    totals,
    total_payments: invoice.total_payments,
    total_remaining: totalRemaining(invoice),
    order_id: invoice.order_id,
    meta: invoice.meta ?? null,
  };
}

/**
 * Reads an invoice with its lines and totals (404 when missing, 400 token_type_mismatch when it
 * is in the other mode). The caller checks the reader's reach first, as `GET /invoices/{id}` does.
 *
 * @example const document = await readInvoiceDocument({ accountId, mode: 'test' }, invoiceId);
 */
export async function readInvoiceDocument(scope: RecordScope, invoiceId: string): Promise<InvoiceDocument> {
  return invoiceDocumentOf(await invoices.get(scope, invoiceId));
}
