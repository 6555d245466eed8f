/**
 * Making subscriptions (commerce.md §10.1): one per order item whose product has a plan, with
 * the order's customer and the saved card; the first period starts at order creation and its
 * charge is billing 1. Pure: the checkout writes the records in the order's transaction.
 */
import { derivedId } from '../../core/ids';
import { roundMoney } from '../../rest/money';
import type { RecordScope } from '../../store/entity';
import type { SubscriptionPlan } from '../catalog';
import { periodEnd } from './periods';
import type { SubscriptionRecord } from './records';

/** The id of the subscription an order item starts: derived, so a repeated completion names the same one. */
export function subscriptionIdFor(scope: RecordScope, orderId: string, itemId: string): string {
  return derivedId(`subscription:${scope.accountId}:${scope.mode}:${orderId}:${itemId}`);
}

/** What a subscription is made from: the order and its item as the checkout built them. */
export interface SubscriptionSource {
  orderId: string;
  paymentId: string;
  customerId: string;
  currency: string;
  paymentMethodId: string | null;
  item: { item_id: string; product_id: string; name: string; type: 'digital' | 'physical' | 'service'; quantity: number; price_original: number; tax_code: string | null; meta: unknown };
  plan: SubscriptionPlan;
  createdMs: number;
}

/** The new subscription of an order item (billing 1 already charged). */
export function newSubscription(scope: RecordScope, source: SubscriptionSource): SubscriptionRecord {
  const { plan, item, createdMs } = source;
  const end = periodEnd(createdMs, plan, 1);
  const done = plan.end_at_billing_count !== null && plan.end_at_billing_count <= 1;
  return {
    subscription_id: subscriptionIdFor(scope, source.orderId, item.item_id),
    account_id: scope.accountId,
    mode: scope.mode,
    status: 'active',
    customer_id: source.customerId,
    order_id: source.orderId,
    payment_method_id: source.paymentMethodId,
    currency: source.currency,
    reference_price: roundMoney(item.price_original * item.quantity, source.currency),
    billing_interval: plan.billing_interval,
    billing_interval_unit: plan.billing_interval_unit,
    end_at_billing_count: plan.end_at_billing_count,
    billing_count: 1,
    anchor_ms: createdMs,
    period_start_ms: createdMs,
    period_end_ms: end,
    next_billing_ms: done ? null : end,
    cancel_at_period_end: false,
    cancellation_reason: null,
    cancelled_ms: null,
    ended_ms: null,
    in_grace_period: false,
    failed_attempts: 0,
    retry_at_ms: null,
    item: { item_id: item.item_id, product_id: item.product_id, name: item.name, type: item.type, quantity: item.quantity, price: item.price_original, tax_code: item.tax_code, meta: structuredClone(item.meta ?? null) },
    order_ids: [source.orderId],
    payment_ids: [source.paymentId],
    meta: structuredClone(item.meta ?? null),
    created_ms: createdMs,
    modified_ms: createdMs,
  };
}
