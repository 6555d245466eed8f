/**
 * Reading a subscription for a caller (commerce.md §0.1): any of its mode by permission; for a
 * limited token, the subscriptions of the sale it paid (reach) or of its customer (customer
 * scope); every other one is 404.
 */
import { requirePrincipal, type ApiContext } from '../../http/types';
import { readReachable } from '../../rest/reach';
import type { RecordScope } from '../../store/records';
import { subscriptionDeclaration } from './declaration';
import type { SubscriptionRecord } from './records';

/** The subscription of the path, within the caller's reach (404 otherwise; 400 when it is in the other mode). */
export function readSubscription(context: ApiContext, scope: RecordScope): Promise<SubscriptionRecord> {
  return readReachable(subscriptionDeclaration, scope, context.params.subscription_id!, requirePrincipal(context));
}

