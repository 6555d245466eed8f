/**
 * The payments module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach, collectionRoutes } from '../../http/routes';
import { paymentDeclaration } from './payment-records';

export const paymentsModule = defineModule({
  name: 'payments',
  families: {
    payments: {
      entry: 'handlers/http/payments.ts',
      memoryMb: 512,
      description: 'Payments and checkout: /payments, /carts/{id}/payments',
      // A paid order's remote license requests are handed to their queue (list codes are taken here).
      grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: true, sendsTo: ['event-notifications', 'license-requests'] },
    },
  },
  routes: [
    { method: 'POST', path: '/api/v1/carts/{cart_id}/payments', family: 'payments', access: allowOrReach('payments', 'create') },
    { method: 'GET', path: '/api/v1/carts/{cart_id}/payments', family: 'payments', access: allowOrReach('payments', 'read') },
    ...collectionRoutes({
      family: 'payments',
      path: '/api/v1/payments',
      id: 'payment_id',
      access: { list: allow('payments', 'read'), create: allow('payments', 'create'), read: allowOrReach('payments', 'read'), update: allowOrReach('payments', 'update') },
    }),
    { method: 'GET', path: '/api/v1/payments/options', family: 'payments', access: { kind: 'any-token' } },
    { method: 'POST', path: '/api/v1/payments/{payment_id}/commit', family: 'payments', access: allowOrReach('payments', 'update') },
    // Stripe's webhooks (§4.7): no token; the signature over the raw bytes is the authentication.
    { method: 'POST', path: '/api/v1/gateway_events/stripe/{account_id}/{mode}', family: 'payments', access: { kind: 'public' }, body: 'raw' },
  ],
  declarations: [paymentDeclaration],
});
