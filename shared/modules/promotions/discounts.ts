/**
 * The discount a promotion gives a sale (commerce.md §11 "Application"): which lines are
 * eligible and how much each line's `discount` is. Pure: the caller supplies the lines, the
 * sale currency, the payment settings (rates) and the sale's tax treatment; `computeSale` then
 * prices the lines with these discounts.
 */
import type { PaymentSettings } from '../accounts';
import { unitPrice } from '../catalog';
import { minorUnits, roundMoney } from '../../rest/money';
import type { SaleLineInput, TaxTreatment } from '../pricing';

/** Promotion discount types. */
export const DISCOUNT_TYPES = ['percent', 'amount'] as const;

/** A fixed discount per sale in one currency. */
export interface DiscountAmount {
  currency: string;
  amount: number;
}

/**
 * What pricing needs of a promotion. Carts keep a copy of these terms with the code, so any
 * re-price (including ones that cannot read the promotion) applies the same discount.
 */
export interface PromotionTerms {
  discount_type: (typeof DISCOUNT_TYPES)[number];
  /** For `percent`: a fraction, 0 < x ≤ 1. */
  discount_percent: number | null;
  /** For `amount`: at most one entry per currency. */
  discount_amounts: DiscountAmount[];
  /** Eligible products; empty means every product line. */
  product_ids: string[];
}

/** The line fields the discount reads. */
export type DiscountLine = Pick<SaleLineInput, 'productId' | 'quantity' | 'unitPriceOriginal'>;

/** Rounds to the currency after cutting binary noise, exactly as `computeSale` rounds its lines. */
function money(amount: number, currency: string): number {
  return roundMoney(Number(amount.toPrecision(15)), currency);
}

/** Whether a line with `productId` is eligible: listed in `product_ids`, or any product line when the list is empty. */
export function isEligible(terms: Pick<PromotionTerms, 'product_ids'>, productId: string): boolean {
  return terms.product_ids.length === 0 || terms.product_ids.includes(productId);
}

/** Whether a sale has at least one eligible line (else the code is `not_applicable`). */
export function hasEligibleLine(terms: Pick<PromotionTerms, 'product_ids'>, lines: readonly Pick<DiscountLine, 'productId' | 'quantity'>[]): boolean {
  return lines.some((line) => line.quantity > 0 && isEligible(terms, line.productId));
}

/**
 * The fixed amount of an `amount` promotion in the sale currency (§1.1): its entry for the
 * currency, else its default-currency entry converted, else its first entry converted.
 */
export function discountAmountIn(amounts: readonly DiscountAmount[], currency: string, payment: PaymentSettings): number {
  return money(
    unitPrice(
      amounts.map((entry) => ({ currency: entry.currency, price: entry.amount })),
      currency,
      payment,
    ),
    currency,
  );
}

/**
 * Spreads `total` (rounded, at most the sum of `bases`) over lines in proportion to `bases`:
 * every line's share is rounded on its own and the largest line (the first of equals) takes
 * the remainder. In the rare case where that remainder would fall outside the largest line
 * (many tiny shares all rounding up), the minor units are handed out by largest fractional
 * part instead, so every share stays between 0 and its base.
 */
function spread(total: number, bases: readonly number[], currency: string): number[] {
  const scale = 10 ** minorUnits(currency);
  const units = Math.round(total * scale);
  const baseUnits = bases.map((base) => Math.round(base * scale));
  const sum = baseUnits.reduce((acc, base) => acc + base, 0);
  if (units <= 0 || sum <= 0) return bases.map(() => 0);
  const exact = baseUnits.map((base) => (units * base) / sum);
  let largest = 0;
  baseUnits.forEach((base, index) => {
    if (base > baseUnits[largest]!) largest = index;
  });
  const shares = exact.map((value) => Math.round(value));
  const others = shares.reduce((acc, share, index) => (index === largest ? acc : acc + share), 0);
  const remainder = units - others;
  if (remainder >= 0 && remainder <= baseUnits[largest]!) {
    shares[largest] = remainder;
  } else {
    const floors = exact.map((value) => Math.floor(value));
    let left = units - floors.reduce((acc, value) => acc + value, 0);
    const order = exact
      .map((value, index) => ({ index, fraction: value - Math.floor(value), base: baseUnits[index]! }))
      .sort((a, b) => b.fraction - a.fraction || b.base - a.base || a.index - b.index);
    for (const { index } of order) {
      if (left <= 0) break;
      floors[index]! += 1;
      left -= 1;
    }
    shares.splice(0, shares.length, ...floors);
  }
  return shares.map((share) => money(share / scale, currency));
}

/**
 * Per-line discounts of a promotion (commerce.md §11), aligned with `lines`, in the sale
 * currency and on the lines' price basis (gross in tax-inclusive sales), ready for
 * `computeSale`'s `discount`:
 * - `percent`: each eligible line gets `subtotal_original × discount_percent`, rounded per line;
 * - `amount`: the sale currency's amount (converted when it has no entry); in tax-inclusive
 *   sales without `discount_on_gross` it is a net amount, grossed up at the lines' rate;
 *   capped at the eligible subtotal and spread over the eligible lines in proportion to
 *   their `subtotal_original`, the largest line taking the rounding remainder.
 * Ineligible lines get 0.
 * @example promotionDiscounts({ discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 10 }], … }, [30 $, 10 $ lines], 'USD', …) // [7.5, 2.5]
 */
export function promotionDiscounts(
  terms: PromotionTerms,
  lines: readonly DiscountLine[],
  currency: string,
  payment: PaymentSettings,
  treatment: Pick<TaxTreatment, 'tax_inclusive' | 'discount_on_gross' | 'locationRate'>,
): number[] {
  const code = currency.toUpperCase();
  // `subtotal_original` exactly as `computeSale` computes it.
  const subtotals = lines.map((line) => money(money(line.unitPriceOriginal, code) * line.quantity, code));
  const eligible = lines.map((line) => line.quantity > 0 && isEligible(terms, line.productId));
  if (terms.discount_type === 'percent') {
    const percent = terms.discount_percent ?? 0;
    return subtotals.map((subtotal, index) => (eligible[index] ? Math.min(subtotal, money(subtotal * percent, code)) : 0));
  }
  const eligibleSubtotals = subtotals.map((subtotal, index) => (eligible[index] ? subtotal : 0));
  const eligibleTotal = money(
    eligibleSubtotals.reduce((acc, subtotal) => acc + subtotal, 0),
    code,
  );
  if (eligibleTotal <= 0 || terms.discount_amounts.length === 0) return lines.map(() => 0);
  let amount = discountAmountIn(terms.discount_amounts, code, payment);
  // One tax rate applies to every product line (§1.4), so grossing the sale amount up once is
  // grossing each line's share up at its rate, without a second rounding per line.
  if (treatment.tax_inclusive && !treatment.discount_on_gross) amount = money(amount * (1 + treatment.locationRate), code);
  return spread(Math.min(amount, eligibleTotal), eligibleSubtotals, code);
}
