/** Lambda entry point of the `orders` route family (commerce.md §5). */
import { getOrderAction, getOrderItemAction, listCustomerOrdersAction, listCustomerPaymentsAction, listOrderItemsAction, listOrderPaymentsAction, listOrdersAction, updateOrderAction, updateOrderItemAction } from '../../shared/modules/orders/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';
import { withPrintable } from '../../shared/http/accept';
import { orderReceiptAction } from '../../shared/flows/receipts/receipt-actions';

export const family = defineFamily('orders', {
  'GET /api/v1/orders': listOrdersAction,
  // JSON, or the printable receipt when the request prefers application/pdf (conventions.md §4).
  'GET /api/v1/orders/{order_id}': withPrintable(getOrderAction, orderReceiptAction),
  'POST /api/v1/orders/{order_id}': updateOrderAction,
  'GET /api/v1/orders/{order_id}/items': listOrderItemsAction,
  'GET /api/v1/orders/{order_id}/items/{item_id}': getOrderItemAction,
  'POST /api/v1/orders/{order_id}/items/{item_id}': updateOrderItemAction,
  'GET /api/v1/orders/{order_id}/payments': listOrderPaymentsAction,
  'GET /api/v1/customers/{customer_id}/orders': listCustomerOrdersAction,
  'GET /api/v1/customers/{customer_id}/payments': listCustomerPaymentsAction,
});

export const handler = lambdaHandler(family);
