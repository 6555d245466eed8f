/** Lambda entry point of the `payments` route family: checkout payments (commerce.md §4). */
import {
  getPaymentAction,
  listCartPaymentsAction,
  listPaymentsAction,
  payCartAction,
  paymentOptionsAction,
} from '../../shared/commerce/payments/payment-actions';
import { apiHandler } from '../../shared/http/pipeline';

export const handler = apiHandler('payments', {
  'POST /api/v1/carts/{cart_id}/payments': payCartAction,
  'GET /api/v1/carts/{cart_id}/payments': listCartPaymentsAction,
  'GET /api/v1/payments': listPaymentsAction,
  'GET /api/v1/payments/options': paymentOptionsAction,
  'GET /api/v1/payments/{payment_id}': getPaymentAction,
});
