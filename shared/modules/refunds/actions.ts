/** The refunds module's HTTP actions: what the route family (handlers/http/refunds.ts) binds to routes. */
export { getRefundAction, listCustomerRefundsAction, listOrderRefundsAction, listPaymentRefundsAction, listRefundsAction } from './refund-actions';
