/**
 * Carts (commerce.md §3): the public surface for other modules. Payments read and close carts
 * through these: the declaration (keys), the write-state check, the errors and the stored shape.
 */
export { assertWritable, cartDeclaration, cartPath, withTotals } from './carts';
export { cartSaveEntry } from './cart-store';
export { formOptions, type FormOptions } from './options';
export { CartLockedError, CartPaidError, InvalidPromotionCodeError } from './errors';
export type { CartItemRecord, CartRecord, SaleCustomer } from './types';
