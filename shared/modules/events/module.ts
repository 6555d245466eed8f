/**
 * The events module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowCrud, collectionRoutes } from '../../http/routes';
import { eventDeclaration } from './event-records';
import { eventSubscriptionDeclaration } from './subscriptions/event-subscriptions';

export const eventsModule = defineModule({
  name: 'events',
  families: {
    events: {
      entry: 'handlers/http/event-subscriptions.ts',
      memoryMb: 256,
      description: 'Event subscriptions and events: /event_subscriptions, /events',
      // The secret properties of a subscription are sealed on write and opened for privileged readers
      // and for manual retries, which also send email notifications (outbound HTTP needs no grant).
      grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: true, sendsTo: [], functions: 'invoke' },
    },
  },
  routes: [
    ...collectionRoutes({ family: 'events', path: '/api/v1/event_subscriptions', id: 'event_subscription_id', access: allowCrud('event_subscriptions') }),
    { method: 'POST', path: '/api/v1/event_subscriptions/{event_subscription_id}/test', family: 'events', access: allow('event_subscriptions', 'update') },
    { method: 'POST', path: '/api/v1/event_subscriptions/{event_subscription_id}/test/{anything}', family: 'events', access: allow('event_subscriptions', 'update') },
    ...collectionRoutes({ family: 'events', path: '/api/v1/events', id: 'event_id', access: { list: allow('events', 'read'), read: allow('events', 'read') } }),
    { method: 'POST', path: '/api/v1/events/{event_id}/retry', family: 'events', access: allow('events', 'update') },
  ],
  queues: [
    {
      name: 'event-notifications',
      description: 'Notifications: event fan-out and deliveries (events.md), order confirmation emails',
      // An attempt may take 30 s and a batch runs its messages side by side: a 60 s function
      // timeout, and six times that hidden (consumerTimeout).
      visibilityTimeoutSeconds: 360,
      maxReceiveCount: 50,
      consumer: {
        entry: 'handlers/queues/event-notifications.ts',
        batchSize: 10,
        memoryMb: 256,
        // Attempts and schedules are recorded in the table; subscription secrets and the account's
        // signature key are opened; email subscriptions send through SES. Outbound HTTP needs no grant.
        grants: { table: 'readWrite', secrets: 'decrypt', email: true, sendsTo: [], functions: 'invoke' },
      },
    },
  ],
  declarations: [eventSubscriptionDeclaration, eventDeclaration],
});
