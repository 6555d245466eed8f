/**
 * The orders module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach } from '../../http/routes';
import { orderDeclaration, orderItemDeclaration } from './orders';

export const ordersModule = defineModule({
  name: 'orders',
  families: {
    orders: {
      entry: 'handlers/http/orders.ts',
      memoryMb: 256,
      description: 'Orders: /orders',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
    },
  },
  routes: [
    { method: 'GET', path: '/api/v1/orders', family: 'orders', access: allow('orders', 'read') },
    { method: 'GET', path: '/api/v1/orders/{order_id}', family: 'orders', access: allowOrReach('orders', 'read') },
    { method: 'POST', path: '/api/v1/orders/{order_id}', family: 'orders', access: allow('orders', 'update') },
    { method: 'GET', path: '/api/v1/orders/{order_id}/items', family: 'orders', access: allowOrReach('orders', 'read') },
    { method: 'GET', path: '/api/v1/orders/{order_id}/items/{item_id}', family: 'orders', access: allowOrReach('orders', 'read') },
    { method: 'POST', path: '/api/v1/orders/{order_id}/items/{item_id}', family: 'orders', access: allow('orders', 'update') },
    { method: 'GET', path: '/api/v1/orders/{order_id}/payments', family: 'orders', access: allowOrReach('payments', 'read') },
    { method: 'GET', path: '/api/v1/customers/{customer_id}/orders', family: 'orders', access: allowOrReach('orders', 'read') },
    { method: 'GET', path: '/api/v1/customers/{customer_id}/payments', family: 'orders', access: allowOrReach('payments', 'read') },
  ],
  declarations: [orderDeclaration, orderItemDeclaration],
});
