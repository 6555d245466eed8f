/** Lambda entry point of the `events` route family: event subscriptions and events (events.md §2, §7). */
import { getEventAction, listEventsAction, retryEventAction } from '../../shared/flows/notifications/event-actions';
import { createEventSubscriptionAction, deleteEventSubscriptionAction, getEventSubscriptionAction, listEventSubscriptionsAction, testEventSubscriptionAction, updateEventSubscriptionAction } from '../../shared/flows/notifications/event-subscription-actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('events', {
  'GET /api/v1/event_subscriptions': listEventSubscriptionsAction,
  'POST /api/v1/event_subscriptions': createEventSubscriptionAction,
  'GET /api/v1/event_subscriptions/{event_subscription_id}': getEventSubscriptionAction,
  'POST /api/v1/event_subscriptions/{event_subscription_id}': updateEventSubscriptionAction,
  'DELETE /api/v1/event_subscriptions/{event_subscription_id}': deleteEventSubscriptionAction,
  'POST /api/v1/event_subscriptions/{event_subscription_id}/test': testEventSubscriptionAction,
  // Compatibility form (§10): the trailing segment is ignored.
  'POST /api/v1/event_subscriptions/{event_subscription_id}/test/{anything}': testEventSubscriptionAction,
  'GET /api/v1/events': listEventsAction,
  'GET /api/v1/events/{event_id}': getEventAction,
  'POST /api/v1/events/{event_id}/retry': retryEventAction,
});

export const handler = lambdaHandler(family);
