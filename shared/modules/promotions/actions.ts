/** The promotions module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { createPromotionAction, deletePromotionAction, getPromotionAction, listPromotionsAction, updatePromotionAction } from './promotion-actions';
