/** Lambda entry point of the `shipping` route family: shipping methods (commerce.md §2.1). */
import { createShippingMethodAction, deleteShippingMethodAction, getShippingMethodAction, listShippingMethodsAction, updateShippingMethodAction } from '../../shared/modules/shipping/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('shipping', {
  'GET /api/v1/shipping_methods': listShippingMethodsAction,
  'POST /api/v1/shipping_methods': createShippingMethodAction,
  'GET /api/v1/shipping_methods/{shipping_method_id}': getShippingMethodAction,
  'POST /api/v1/shipping_methods/{shipping_method_id}': updateShippingMethodAction,
  'DELETE /api/v1/shipping_methods/{shipping_method_id}': deleteShippingMethodAction,
});

export const handler = lambdaHandler(family);
