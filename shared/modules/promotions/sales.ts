/**
 * Promotion codes on sales (commerce.md §11 "Checks", §4.3 check 4, §5.1 step 4): resolving a
 * shopper's code and the checks run when it is applied and again at payment. The entries with
 * which a payment reserves, gives back and counts a use are the store's (promotion-store.ts).
 */
import type { RecordScope } from '../../store/records';
import { hasEligibleLine } from './discounts';
import { InvalidPromotionCodeError, type PromotionCodeReason } from './errors';
import { findPromotion, findPromotionByCode, type PromotionRecord } from './promotions';

/**
 * Why a promotion cannot be used at `now`, or null when it can (applicability to the sale's
 * lines aside): deleted or inactive, past `expires`, or `uses` at `max_uses`.
 */
export function promotionProblem(promotion: PromotionRecord, now: number): Exclude<PromotionCodeReason, 'not_found' | 'not_applicable'> | null {
  if (promotion.deleted || !promotion.active) return 'inactive';
  if (promotion.expires_ms !== null && now > promotion.expires_ms) return 'expired';
  if (promotion.max_uses !== null && promotion.uses >= promotion.max_uses) return 'max_uses_reached';
  return null;
}

/**
 * The promotion a shopper's code names, when it may be used at `now`; else 400
 * invalid_promotion_code with the reason (`not_found`, `inactive`, `expired`,
 * `max_uses_reached`). Whether it applies to the sale's lines is the caller's second check.
 */
export async function resolvePromotionCode(scope: RecordScope, code: string, now: number): Promise<PromotionRecord> {
  const promotion = await findPromotionByCode(scope, code);
  if (!promotion) throw new InvalidPromotionCodeError(code, 'not_found');
  const problem = promotionProblem(promotion, now);
  if (problem) throw new InvalidPromotionCodeError(code, problem);
  return promotion;
}

/** 400 invalid_promotion_code `not_applicable` unless one of the lines is eligible. */
export function assertApplicable(promotion: PromotionRecord, code: string, lines: readonly { productId: string; quantity: number }[]): void {
  if (!hasEligibleLine(promotion, lines)) throw new InvalidPromotionCodeError(code, 'not_applicable');
}

/** The code a sale carries and the promotion it was applied as. */
export interface SalePromotion {
  promotion_code: string | null;
  promotion_id: string | null;
}

/**
 * The promotion a sale's stored code still names, if it is still the one applied and still
 * usable at `now` (applicability aside); undefined otherwise. Re-pricing a cart uses this to
 * follow the promotion's current terms.
 */
export async function currentSalePromotion(scope: RecordScope, sale: SalePromotion, now: number): Promise<PromotionRecord | undefined> {
  if (sale.promotion_code === null || sale.promotion_id === null) return undefined;
  const promotion = await findPromotion(scope, sale.promotion_id);
  if (!promotion || promotion.code.toLowerCase() !== sale.promotion_code.toLowerCase()) return undefined;
  return promotionProblem(promotion, now) === null ? promotion : undefined;
}

/**
 * Check 4 of a payment (§4.3): the sale's code still names the promotion it was applied as,
 * that promotion is still usable, and it still applies to a line. Returns the promotion, or
 * undefined for a sale without a code; throws 400 invalid_promotion_code otherwise.
 */
export async function recheckSalePromotion(
  scope: RecordScope,
  sale: SalePromotion,
  lines: readonly { productId: string; quantity: number }[],
  now: number,
): Promise<PromotionRecord | undefined> {
  if (sale.promotion_code === null) return undefined;
  const promotion = await resolvePromotionCode(scope, sale.promotion_code, now);
  if (promotion.promotion_id !== sale.promotion_id) throw new InvalidPromotionCodeError(sale.promotion_code, 'not_found');
  assertApplicable(promotion, sale.promotion_code, lines);
  return promotion;
}
