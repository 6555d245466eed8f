/**
 * The shipments module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route family it owns, its routes and the resource it declares. Its family serves the order's
 * shipment sub-collections too (`/orders/{id}/shipments`, as the payments family serves
 * `/carts/{id}/payments`): one small function that writes shipments, the orders' shipped
 * quantities and the `shipment:created` event, beside the orders family that only reads and
 * edits meta.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach, collectionRoutes } from '../../http/routes';
import { shipmentDeclaration } from './declaration';

export const shipmentsModule = defineModule({
  name: 'shipments',
  families: {
    shipments: {
      entry: 'handlers/http/shipments.ts',
      memoryMb: 256,
      description: 'Shipments: /shipments, /orders/{id}/shipments',
      // A new shipment's event is handed to the notifications queue.
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: ['event-notifications'] },
    },
  },
  routes: [
    // Limited tokens that reach an order read its shipments; only tokens with shipments permissions write them.
    { method: 'POST', path: '/api/v1/orders/{order_id}/shipments', family: 'shipments', access: allow('shipments', 'create') },
    { method: 'GET', path: '/api/v1/orders/{order_id}/shipments', family: 'shipments', access: allowOrReach('shipments', 'read') },
    { method: 'GET', path: '/api/v1/orders/{order_id}/items/{item_id}/shipments', family: 'shipments', access: allowOrReach('shipments', 'read') },
    ...collectionRoutes({
      family: 'shipments',
      path: '/api/v1/shipments',
      id: 'shipment_id',
      access: { list: allow('shipments', 'read'), read: allowOrReach('shipments', 'read'), update: allow('shipments', 'update'), delete: allow('shipments', 'delete') },
    }),
  ],
  declarations: [shipmentDeclaration],
});
