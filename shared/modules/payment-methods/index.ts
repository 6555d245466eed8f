/** The payment-methods module's one door: what other modules, flows and the app may use of it. */
export { findCustomerPaymentMethod, paymentMethodDeclaration, storePaymentMethod } from './payment-methods';
