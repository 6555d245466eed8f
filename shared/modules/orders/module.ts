/**
 * The orders module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach, collectionRoutes } from '../../http/routes';
import { orderDeclaration, orderItemDeclaration } from './orders';

export const ordersModule = defineModule({
  name: 'orders',
  families: {
    orders: {
      entry: 'handlers/http/orders.ts',
      memoryMb: 256,
      description: 'Orders: /orders',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
      // GET /orders/{id} with Accept: application/pdf prints the receipt.
      documentFonts: true,
    },
  },
  routes: [
    // Orders are made by checkout, not created here; limited tokens that reach an order may read it, not change it.
    ...collectionRoutes({
      family: 'orders',
      path: '/api/v1/orders',
      id: 'order_id',
      access: { list: allow('orders', 'read'), read: allowOrReach('orders', 'read'), update: allow('orders', 'update') },
    }),
    ...collectionRoutes({
      family: 'orders',
      path: '/api/v1/orders/{order_id}/items',
      id: 'item_id',
      access: { list: allowOrReach('orders', 'read'), read: allowOrReach('orders', 'read'), update: allow('orders', 'update') },
    }),
    { method: 'GET', path: '/api/v1/orders/{order_id}/payments', family: 'orders', access: allowOrReach('payments', 'read') },
    { method: 'GET', path: '/api/v1/customers/{customer_id}/orders', family: 'orders', access: allowOrReach('orders', 'read') },
    { method: 'GET', path: '/api/v1/customers/{customer_id}/payments', family: 'orders', access: allowOrReach('payments', 'read') },
  ],
  declarations: [orderDeclaration, orderItemDeclaration],
});
