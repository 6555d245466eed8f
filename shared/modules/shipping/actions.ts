/** The shipping module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { createShippingMethodAction, deleteShippingMethodAction, getShippingMethodAction, listShippingMethodsAction, updateShippingMethodAction } from './shipping-method-actions';
