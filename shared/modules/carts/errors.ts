/** Errors of the carts capability (commerce.md §3): the HTTP layer turns them into envelopes. */
import { ApiError, InUseError, InvalidStateError } from '../../http/errors';

/** 422 invalid_state: the cart is paid, so it can no longer change (commerce.md §3.5). */
export class CartPaidError extends InvalidStateError {
  override name = 'CartPaidError';
  constructor(cartId: string) {
    super(`The cart ${cartId} is paid and can no longer change.`, { reason: 'paid' });
  }
}

/** 409 in_use: a payment on the cart is running, and the cart is locked until it ends. */
export class CartLockedError extends InUseError {
  override name = 'CartLockedError';
  constructor(cartId: string) {
    super(`A payment on the cart ${cartId} is in progress; retry when it has finished.`, { resource: 'cart', reason: 'payment_in_progress' });
  }
}

/** 400 invalid_promotion_code (commerce.md §11): owned by the promotions capability, re-exported for cart callers. */
export { InvalidPromotionCodeError } from '../promotions';

/** 400 token_type_mismatch for an id in the body that exists only in the other mode (conventions.md §9). */
export class BodyTokenTypeMismatchError extends ApiError {
  override name = 'BodyTokenTypeMismatchError';
  constructor(property: string, what: string, id: string) {
    super(400, 'token_type_mismatch', `The ${what} ${id} belongs to the other mode than the access token.`, { property, reason: 'token_type_mismatch' });
  }
}
