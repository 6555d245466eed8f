/** The orders module's one door: what other modules, flows and the app may use of it. */
export { confirmationStateEntry, createOrderEntry, findOrder, licenseItemEntry, orders, refundedAmountEntry as orderRefundedAmountEntry, refundLedgerEntry as orderRefundLedgerEntry } from './order-store';
export { shippedQuantitiesEntry } from './order-store';
export { orderDeclaration, orderFromCart, type OrderSource, orderIdOfPayment, orderItemDeclaration, type OrderItemRecord, type OrderRecord, type OrderRefundLedger } from './orders';
