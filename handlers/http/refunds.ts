/** Lambda entry point of the `refunds` route family (commerce.md §7). */
import { getRefundAction, listCustomerRefundsAction, listOrderRefundsAction, listPaymentRefundsAction, listRefundsAction } from '../../shared/modules/refunds/actions';
import { refundOrderAction, refundPaymentAction } from '../../shared/flows/refunds/refund-actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('refunds', {
  'GET /api/v1/refunds': listRefundsAction,
  'GET /api/v1/refunds/{refund_id}': getRefundAction,
  'POST /api/v1/orders/{order_id}/refunds': refundOrderAction,
  'GET /api/v1/orders/{order_id}/refunds': listOrderRefundsAction,
  'POST /api/v1/payments/{payment_id}/refunds': refundPaymentAction,
  'GET /api/v1/payments/{payment_id}/refunds': listPaymentRefundsAction,
  'GET /api/v1/customers/{customer_id}/refunds': listCustomerRefundsAction,
});

export const handler = lambdaHandler(family);
