/**
 * The stored shape of a cart, shared by the carts capability (which writes it) and the
 * payments capability (which charges its stored totals and closes it when paid).
 */
import type { Dated } from '../../store/keys';
import type { SubscriptionPlan } from '../catalog';
import type { SaleCustomer } from '../customers';
import type { SaleTotals } from '../pricing';
import type { PromotionTerms } from '../promotions';
import type { ShippingMethodTerms } from '../shipping';
import type { ShippingQuote } from './options';

/** The inline sale customer: its shape is the customers module's, which also makes one from a saved customer. */
export type { SaleCustomer };

/** One stored cart line: what the client chose, plus the product facts it was priced from. */
export interface CartItemRecord {
  /** Equals `product_id`. */
  item_id: string;
  product_id: string;
  name: string;
  type: 'digital' | 'physical' | 'service';
  quantity: number;
  meta: unknown;
  tax_code: string | null;
  subscription_plan: SubscriptionPlan | null;
  /** Unit price in the cart currency before discounts, as priced at the last write. */
  unit_price_original: number;
}

/** A stored cart. */
export interface CartRecord extends Dated {
  cart_id: string;
  account_id: string;
  mode: 'live' | 'test';
  /** True until paid. */
  open: boolean;
  payment_status: 'unpaid' | 'completed';
  currency: string;
  customer: SaleCustomer;
  /** The linked saved customer's `tax_exempt` (false for guests). */
  customer_tax_exempt: boolean;
  items: CartItemRecord[];
  /** The selected quote's method (§3.3): the one chosen while quoted, else the cheapest, else null. */
  shipping_method_id: string | null;
  /**
   * The account's active shipping methods, read at the last write, so every re-price quotes
   * them (like `promotion_terms`). Absent on carts stored before shipping methods existed.
   */
  shipping_methods?: ShippingMethodTerms[];
  /** The quotes of the last pricing, cheapest first (§3.4). */
  shipping_quotes?: ShippingQuote[];
  /** The applied promotion's code, as the promotion spells it. */
  promotion_code: string | null;
  promotion_id: string | null;
  /**
   * The applied promotion's pricing terms, kept with the code so every re-price applies them
   * (refreshed from the promotion on cart writes while it is still usable). Absent on carts
   * stored before promotions existed.
   */
  promotion_terms?: PromotionTerms | null;
  referrer: string | null;
  affiliate_id: string | null;
  customer_ip_address: string | null;
  customer_ip_country: string | null;
  meta: unknown;
  /** The amounts shown to the client at the last write (commerce.md §1.3); payments charge these. */
  totals: SaleTotals;
  /** Set when paid. */
  order_id: string | null;
  /** While a payment runs the cart is locked (writes get 409 in_use); `until_ms` bounds a crashed run. */
  payment_lock: { payment_id: string; until_ms: number } | null;
}
