/** The refunds module's one door: what other modules, flows and the app may use of it. */
export { addParts, computeRefund, NO_PARTS, releasedLedger, remainingParts, share, type ComputedRefund, type RefundAsk, type Refundable, type RefundableLine, type RefundItem, type RefundLedger, type RefundParts } from './refund-amounts';
export { refundDeclaration, type RefundRecord, type RefundStatus } from './refund-records';
export { refundCreate, type RefundCreateInput } from './refund-schemas';
export { findRefund, pendingEntry, refundKey, refundsOfPayment, settledEntry } from './refund-store';
export { RefundError, TransactionFailureError } from './errors';
