/** Lambda entry point of the `shipments` route family (commerce.md §8). */
import { getShipmentAction, listOrderItemShipmentsAction, listOrderShipmentsAction, listShipmentsAction, updateShipmentAction } from '../../shared/modules/shipments/actions';
import { createShipmentAction, deleteShipmentAction } from '../../shared/flows/fulfilment/shipment-actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('shipments', {
  'POST /api/v1/orders/{order_id}/shipments': createShipmentAction,
  'GET /api/v1/orders/{order_id}/shipments': listOrderShipmentsAction,
  'GET /api/v1/orders/{order_id}/items/{item_id}/shipments': listOrderItemShipmentsAction,
  'GET /api/v1/shipments': listShipmentsAction,
  'GET /api/v1/shipments/{shipment_id}': getShipmentAction,
  'POST /api/v1/shipments/{shipment_id}': updateShipmentAction,
  'DELETE /api/v1/shipments/{shipment_id}': deleteShipmentAction,
});

export const handler = lambdaHandler(family);
