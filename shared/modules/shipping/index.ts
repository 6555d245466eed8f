/**
 * Shipping methods (commerce.md §2.1, §3.3): the public surface for other modules. Carts keep
 * the active methods' terms, quote them and select one.
 */
export { quoteMethods, selectQuote, shippingCountryOf } from './quotes';
export type { QuotedMethod, ShippingMethodTerms } from './quotes';
export { activeShippingMethods, shippingMethodDeclaration, shippingMethodPath, termsOfMethod } from './shipping-methods';
export type { ShippingMethodRecord } from './shipping-methods';
