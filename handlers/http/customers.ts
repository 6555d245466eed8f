/** Lambda entry point of the `customers` route family (commerce.md §6). */
import {
  createCustomerAction,
  deleteCustomerAction,
  getCustomerAction,
  listCustomersAction,
  updateCustomerAction,
} from '../../shared/customers/customer-actions';
import { apiHandler } from '../../shared/http/pipeline';

export const handler = apiHandler('customers', {
  'GET /api/v1/customers': listCustomersAction,
  'POST /api/v1/customers': createCustomerAction,
  'GET /api/v1/customers/{customer_id}': getCustomerAction,
  'POST /api/v1/customers/{customer_id}': updateCustomerAction,
  'DELETE /api/v1/customers/{customer_id}': deleteCustomerAction,
});
