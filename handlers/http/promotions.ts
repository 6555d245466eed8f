/** Lambda entry point of the `promotions` route family: coupon codes (commerce.md §11). */
import { createPromotionAction, deletePromotionAction, getPromotionAction, listPromotionsAction, updatePromotionAction } from '../../shared/modules/promotions/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('promotions', {
  'GET /api/v1/promotions': listPromotionsAction,
  'POST /api/v1/promotions': createPromotionAction,
  'GET /api/v1/promotions/{promotion_id}': getPromotionAction,
  'POST /api/v1/promotions/{promotion_id}': updatePromotionAction,
  'DELETE /api/v1/promotions/{promotion_id}': deletePromotionAction,
});

export const handler = lambdaHandler(family);
