/**
 * Carts (commerce.md §3): the public surface for other modules. Payments read and close carts
 * through these: the declaration (keys), the write-state check, the errors and the stored shape.
 */
export { assertWritable, cartDeclaration, cartPath, withTotals } from './carts';
export { updateCart } from './cart-store';
export { formOptions, type FormOptions } from './options';
export { CartLockedError, CartPaidError, InvalidPromotionCodeError } from './errors';
export type { CartItemRecord, CartRecord, SaleCustomer } from './types';
export { forgetCart, recentCart } from './cart-cache';
export { cartClosedForOrder, carts, closeForOrderEntry, lockEntry, lockHeld, releaseLockEntry } from './cart-store';
export { cartItemDeclaration, viewerCountry } from './carts';
export { FIELD_PATHS, allowedCustomerCountries } from './options';
export { saleCustomerJson, guestCustomer, applyCustomer as applySaleCustomer, type CartWriteContext, type PricedLine, type PricedSale } from './carts';
export { cartOptions, type ShippingQuote } from './options';
export { readLineProducts, isSellable, MAX_QUANTITY } from './items';
