/** Lambda entry point of the `shipping` route family: shipping methods (commerce.md §2.1). */
import {
  createShippingMethodAction,
  deleteShippingMethodAction,
  getShippingMethodAction,
  listShippingMethodsAction,
  updateShippingMethodAction,
} from '../../shared/commerce/shipping/shipping-method-actions';
import { apiHandler } from '../../shared/http/pipeline';

export const handler = apiHandler('shipping', {
  'GET /api/v1/shipping_methods': listShippingMethodsAction,
  'POST /api/v1/shipping_methods': createShippingMethodAction,
  'GET /api/v1/shipping_methods/{shipping_method_id}': getShippingMethodAction,
  'POST /api/v1/shipping_methods/{shipping_method_id}': updateShippingMethodAction,
  'DELETE /api/v1/shipping_methods/{shipping_method_id}': deleteShippingMethodAction,
});
