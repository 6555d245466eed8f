/**
 * Promotion codes on sales (commerce.md §11 "Checks", §4.3 check 4, §5.1 step 4): resolving a
 * shopper's code, the checks run when it is applied and again at payment, and the transaction
 * entries with which a payment reserves, gives back and counts a use.
 */
import type { TransactItem } from '../../auth/auths';
import { table } from '../../store/client';
import { recordKey, type RecordScope } from '../../store/records';
import { hasEligibleLine } from './discounts';
import { InvalidPromotionCodeError, type PromotionCodeReason } from './errors';
import { findPromotion, findPromotionByCode, promotionDeclaration, type PromotionRecord } from './promotions';

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

function promotionKey(scope: RecordScope, promotionId: string) {
  return recordKey(promotionDeclaration, scope, promotionId);
}

/**
 * Reserves one use for a payment about to charge: holds only while `claimed_uses` (paid uses
 * plus running payments) is below `max_uses`, so a code is never charged for beyond it. When
 * the condition fails the code is used up: 400 invalid_promotion_code `max_uses_reached`.
 */
export function reserveUseWrite(scope: RecordScope, promotionId: string): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: promotionKey(scope, promotionId),
      UpdateExpression: 'ADD claimed_uses :one',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(max_uses) OR max_uses = :null OR claimed_uses < max_uses)',
      ExpressionAttributeValues: { ':one': 1, ':null': null },
    },
  };
}

/** Gives a reserved use back (the charge failed): written with the failed payment, unconditionally, so it never blocks that record. */
export function releaseUseWrite(scope: RecordScope, promotionId: string): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: promotionKey(scope, promotionId),
      UpdateExpression: 'ADD claimed_uses :minus',
      ExpressionAttributeValues: { ':minus': -1 },
    },
  };
}

/**
 * Counts the paid use (§5.1 step 4), in the completion transaction. The use was reserved
 * before the charge, so this has no condition that could cancel a completion after a charge.
 */
export function countUseWrite(scope: RecordScope, promotionId: string): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: promotionKey(scope, promotionId),
      UpdateExpression: 'ADD #uses :one',
      ExpressionAttributeNames: { '#uses': 'uses' },
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}
