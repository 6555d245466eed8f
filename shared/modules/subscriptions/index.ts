/** The subscriptions module's one door: what other modules, flows and the app may use of it. */
export { subscriptionDeclaration, subscriptionPath, recordsByIds } from './declaration';
export type { SubscriptionItem, SubscriptionRecord, SubscriptionStatus } from './records';
export { createSubscriptionEntry, findSubscription, renewalOutcomeEntry, subscriptionsOfCustomer } from './subscription-store';
export { newSubscription, subscriptionIdFor, type SubscriptionSource } from './subscriptions';
export { periodEnd, periodStart, DAY_MS } from './periods';
export { RENEWAL_KIND, cancelSubscription, changeSubscription, uncancelSubscription } from './changes';
export { readSubscription } from './reads';
