/**
 * The subscriptions a completed sale starts (commerce.md §5.1 step 4, §10.1), as entries of the
 * order's completing transaction: one subscription per order item whose product has a plan,
 * its first renewal made due (due work, shared/work) at the end of the first period, the card
 * saved on the customer when it was a new one (§4.2: always saved for a subscription sale), and
 * `subscription:created` for each. Ids derive from the order and item (and the saved method's
 * from the payment), so a completion finished by recovery writes the same records once.
 */
import { derivedId } from '../../core/ids';
import type { RecordScope } from '../../store/entity';
import type { TransactEntry } from '../../store/transact';
import { dueEntry } from '../../work/due-work-store';
import type { SubscriptionPlan } from '../../modules/catalog';
import { eventEntries } from '../../modules/events';
import type { OrderRecord } from '../../modules/orders';
import type { PaymentRecord } from '../../modules/payments';
import { createPaymentMethodEntry, savedMethodRecord } from '../../modules/payment-methods';
import type { SavedCardRef } from '../../platform/ports';
import { createSubscriptionEntry, newSubscription, RENEWAL_KIND, type SubscriptionRecord } from '../../modules/subscriptions';

/** What a sale's subscriptions add to its completion. */
export interface SaleSubscriptions {
  /** The order with each subscription item naming its subscription. */
  order: OrderRecord;
  /** The payment with the saved method's id (when the card was saved here) and without the kept card. */
  payment: PaymentRecord;
  subscriptions: SubscriptionRecord[];
  entries: TransactEntry[];
  /** The reach a paying limited token gains (its receipt page reads them, §0.1). */
  reachPaths: string[];
}

/**
 * The subscriptions of `order` (paid by `payment`) for customer `customerId`; `newCustomer`:
 * the customer is made by this completion (a saved card is then its default).
 */
export function saleSubscriptions(scope: RecordScope, order: OrderRecord, payment: PaymentRecord, customerId: string, newCustomer: boolean, now: number): SaleSubscriptions {
  const planned = order.items.filter((item) => item.subscription_plan);
  const kept = { ...payment };
  delete kept.saved_card;
  if (!planned.length) return { order, payment: kept, subscriptions: [], entries: [], reachPaths: [] };
  const entries: TransactEntry[] = [];
  let paymentMethodId = payment.payment_method?.payment_method_id ?? null;
  const card = paymentMethodId ? undefined : cardToSave(payment);
  if (card && kept.payment_method) {
    paymentMethodId = derivedId(`payment-method:${scope.accountId}:${scope.mode}:${payment.payment_id}`);
    entries.push(createPaymentMethodEntry(savedMethodRecord(scope, customerId, card, newCustomer, now, paymentMethodId)));
    kept.payment_method = { ...kept.payment_method, payment_method_id: paymentMethodId };
  }
  const subscriptions = planned.map((item) =>
    newSubscription(scope, {
      orderId: order.order_id,
      paymentId: payment.payment_id,
      customerId,
      currency: order.totals.currency,
      paymentMethodId,
      item: { ...item, meta: item.meta },
      plan: item.subscription_plan as SubscriptionPlan,
      createdMs: now,
    }),
  );
  const byItem = new Map(subscriptions.map((subscription) => [subscription.item.item_id, subscription.subscription_id]));
  const withLinks: OrderRecord = { ...order, items: order.items.map((item) => (byItem.has(item.item_id) ? { ...item, subscription_id: byItem.get(item.item_id)! } : item)) };
  for (const subscription of subscriptions) {
    entries.push(createSubscriptionEntry(subscription));
    // The next billing, or (a plan of one charge) the period end that completes it.
    entries.push(dueEntry(RENEWAL_KIND, scope, subscription.subscription_id, subscription.next_billing_ms ?? subscription.period_end_ms, now));
  }
  entries.push(...eventEntries(scope, subscriptions.map((subscription) => ({ type: 'subscription:created' as const, resource: 'subscription' as const, id: subscription.subscription_id, record: subscription })), now));
  return { order: withLinks, payment: kept, subscriptions, entries, reachPaths: subscriptions.map((subscription) => `subscriptions/${subscription.subscription_id}`) };
}

/**
 * The card a subscription sale saves: through Stripe, the customer and PaymentMethod Stripe kept
 * (`setup_future_usage: off_session`; the renewals charge them off-session, §4.7), shown as the
 * card the charge answered; through the built-in gateway, the card kept while it was paid.
 */
function cardToSave(payment: PaymentRecord): SavedCardRef | undefined {
  const stripe = payment.gateway_charge;
  if (!stripe) return payment.saved_card;
  const data = payment.payment_method?.data;
  if (!stripe.saved_as || !data) return undefined;
  return { kind: 'saved', brand: data.type, last4: data.last4, numberLength: data.mask.length, expMonth: data.exp_month, expYear: data.exp_year, cardholderName: data.cardholder_name, billingAddress: null, testBehaviour: 'approve', gateway: stripe.saved_as };
}

/** Whether a cart's items include a subscription product (its new card is then kept for saving). */
export function hasSubscriptionItem(items: ReadonlyArray<{ subscription_plan?: unknown }>): boolean {
  return items.some((item) => item.subscription_plan);
}
