/**
 * Event subscriptions (events.md §2, §3): the public surface for other modules. Fan-out asks
 * for the active subscriptions of an occurrence's type, with their secrets opened.
 */
export {
  activeSubscriptionsFor,
  eventSubscriptionDeclaration,
  eventSubscriptionPath,
  openSubscription,
  readEventSubscription,
} from './event-subscriptions';
export type { EventSubscriptionRecord, OpenedEventSubscription, SubscriptionSecrets, SubscriptionSettings } from './event-subscriptions';
