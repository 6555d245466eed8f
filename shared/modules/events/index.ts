/** The events module's one door: what other modules, flows and the app may use of it. */
export { eventTypeEntry, eventTypes } from './catalog';
export { eventEntries, eventWrites, type EventSpec } from './emit';
export { RemoteServerError, RemoteServerTimeoutError } from './errors';
export { KEPT_ATTEMPTS, eventDeclaration, type AttemptErrorCode, type DeliveryAttempt, type EventRecord, type EventStatus, type NotificationFormat, type RecordedRequest } from './event-records';
export { eventSaveEntry, findEvent, getEvent, newEventEntry, openEventIdsOf, type NewEvent } from './event-store';
export { findOccurrences, type OccurrenceRecord } from './occurrence-store';
export { allEventSubscriptions } from './subscriptions/event-subscription-store';
export { eventSubscriptionDeclaration } from './subscriptions/event-subscriptions';
export { basicUsernameField, customHeaderNameField, headerValueField, openSubscription, readEventSubscription, type EventSubscriptionRecord, type OpenedEventSubscription } from './subscriptions';
export { eventListSource, type EventFilters } from './event-store';
export { eventSubscriptionCreate, eventSubscriptionTest, eventSubscriptionUpdate } from './subscriptions/event-subscription-schemas';
export { eventSubscriptionPartition } from './subscriptions/event-subscription-store';
export { SECRET_PROPERTIES, createEventSubscription, deleteEventSubscription, eventSubscriptionPath, maySeeSecrets, subscriptionView, updateEventSubscription, type EventSubscriptionView, type SubscriptionPorts } from './subscriptions/event-subscriptions';
