/** Lambda entry point of the `payments` route family: checkout payments (commerce.md §4). */
import { commitPaymentAction, getPaymentAction, listCartPaymentsAction, listPaymentsAction, payCartAction, paymentOptionsAction, payDirectAction, updatePaymentAction } from '../../shared/flows/checkout/payment-actions';
import { stripeEventAction } from '../../shared/flows/checkout/gateway-events';
import { defineFamily, lambdaHandler } from '../../shared/app/families';
import { declareAnswer } from '../../shared/http/types';

export const family = defineFamily('payments', {
  'POST /api/v1/carts/{cart_id}/payments': payCartAction,
  'GET /api/v1/carts/{cart_id}/payments': listCartPaymentsAction,
  'GET /api/v1/payments': listPaymentsAction,
  'GET /api/v1/payments/options': paymentOptionsAction,
  'POST /api/v1/payments': payDirectAction,
  'GET /api/v1/payments/{payment_id}': getPaymentAction,
  'POST /api/v1/payments/{payment_id}': updatePaymentAction,
  'POST /api/v1/payments/{payment_id}/commit': commitPaymentAction,
  'POST /api/v1/gateway_events/stripe/{account_id}/{mode}': stripeEventAction,
});

export const handler = lambdaHandler(family);

// What the Stripe endpoint answers Stripe, for the API description (declared here, beside the table).
declareAnswer(stripeEventAction, { shape: 'gateway_event', summary: 'Receive a Stripe event', description: 'The event was received (`duplicate` when it had been before); Stripe reads only the status.' });
