/**
 * The refunds module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route family it owns, its routes and the resource it declares. The family serves refunds
 * wherever the contract puts them (under payments, orders and customers too), as the orders
 * family serves `/customers/{id}/orders`: one bundle for the one flow that moves money back.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach } from '../../http/routes';
import { refundDeclaration } from './refund-records';

export const refundsModule = defineModule({
  name: 'refunds',
  families: {
    refunds: {
      entry: 'handlers/http/refunds.ts',
      memoryMb: 256,
      description: 'Refunds: /refunds, /orders/{id}/refunds, /payments/{id}/refunds, /customers/{id}/refunds',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: ['event-notifications'] },
    },
  },
  routes: [
    { method: 'GET', path: '/api/v1/refunds', family: 'refunds', access: allow('refunds', 'read') },
    { method: 'GET', path: '/api/v1/refunds/{refund_id}', family: 'refunds', access: allowOrReach('refunds', 'read') },
    // Limited tokens read the refunds of the sale they paid (commerce.md §0.1); only secret and trusted tokens refund.
    { method: 'POST', path: '/api/v1/orders/{order_id}/refunds', family: 'refunds', access: allow('refunds', 'create') },
    { method: 'GET', path: '/api/v1/orders/{order_id}/refunds', family: 'refunds', access: allowOrReach('refunds', 'read') },
    { method: 'POST', path: '/api/v1/payments/{payment_id}/refunds', family: 'refunds', access: allow('refunds', 'create') },
    { method: 'GET', path: '/api/v1/payments/{payment_id}/refunds', family: 'refunds', access: allowOrReach('refunds', 'read') },
    { method: 'GET', path: '/api/v1/customers/{customer_id}/refunds', family: 'refunds', access: allowOrReach('refunds', 'read') },
  ],
  declarations: [refundDeclaration],
});
