/** Lambda entry point of the `customers` route family (commerce.md §6). */
import { createCustomerAction, deleteCustomerAction, getCustomerAction, listCustomersAction, updateCustomerAction } from '../../shared/modules/customers/actions';
import { customerLoginAction, getMeAction, updateMeAction } from '../../shared/flows/customer-login/login-actions';
import { createPaymentMethodAction, deletePaymentMethodAction, getPaymentMethodAction, listPaymentMethodsAction, updatePaymentMethodAction } from '../../shared/modules/payment-methods/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('customers', {
  'GET /api/v1/customers': listCustomersAction,
  'POST /api/v1/customers': createCustomerAction,
  'POST /api/v1/customers/login': customerLoginAction,
  'GET /api/v1/customers/me': getMeAction,
  'POST /api/v1/customers/me': updateMeAction,
  'GET /api/v1/customers/{customer_id}': getCustomerAction,
  'POST /api/v1/customers/{customer_id}': updateCustomerAction,
  'DELETE /api/v1/customers/{customer_id}': deleteCustomerAction,
  'GET /api/v1/customers/{customer_id}/payment_methods': listPaymentMethodsAction,
  'POST /api/v1/customers/{customer_id}/payment_methods': createPaymentMethodAction,
  'GET /api/v1/customers/{customer_id}/payment_methods/{payment_method_id}': getPaymentMethodAction,
  'POST /api/v1/customers/{customer_id}/payment_methods/{payment_method_id}': updatePaymentMethodAction,
  'DELETE /api/v1/customers/{customer_id}/payment_methods/{payment_method_id}': deletePaymentMethodAction,
});

export const handler = lambdaHandler(family);
