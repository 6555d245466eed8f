/** The payment-methods module's one door: what other modules, flows and the app may use of it. */
export { findCustomerPaymentMethod, paymentMethodDeclaration, savedMethodRecord, storePaymentMethod } from './payment-methods';
export { createPaymentMethodEntry } from './payment-method-store';
