/** Payments: card rules, the gateway port, the built-in test gateway and the payment errors. */
export { acceptedPaymentMethods, type AcceptedPaymentMethod } from './accepted-methods';
export { brandNumberLength, cardBrand, cardExpired, cardFingerprint, gatewayBrandName, gatewayCard, luhnValid, maskedCard, newCard, type MaskedCard } from './cards';
export {
  BankNetworkError,
  BankNetworkTimeoutError,
  DuplicatePaymentError,
  FeatureNotEnabledError,
  gatewayError,
  gatewayErrorCode,
  InvalidAvsError,
  InvalidCvvError,
  PaymentDeclinedError,
  PaymentError,
} from './errors';
export { savedCardRef, TEST_BAD_CVV, TEST_BAD_POSTAL_CODE, testBehaviourOf, testGateway } from './test-gateway';
export { listCharges, type GatewayChargeRecord } from './gateway-charge-store';
export { newPaymentRecord, paymentDeclaration, type GatewayCharge, type PaymentRecord, type PaymentRefundLedger } from './payment-records';
export { cardData, paymentCardData, savedCardFields, type CardDataInput, type CartPaymentInput, type PaymentCardDataInput, type DirectPaymentInput, type PaymentMethodInput } from './payment-schemas';
export { chargeKey, findRecentDuplicate, initiatedEntry, outcomeEntry, payments, paymentsOfCustomer, recordSavedMethod } from './payment-store';
export { cartPaymentCreate, directPaymentCreate, paymentUpdate } from './payment-schemas';
export { paymentsOfCart, paymentsOfInvoice, refundedAmountEntry, refundLedgerEntry, updatePayment } from './payment-store';
export { takeGatewayEventOnce } from './gateway-event-store';
