/** The payments module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { commitPaymentAction, getPaymentAction, listCartPaymentsAction, listPaymentsAction, payCartAction, payDirectAction, paymentOptionsAction, updatePaymentAction } from './payment-actions';
