/**
 * Sale pricing (commerce.md §1): the one calculator carts, invoices and orders share for line
 * amounts, tax, shipping, sale totals and settlement twins. Other modules import only this file.
 */
export { computeSale } from './totals';
export { SALE_MONEY, saleTotalsJson, type SaleTotalsJson } from './json';
export type {
  LineAmounts,
  SaleInput,
  SaleLineInput,
  SaleLineTotals,
  SaleShippingInput,
  SaleTotals,
  ShippingLineTotals,
} from './totals';
export { taxLocationOf, taxRateFor, taxRuleFor, taxTreatmentOf } from './tax';
export type { TaxAddress, TaxLocation, TaxLocationSource, TaxTreatment } from './tax';
