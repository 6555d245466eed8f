/**
 * Promotions (commerce.md §11): the public surface for other modules. Carts apply codes and
 * price with `promotionDiscounts`; payments re-check the code and count its uses; orders link it.
 */
export { DISCOUNT_TYPES, hasEligibleLine, isEligible, promotionDiscounts } from './discounts';
export type { DiscountAmount, DiscountLine, PromotionTerms } from './discounts';
export { InvalidPromotionCodeError } from './errors';
export type { PromotionCodeReason } from './errors';
export { promotionDeclaration, promotionPath, termsOf } from './promotions';
export type { PromotionRecord } from './promotions';
export {
  assertApplicable,
  countUseWrite,
  currentSalePromotion,
  promotionProblem,
  recheckSalePromotion,
  releaseUseWrite,
  reserveUseWrite,
  resolvePromotionCode,
} from './sales';
export type { SalePromotion } from './sales';
