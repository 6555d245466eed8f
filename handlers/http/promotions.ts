/** Lambda entry point of the `promotions` route family: coupon codes (commerce.md §11). */
import {
  createPromotionAction,
  deletePromotionAction,
  getPromotionAction,
  listPromotionsAction,
  updatePromotionAction,
} from '../../shared/commerce/promotions/promotion-actions';
import { apiHandler } from '../../shared/http/pipeline';

export const handler = apiHandler('promotions', {
  'GET /api/v1/promotions': listPromotionsAction,
  'POST /api/v1/promotions': createPromotionAction,
  'GET /api/v1/promotions/{promotion_id}': getPromotionAction,
  'POST /api/v1/promotions/{promotion_id}': updatePromotionAction,
  'DELETE /api/v1/promotions/{promotion_id}': deletePromotionAction,
});
