/** Lambda entry point of the `events` route family: event subscriptions (events.md §2). */
import {
  createEventSubscriptionAction,
  deleteEventSubscriptionAction,
  getEventSubscriptionAction,
  listEventSubscriptionsAction,
  updateEventSubscriptionAction,
} from '../../shared/events/subscriptions/event-subscription-actions';
import { defineFamily, lambdaHandler } from '../../shared/http/pipeline';

export const family = defineFamily('events', {
  'GET /api/v1/event_subscriptions': listEventSubscriptionsAction,
  'POST /api/v1/event_subscriptions': createEventSubscriptionAction,
  'GET /api/v1/event_subscriptions/{event_subscription_id}': getEventSubscriptionAction,
  'POST /api/v1/event_subscriptions/{event_subscription_id}': updateEventSubscriptionAction,
  'DELETE /api/v1/event_subscriptions/{event_subscription_id}': deleteEventSubscriptionAction,
});

export const handler = lambdaHandler(family);
