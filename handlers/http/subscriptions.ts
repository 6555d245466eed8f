/** Lambda entry point of the `subscriptions` route family (commerce.md §10.3). */
import {
  cancelSubscriptionAction,
  getSubscriptionAction,
  listCustomerSubscriptionsAction,
  listSubscriptionOrdersAction,
  listSubscriptionPaymentsAction,
  listSubscriptionsAction,
  uncancelSubscriptionAction,
  updateSubscriptionAction,
} from '../../shared/modules/subscriptions/actions';
import { fastForwardSubscriptionAction } from '../../shared/flows/renewals/renewal-actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';
import { declareAnswer } from '../../shared/http/types';

export const family = defineFamily('subscriptions', {
  'GET /api/v1/subscriptions': listSubscriptionsAction,
  'GET /api/v1/subscriptions/{subscription_id}': getSubscriptionAction,
  'POST /api/v1/subscriptions/{subscription_id}': updateSubscriptionAction,
  'POST /api/v1/subscriptions/{subscription_id}/cancel': cancelSubscriptionAction,
  'POST /api/v1/subscriptions/{subscription_id}/uncancel': uncancelSubscriptionAction,
  'POST /api/v1/subscriptions/{subscription_id}/fast_forward': fastForwardSubscriptionAction,
  'GET /api/v1/subscriptions/{subscription_id}/orders': listSubscriptionOrdersAction,
  'GET /api/v1/subscriptions/{subscription_id}/payments': listSubscriptionPaymentsAction,
  'GET /api/v1/customers/{customer_id}/subscriptions': listCustomerSubscriptionsAction,
});

export const handler = lambdaHandler(family);

// What the actions of the subscription module answer, for the API description (declared here, beside the table).
declareAnswer(cancelSubscriptionAction, { resource: 'subscription' });
declareAnswer(uncancelSubscriptionAction, { resource: 'subscription' });
declareAnswer(fastForwardSubscriptionAction, { resource: 'subscription', description: 'Answers the subscription after the renewal ran (test mode only).' });
