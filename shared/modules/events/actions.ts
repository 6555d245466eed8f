/** The events module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { getEventAction, listEventsAction, retryEventAction } from './event-actions';
export { createEventSubscriptionAction, deleteEventSubscriptionAction, getEventSubscriptionAction, listEventSubscriptionsAction, testEventSubscriptionAction, updateEventSubscriptionAction } from './subscriptions/event-subscription-actions';
