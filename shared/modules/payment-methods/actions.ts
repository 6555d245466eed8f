/** The payment-methods module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { createPaymentMethodAction, deletePaymentMethodAction, getPaymentMethodAction, listPaymentMethodsAction, updatePaymentMethodAction } from './payment-method-actions';
