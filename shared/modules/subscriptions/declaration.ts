/**
 * The subscription as the API shows it (commerce.md §10.1), and where it lists: `GET
 * /subscriptions` (cursor), under its customer (`customer.subscriptions`, offset), with its own
 * `orders` and `payments` offset sub-collections (the originating sale first, then renewals).
 */
import { declareResource } from '../../rest/declarations';
import { firstPageOf } from '../../rest/offset-list';
import type { RenderContext } from '../../rest/render-context';
import { orders } from '../orders';
import { payments } from '../payments';
import type { SubscriptionRecord } from './records';
import { findSubscription, subscriptionsOfCustomer } from './subscription-store';

/** The path of a subscription below the API root. */
export function subscriptionPath(subscriptionId: string): string {
  return `subscriptions/${encodeURIComponent(subscriptionId)}`;
}

/** The record scope of a render context. */
function scopeOf(context: RenderContext) {
  return { accountId: context.accountId, mode: context.mode };
}

/** The subscription's orders or payments (stored in the order the ids were recorded). */
async function listed(kind: 'orders' | 'payments', subscriptionId: string, context: RenderContext, parent?: unknown): Promise<{ records: unknown[]; totalItems: number }> {
  const subscription = (parent as SubscriptionRecord | undefined) ?? (await findSubscription(scopeOf(context), subscriptionId));
  if (!subscription) return firstPageOf([]);
  const ids = kind === 'orders' ? subscription.order_ids : subscription.payment_ids;
  return firstPageOf(await recordsByIds(kind, subscription, ids));
}

/** The orders or payments with `ids`, in that order (missing ones left out). */
export async function recordsByIds(kind: 'orders' | 'payments', subscription: Pick<SubscriptionRecord, 'account_id' | 'mode'>, ids: readonly string[]): Promise<unknown[]> {
  const scope = { accountId: subscription.account_id, mode: subscription.mode };
  const found: Map<string, unknown> = kind === 'orders' ? await orders.findMany(scope, ids) : await payments.findMany(scope, ids);
  return ids.map((id) => found.get(id)).filter((record) => record !== undefined);
}

/** The subscription declaration (REST conventions engine). */
export const subscriptionDeclaration = declareResource<SubscriptionRecord>({
  name: 'subscription',
  collection: 'subscriptions',
  idField: 'subscription_id',
  permission: 'subscriptions',
  scope: 'mode',
  links: { customer: 'customer', order: 'order' },
  subCollections: {
    orders: { resource: 'order', firstPage: (id, context, parent) => listed('orders', id, context, parent) },
    payments: { resource: 'payment', firstPage: (id, context, parent) => listed('payments', id, context, parent) },
  },
  // Customer scope reads its customer's subscriptions (commerce.md §0.1).
  customerOf: (subscription) => subscription.customer_id,
  // `customer.subscriptions` expands to the first page of GET /customers/{id}/subscriptions.
  listedUnder: { customer: async (customerId, context) => firstPageOf(await subscriptionsOfCustomer(scopeOf(context), customerId)) },
  formatted: {
    money: { reference_price: 'currency' },
    dates: ['date_current_period_start', 'date_current_period_end', 'date_next_billing', 'date_cancelled', 'date_ended', 'date_created', 'date_modified'],
    nested: { items: { money: { price: 'currency' } } },
  },
  idOf: (subscription) => subscription.subscription_id,
  toJson(subscription: SubscriptionRecord, context: RenderContext) {
    const url = context.url(subscriptionPath(subscription.subscription_id));
    const customerUrl = context.url(`customers/${encodeURIComponent(subscription.customer_id)}`);
    const { item } = subscription;
    return {
      object: 'subscription',
      url,
      subscription_id: subscription.subscription_id,
      account_id: subscription.account_id,
      test: subscription.mode === 'test',
      status: subscription.status,
      customer: customerUrl,
      order: context.url(`orders/${subscription.order_id}`),
      payment_method: subscription.payment_method_id ? `${customerUrl}/payment_methods/${encodeURIComponent(subscription.payment_method_id)}` : null,
      currency: subscription.currency,
      reference_price: subscription.reference_price,
      reference_currency: subscription.currency,
      billing_interval: subscription.billing_interval,
      billing_interval_unit: subscription.billing_interval_unit,
      end_at_billing_count: subscription.end_at_billing_count,
      billing_count: subscription.billing_count,
      date_current_period_start: context.date(subscription.period_start_ms),
      date_current_period_end: context.date(subscription.period_end_ms),
      date_next_billing: subscription.next_billing_ms === null ? null : context.date(subscription.next_billing_ms),
      cancel_at_current_period_end: subscription.cancel_at_period_end,
      cancellation_reason: subscription.cancellation_reason,
      date_cancelled: subscription.cancelled_ms === null ? null : context.date(subscription.cancelled_ms),
      date_ended: subscription.ended_ms === null ? null : context.date(subscription.ended_ms),
      in_grace_period: subscription.in_grace_period,
      items: [
        {
          item_id: item.item_id,
          product_id: item.product_id,
          name: item.name,
          quantity: item.quantity,
          price: item.price,
          currency: subscription.currency,
          product: context.url(`products/${encodeURIComponent(item.product_id)}`),
          meta: item.meta ?? null,
        },
      ],
      orders: `${url}/orders`,
      payments: `${url}/payments`,
      meta: subscription.meta ?? null,
      date_created: context.date(subscription.created_ms),
      date_modified: context.date(subscription.modified_ms),
    };
  },
});
