/**
 * Promotions (commerce.md §11): the public surface for other modules. Carts apply codes and
 * price with `promotionDiscounts`; payments re-check the code and count its uses; orders link it.
 */
import type { RecordScope } from '../../store/entity';
import type { TransactItem } from '../../store/transact';
import * as store from './promotion-store';

export { DISCOUNT_TYPES, hasEligibleLine, isEligible, promotionDiscounts } from './discounts';
export type { DiscountAmount, DiscountLine, PromotionTerms } from './discounts';
export { InvalidPromotionCodeError } from './errors';
export type { PromotionCodeReason } from './errors';
export { promotionDeclaration, promotionPath, termsOf } from './promotions';
export type { PromotionRecord } from './promotions';
export { assertApplicable, currentSalePromotion, promotionProblem, recheckSalePromotion, resolvePromotionCode } from './sales';
export type { SalePromotion } from './sales';

// Checkout still puts raw items into its own TransactWriteItems calls; until it moves to the
// store's named entries (promotion-store.ts), it gets the bare item of each entry from here.
/** The raw item of `promotion.reserve-use` (see promotion-store.ts `reserveUseWrite`). */
export function reserveUseWrite(scope: RecordScope, promotionId: string): TransactItem {
  return store.reserveUseWrite(scope, promotionId).item;
}
/** The raw item of `promotion.release-use` (see promotion-store.ts `releaseUseWrite`). */
export function releaseUseWrite(scope: RecordScope, promotionId: string): TransactItem {
  return store.releaseUseWrite(scope, promotionId).item;
}
/** The raw item of `promotion.count-use` (see promotion-store.ts `countUseWrite`). */
export function countUseWrite(scope: RecordScope, promotionId: string): TransactItem {
  return store.countUseWrite(scope, promotionId).item;
}
