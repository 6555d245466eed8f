/**
 * The subscriptions entity: created in the order's completing transaction (ifNew, its id derived
 * from the order and item, so a repeated completion can only name the same one), changed by
 * versioned updates (cancel, update) and by renewals, whose writes hold only over the billing
 * count and failed attempts read: one renewal outcome per attempt, ever. Cursor-listed by
 * date_created (gsi1) and date_modified (gsi2); a customer's subscriptions through gsi3.
 */
import { byDate, defineEntity, type Change, type RecordScope } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import type { TransactEntry } from '../../store/transact';
import type { SubscriptionRecord } from './records';

/** The listing partition of one customer's subscriptions (gsi3). */
function customerSubscriptionsPartition(scope: RecordScope, customerId: string): string {
  return `${scope.accountId}#${scope.mode}#customer-subscriptions#${customerId}`;
}

/** Subscriptions (mode-scoped): by date_created (gsi1), date_modified (gsi2), per customer (gsi3). */
export const subscriptions = defineEntity<SubscriptionRecord>({ name: 'subscription', collection: 'subscriptions', scope: 'mode', idField: 'subscription_id',
  indexes: { gsi1: 'subscriptions by date_created', gsi2: 'subscriptions by date_modified', gsi3: "a customer's subscriptions" },
  indexKeys: (subscription, partition) => ({
    gsi1: byDate(partition, subscription.created_ms, subscription.subscription_id),
    gsi2: byDate(partition, subscription.modified_ms, subscription.subscription_id),
    gsi3: byDate(customerSubscriptionsPartition({ accountId: subscription.account_id, mode: subscription.mode }, subscription.customer_id), subscription.created_ms, subscription.subscription_id),
  }) });

/** Creates a new subscription (its id must be new), in the order's completing transaction. */
export function createSubscriptionEntry(subscription: SubscriptionRecord): TransactEntry {
  return subscriptions.putEntry(subscription, { ifNew: true, name: 'subscription.create' });
}

/**
 * Writes the subscription after a renewal attempt or a period-end transition, only over the
 * state it was read in (`billing_count`, `failed_attempts`, `status`, `modified_ms`): of two
 * runs of one attempt only one commits (`VersionConflictError` for the other).
 */
export function renewalOutcomeEntry(read: SubscriptionRecord, next: SubscriptionRecord): TransactEntry {
  return subscriptions.putEntry(next, {
    name: 'subscription.renewal',
    condition: {
      expression: 'billing_count = :count AND failed_attempts = :failed AND #status = :status AND modified_ms = :modified',
      names: { '#status': 'status' },
      values: { ':count': read.billing_count, ':failed': read.failed_attempts, ':status': read.status, ':modified': read.modified_ms },
    },
    onConditionFailed: () => new VersionConflictError(`subscription ${read.subscription_id} changed during its renewal`),
  });
}

/** A subscription by id, or undefined (strongly consistent). */
export function findSubscription(scope: RecordScope, subscriptionId: string): Promise<SubscriptionRecord | undefined> {
  return subscriptions.find(scope, subscriptionId);
}

/** Applies `change` over the version `read` answers, again after a lost race; answers it as written. */
export function updateSubscription(scope: RecordScope, subscriptionId: string, change: Change<SubscriptionRecord>, read?: () => Promise<SubscriptionRecord>): Promise<SubscriptionRecord> {
  return subscriptions.update(scope, subscriptionId, change, read ? { read } : {});
}

/** A customer's subscriptions in creation order (gsi3). */
export function subscriptionsOfCustomer(scope: RecordScope, customerId: string): Promise<SubscriptionRecord[]> {
  return subscriptions.query('gsi3', { KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': customerSubscriptionsPartition(scope, customerId) } });
}

/** The listing partition of the mode's subscriptions (the cursor list). */
export function subscriptionPartition(scope: RecordScope): string {
  return subscriptions.partition(scope);
}
