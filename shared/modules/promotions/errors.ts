/** Errors of the promotions capability (commerce.md §11): the HTTP layer turns them into envelopes. */
import { ApiError } from '../../http/errors';

/** Why a promotion code cannot be applied to a sale (commerce.md §11 "Checks"). */
export type PromotionCodeReason = 'not_found' | 'inactive' | 'expired' | 'max_uses_reached' | 'not_applicable';

const MESSAGES: Record<PromotionCodeReason, (code: string) => string> = {
  not_found: (code) => `The promotion code ${code} does not exist.`,
  inactive: (code) => `The promotion code ${code} is not active.`,
  expired: (code) => `The promotion code ${code} has expired.`,
  max_uses_reached: (code) => `The promotion code ${code} has reached its maximum number of uses.`,
  not_applicable: (code) => `The promotion code ${code} does not apply to any item of this sale.`,
};

/**
 * 400 invalid_promotion_code, meta `{property: 'promotion_code', reason}`: the code cannot be
 * applied (on a cart write nothing is saved; at payment nothing is charged).
 */
export class InvalidPromotionCodeError extends ApiError {
  override name = 'InvalidPromotionCodeError';
  constructor(
    code: string,
    readonly reason: PromotionCodeReason,
  ) {
    super(400, 'invalid_promotion_code', MESSAGES[reason](code), { property: 'promotion_code', reason });
  }
}
