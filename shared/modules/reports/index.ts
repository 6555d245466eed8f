/** The reports module's one door: the sales aggregates' entries (written by checkout, renewals and refunds). */
export { orderSaleEntry, refundSaleEntry, saleOfOrder, type OrderSale, type RefundSale } from './sales-store';
