/**
 * The payment methods an account accepts, in one place: `GET /payments/options`, a cart's
 * `options` and the `payment_method_types` of hosted apps' `settings/account.js` all list
 * these, so a storefront never offers a method the checkout refuses.
 */
import type { PaymentSettings } from '../accounts';

/** One accepted method, as `/payments/options` lists it. */
export interface AcceptedPaymentMethod {
  payment_method_type: string;
}

/** The methods an account accepts: cards through the built-in gateway (no setting turns them off yet). */
export function acceptedPaymentMethods(_payment: PaymentSettings): AcceptedPaymentMethod[] {
  return [{ payment_method_type: 'credit_card' }];
}
