/**
 * The payments module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach } from '../../http/routes';
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
    { method: 'GET', path: '/api/v1/payments', family: 'payments', access: allow('payments', 'read') },
    { method: 'GET', path: '/api/v1/payments/options', family: 'payments', access: { kind: 'any-token' } },
    { method: 'POST', path: '/api/v1/payments', family: 'payments', access: allow('payments', 'create') },
    { method: 'GET', path: '/api/v1/payments/{payment_id}', family: 'payments', access: allowOrReach('payments', 'read') },
    { method: 'POST', path: '/api/v1/payments/{payment_id}', family: 'payments', access: allowOrReach('payments', 'update') },
    { method: 'POST', path: '/api/v1/payments/{payment_id}/commit', family: 'payments', access: allowOrReach('payments', 'update') },
  ],
  declarations: [paymentDeclaration],
});
