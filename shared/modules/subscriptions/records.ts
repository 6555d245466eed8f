/** The stored subscription (commerce.md §10.1): one per order line whose product has a plan. */
import type { Dated } from '../../store/keys';
import type { SubscriptionPlan } from '../catalog';

/** Subscription statuses (§10.4); `trial` is reserved. */
export type SubscriptionStatus = 'active' | 'cancelled' | 'completed' | 'trial';

/** The one item of a subscription (v1), with what a renewal line needs. */
export interface SubscriptionItem {
  item_id: string;
  product_id: string;
  name: string;
  type: 'digital' | 'physical' | 'service';
  quantity: number;
  /** Unit price before any discount (`price_original` at creation). */
  price: number;
  tax_code: string | null;
  meta: unknown;
}

/** A stored subscription. */
export interface SubscriptionRecord extends Dated {
  subscription_id: string;
  account_id: string;
  mode: 'live' | 'test';
  status: SubscriptionStatus;
  customer_id: string;
  /** The originating order. */
  order_id: string;
  payment_method_id: string | null;
  currency: string;
  /** `price_original × quantity` at creation: the undiscounted recurring subtotal. */
  reference_price: number;
  billing_interval: number;
  billing_interval_unit: SubscriptionPlan['billing_interval_unit'];
  end_at_billing_count: number | null;
  /** Successful charges so far (the initial charge is billing 1). */
  billing_count: number;
  /** The start of the first period: every period boundary is computed from it (periods.ts). */
  anchor_ms: number;
  period_start_ms: number;
  period_end_ms: number;
  next_billing_ms: number | null;
  cancel_at_period_end: boolean;
  cancellation_reason: string | null;
  cancelled_ms: number | null;
  ended_ms: number | null;
  in_grace_period: boolean;
  /** Failed attempts at the next billing so far (0 outside the grace period). */
  failed_attempts: number;
  /** The next retry while in the grace period (also kept while a cancellation is pending, for un-cancelling), else null. */
  retry_at_ms: number | null;
  item: SubscriptionItem;
  /** Orders of the subscription (the originating one first), for `/subscriptions/{id}/orders`. */
  order_ids: string[];
  /** Payments of the subscription (the initial one first, failed renewals included). */
  payment_ids: string[];
  meta: unknown;
}
