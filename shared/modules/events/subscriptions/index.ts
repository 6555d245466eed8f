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
/**
 * The outbound header rules license services share (licenses.md §2.1 refers to events.md §2.1):
 * the reserved names and the schemas of a custom header name, a header value and a Basic user name.
 */
export { headerName as customHeaderNameField, headerText as headerValueField, RESERVED_HEADER_NAMES, username as basicUsernameField } from './event-subscription-schemas';
