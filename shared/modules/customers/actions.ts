/** The customers module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { createCustomerAction, deleteCustomerAction, getCustomerAction, listCustomersAction, updateCustomerAction } from './customer-actions';
