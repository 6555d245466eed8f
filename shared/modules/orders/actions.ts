/** The orders module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { getOrderAction, getOrderItemAction, listCustomerOrdersAction, listCustomerPaymentsAction, listOrderItemsAction, listOrderPaymentsAction, listOrdersAction, updateOrderAction, updateOrderItemAction } from './order-actions';
