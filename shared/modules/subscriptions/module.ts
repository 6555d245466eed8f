/**
 * The subscriptions module as the app composes it (data only, listed in shared/app/modules.ts):
 * the route family it owns, its routes and the resource it declares. The family serves
 * `fast_forward` too (a renewal charged at once, shared/flows/renewals), so it sends events and
 * reaches the gateway's ledger like the payments family.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach, collectionRoutes } from '../../http/routes';
import { subscriptionDeclaration } from './declaration';

export const subscriptionsModule = defineModule({
  name: 'subscriptions',
  families: {
    subscriptions: {
      entry: 'handlers/http/subscriptions.ts',
      memoryMb: 256,
      description: 'Subscriptions: /subscriptions, /customers/{id}/subscriptions',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: ['event-notifications'] },
    },
  },
  routes: [
    ...collectionRoutes({
      family: 'subscriptions',
      path: '/api/v1/subscriptions',
      id: 'subscription_id',
      access: { list: allow('subscriptions', 'read'), read: allowOrReach('subscriptions', 'read'), update: allow('subscriptions', 'update') },
    }),
    // Customer scope cancels and un-cancels its own (commerce.md §10.3); the action decides.
    { method: 'POST', path: '/api/v1/subscriptions/{subscription_id}/cancel', family: 'subscriptions', access: allowOrReach('subscriptions', 'update') },
    { method: 'POST', path: '/api/v1/subscriptions/{subscription_id}/uncancel', family: 'subscriptions', access: allowOrReach('subscriptions', 'update') },
    { method: 'POST', path: '/api/v1/subscriptions/{subscription_id}/fast_forward', family: 'subscriptions', access: allow('subscriptions', 'update') },
    { method: 'GET', path: '/api/v1/subscriptions/{subscription_id}/orders', family: 'subscriptions', access: allowOrReach('orders', 'read') },
    { method: 'GET', path: '/api/v1/subscriptions/{subscription_id}/payments', family: 'subscriptions', access: allowOrReach('payments', 'read') },
    { method: 'GET', path: '/api/v1/customers/{customer_id}/subscriptions', family: 'subscriptions', access: allowOrReach('subscriptions', 'read') },
  ],
  declarations: [subscriptionDeclaration],
});
