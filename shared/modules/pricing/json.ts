/**
 * The sale totals as carts and invoices show them (commerce.md §1.3, §8, §9): one rendering, so
 * the two resources cannot list their amounts, settlement twins or counts differently.
 */
import type { SaleTotals } from './totals';

/** The money properties of a sale, each also shown with its `settlement_` twin. */
export const SALE_MONEY = ['subtotal', 'subtotal_original', 'shipping', 'shipping_original', 'discount', 'tax', 'tax_original', 'total', 'total_original'] as const;

/** The totals' part of a sale's JSON: the named properties, and the amounts under computed names. */
export interface SaleTotalsJson {
  /** The amounts (`subtotal`, …) and their `settlement_` twins. */
  [amount: string]: unknown;
  settlement_currency: string;
  tax_inclusive: boolean;
  discount_on_gross: boolean;
  items_count: number;
  items_quantity: number;
}

/**
 * The totals' part of a cart's or invoice's JSON, in the order the resources show it: the
 * amounts, the settlement currency and the amounts' twins, then how tax and discount were
 * applied and the item counts. The shipping line is not included: it stands among the sale's
 * other fields.
 */
export function saleTotalsJson(totals: SaleTotals): SaleTotalsJson {
  const amounts = Object.fromEntries(SALE_MONEY.map((name) => [name, totals[name]]));
  const settlement = Object.fromEntries(SALE_MONEY.map((name) => [`settlement_${name}`, totals[`settlement_${name}`]]));
  return {
    ...amounts,
    settlement_currency: totals.settlement_currency,
    ...settlement,
    tax_inclusive: totals.tax_inclusive,
    discount_on_gross: totals.discount_on_gross,
    items_count: totals.items_count,
    items_quantity: totals.items_quantity,
  };
}
