/**
 * The stored shape of an invoice (commerce.md §9): a sale like a cart (one line shape, the same
 * pricing, the same payment lock), plus its publishing state, custom lines and price overrides.
 */
import type { Dated } from '../../store/keys';
import type { SubscriptionPlan } from '../catalog';
import type { SaleCustomer } from '../customers';
import type { SaleTotals } from '../pricing';
import type { PromotionTerms } from '../promotions';
import type { ShippingMethodTerms } from '../shipping';
import type { ShippingQuote } from '../carts';

/** One stored invoice line: a product line (`product_id` set) or a custom line (`product_id` null, defined here). */
export interface InvoiceItemRecord {
  /** A product line's equals its `product_id`; a custom line's is chosen or generated. */
  item_id: string;
  product_id: string | null;
  name: string;
  type: 'digital' | 'physical' | 'service';
  quantity: number;
  meta: unknown;
  tax_code: string | null;
  subscription_plan: SubscriptionPlan | null;
  /** Unit price in the invoice currency before discounts, as priced at the last write. */
  unit_price_original: number;
  /**
   * A price set by the invoice rather than the catalog: a product line's override (§9, shown as
   * `reference_price`/`reference_currency`) or a custom line's price, in `reference_currency`.
   * A currency change converts it (§1.1); null: the catalog price.
   */
  reference_price: number | null;
  reference_currency: string | null;
}

/** The states of §9.2, as `draft`, `open` and `payment_status` spell them. */
export type InvoiceState = 'draft' | 'open' | 'paid' | 'cancelled';

/** A stored invoice. */
export interface InvoiceRecord extends Dated {
  invoice_id: string;
  account_id: string;
  mode: 'live' | 'test';
  draft: boolean;
  /** True only while published and unpaid. */
  open: boolean;
  payment_status: 'unpaid' | 'completed' | 'cancelled';
  date_due_ms: number | null;
  date_published_ms: number | null;
  currency: string;
  customer: SaleCustomer;
  /** The linked saved customer's `tax_exempt` (false for guests). */
  customer_tax_exempt: boolean;
  items: InvoiceItemRecord[];
  shipping_method_id: string | null;
  shipping_methods?: ShippingMethodTerms[];
  shipping_quotes?: ShippingQuote[];
  promotion_code: string | null;
  promotion_id: string | null;
  promotion_terms?: PromotionTerms | null;
  /** Invoices have no storefront origin; kept null so the order copies them as a cart's (§5.1). */
  referrer: string | null;
  affiliate_id: string | null;
  customer_ip_address: string | null;
  customer_ip_country: string | null;
  meta: unknown;
  /** The amounts of the last write (§1.3); a payment charges `total − total_payments`. */
  totals: SaleTotals;
  /** Sum of completed payments (§9). */
  total_payments: number;
  /** Set when paid. */
  order_id: string | null;
  /** While a payment runs the invoice is locked (as a cart is); `until_ms` bounds a crashed run. */
  payment_lock: { payment_id: string; until_ms: number } | null;
}

/** The state an invoice is in (§9.2). */
export function invoiceState(invoice: Pick<InvoiceRecord, 'draft' | 'payment_status'>): InvoiceState {
  if (invoice.payment_status === 'completed') return 'paid';
  if (invoice.payment_status === 'cancelled') return 'cancelled';
  return invoice.draft ? 'draft' : 'open';
}
