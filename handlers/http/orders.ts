/** Lambda entry point of the `orders` route family (commerce.md §5). */
import { getOrderAction, getOrderItemAction, listCustomerOrdersAction, listCustomerPaymentsAction, listOrderItemsAction, listOrderPaymentsAction, listOrdersAction, updateOrderAction, updateOrderItemAction } from '../../shared/modules/orders/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('orders', {
  'GET /api/v1/orders': listOrdersAction,
  'GET /api/v1/orders/{order_id}': getOrderAction,
  'POST /api/v1/orders/{order_id}': updateOrderAction,
  'GET /api/v1/orders/{order_id}/items': listOrderItemsAction,
  'GET /api/v1/orders/{order_id}/items/{item_id}': getOrderItemAction,
  'POST /api/v1/orders/{order_id}/items/{item_id}': updateOrderItemAction,
  'GET /api/v1/orders/{order_id}/payments': listOrderPaymentsAction,
  'GET /api/v1/customers/{customer_id}/orders': listCustomerOrdersAction,
  'GET /api/v1/customers/{customer_id}/payments': listCustomerPaymentsAction,
});

export const handler = lambdaHandler(family);
