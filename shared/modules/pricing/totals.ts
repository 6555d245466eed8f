/**
 * Line and sale amounts shared by carts, invoices and orders (commerce.md §1.2, §1.3): tax
 * exclusive and inclusive lines, tax-exempt customers, the shipping line, sale totals and their
 * settlement twins. Pure: the caller supplies prices, promotion discounts and settings.
 *
 * Every amount is rounded to the sale currency's minor units on its line first; sale totals are
 * sums of those rounded amounts. Sums are only cleaned of binary drift (0.1 + 0.2 reads 0.3),
 * which never changes their decimal value, so they are not re-rounded in the §1.2 sense.
 */
import type { PaymentSettings, TaxSettings } from '../accounts';
import { convert } from '../catalog';
import { roundMoney } from '../../rest/money';
import { taxTreatmentOf, type TaxLocation, type TaxTreatment } from './tax';

/** A product line to price. */
export interface SaleLineInput {
  itemId: string;
  productId: string;
  name: string;
  type: 'digital' | 'physical' | 'service';
  /** A non-negative integer. */
  quantity: number;
  /** Unit price in the sale currency before any discount (gross in tax-inclusive sales). */
  unitPriceOriginal: number;
  taxCode: string | null;
  /**
   * The line's promotion discount in the sale currency, ≥ 0, on the same basis as
   * `unitPriceOriginal`: already grossed up by the promotion engine where §11 asks for it.
   * Amounts above the line's `subtotal_original` are capped there.
   */
  discount?: number;
}

/** The selected shipping method and its price in the sale currency. */
export interface SaleShippingInput {
  methodId: string;
  name: string;
  priceOriginal: number;
}

/** Everything `computeSale` needs. */
export interface SaleInput {
  currency: string;
  lines: SaleLineInput[];
  shipping: SaleShippingInput | null;
  /** From `taxLocationOf`. */
  taxLocation: TaxLocation;
  /** A linked customer with `tax_exempt: true`. */
  customerTaxExempt: boolean;
  payment: PaymentSettings;
  tax: TaxSettings;
}

/** The §1.3 amounts of one line with their `settlement_` twins. */
export interface LineAmounts {
  currency: string;
  price: number;
  price_original: number;
  subtotal: number;
  subtotal_original: number;
  discount: number;
  tax_rate: number;
  tax: number;
  tax_original: number;
  total: number;
  total_original: number;
  settlement_currency: string;
  settlement_price: number;
  settlement_subtotal: number;
  settlement_subtotal_original: number;
  settlement_discount: number;
  settlement_tax: number;
  settlement_tax_original: number;
  settlement_total: number;
  settlement_total_original: number;
}

/** A priced product line. */
export interface SaleLineTotals extends LineAmounts {
  item_id: string;
  product_id: string;
  name: string;
  type: SaleLineInput['type'];
  quantity: number;
  tax_code: string | null;
}

/** The priced shipping line: `item_id` is the shipping method id. */
export interface ShippingLineTotals extends LineAmounts {
  item_id: string;
  name: string;
  quantity: 1;
}

/** The amounts of a whole sale (§1.3) with their `settlement_` twins. */
export interface SaleTotals {
  currency: string;
  settlement_currency: string;
  items: SaleLineTotals[];
  shipping_item: ShippingLineTotals | null;
  subtotal: number;
  subtotal_original: number;
  shipping: number;
  shipping_original: number;
  discount: number;
  tax: number;
  tax_original: number;
  total: number;
  total_original: number;
  settlement_subtotal: number;
  settlement_subtotal_original: number;
  settlement_shipping: number;
  settlement_shipping_original: number;
  settlement_discount: number;
  settlement_tax: number;
  settlement_tax_original: number;
  settlement_total: number;
  settlement_total_original: number;
  tax_inclusive: boolean;
  discount_on_gross: boolean;
  items_count: number;
  items_quantity: number;
}

/**
 * Rounds an amount to the currency (§1.2). Products and quotients are first cut to 15
 * significant digits, as `convert` does, so 1.15 × 0.1 = 0.11499999… still rounds as 0.115.
 */
function money(amount: number, currency: string): number {
  return roundMoney(Number(amount.toPrecision(15)), currency);
}

/** Sum of already rounded amounts, cleaned of binary drift (its decimal value is unchanged). */
function sum(amounts: readonly number[], currency: string): number {
  return money(amounts.reduce((total, amount) => total + amount, 0), currency);
}

function checkAmount(value: number, what: string): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${what} must be a finite amount ≥ 0, got ${value}`);
}

function checkQuantity(value: number, what: string): void {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${what} must be an integer ≥ 0, got ${value}`);
}

/** The tax contained in a tax-inclusive amount: `amount × r / (1 + r)`. */
function includedTax(amount: number, rate: number, currency: string): number {
  return money((amount * rate) / (1 + rate), currency);
}

/** How one line is taxed. */
interface LineTax {
  /** The location rate that applies to this line (0 for untaxed shipping). */
  rate: number;
  taxInclusive: boolean;
  taxExempt: boolean;
}

type SaleAmounts = Omit<LineAmounts, 'currency' | 'settlement_currency' | `settlement_${string}`>;

/** The §1.3 amounts of one line in the sale currency. */
function lineAmounts(unitPriceOriginal: number, quantity: number, discount: number, how: LineTax, currency: string): SaleAmounts {
  const { rate, taxInclusive, taxExempt } = how;
  const priceOriginal = money(unitPriceOriginal, currency);
  const subtotalOriginal = money(priceOriginal * quantity, currency);
  const lineDiscount = Math.min(money(discount, currency), subtotalOriginal);
  const subtotal = money(subtotalOriginal - lineDiscount, currency);
  const priceOf = (lineSubtotal: number, fallback: number) => (quantity > 0 ? money(lineSubtotal / quantity, currency) : fallback);
  /** The line at its own prices (not an exempt customer's inclusive ones), with the tax it carries. */
  const atListedPrices = (taxed: Pick<SaleAmounts, 'tax_rate' | 'tax' | 'tax_original' | 'total' | 'total_original'>): SaleAmounts => ({
    price: priceOf(subtotal, priceOriginal),
    price_original: priceOriginal,
    subtotal,
    subtotal_original: subtotalOriginal,
    discount: lineDiscount,
    ...taxed,
  });

  if (!taxInclusive) {
    const charged = taxExempt ? 0 : rate;
    const tax = money(subtotal * charged, currency);
    const taxOriginal = money(subtotalOriginal * charged, currency);
    return atListedPrices({ tax_rate: charged, tax, tax_original: taxOriginal, total: money(subtotal + tax, currency), total_original: money(subtotalOriginal + taxOriginal, currency) });
  }

  const tax = includedTax(subtotal, rate, currency);
  const taxOriginal = includedTax(subtotalOriginal, rate, currency);
  if (!taxExempt) return atListedPrices({ tax_rate: rate, tax, tax_original: taxOriginal, total: subtotal, total_original: subtotalOriginal });

  // An exempt customer's inclusive prices drop by their tax portion: each subtotal loses the
  // tax a taxed customer would pay on it, so exempt and taxed customers pay the same net.
  const netSubtotal = money(subtotal - tax, currency);
  const netSubtotalOriginal = money(subtotalOriginal - taxOriginal, currency);
  const netPriceOriginal = priceOf(netSubtotalOriginal, money(priceOriginal - includedTax(priceOriginal, rate, currency), currency));
  return {
    price: priceOf(netSubtotal, netPriceOriginal),
    price_original: netPriceOriginal,
    subtotal: netSubtotal,
    subtotal_original: netSubtotalOriginal,
    discount: money(netSubtotalOriginal - netSubtotal, currency),
    tax_rate: 0,
    tax: 0,
    tax_original: 0,
    total: netSubtotal,
    total_original: netSubtotalOriginal,
  };
}

/** Adds the `settlement_` twins: each amount converted and rounded on its own (§1.1). */
function withSettlement(amounts: SaleAmounts, currency: string, payment: PaymentSettings): LineAmounts {
  const to = payment.settlement_currency;
  const settle = (amount: number) => convert(amount, currency, to, payment);
  return {
    currency,
    ...amounts,
    settlement_currency: to,
    settlement_price: settle(amounts.price),
    settlement_subtotal: settle(amounts.subtotal),
    settlement_subtotal_original: settle(amounts.subtotal_original),
    settlement_discount: settle(amounts.discount),
    settlement_tax: settle(amounts.tax),
    settlement_tax_original: settle(amounts.tax_original),
    settlement_total: settle(amounts.total),
    settlement_total_original: settle(amounts.total_original),
  };
}

/**
 * Prices a sale: every product line, the shipping line and the sale totals with settlement
 * twins, `tax_inclusive`, `discount_on_gross` and the item counts (§1.3, §1.4).
 * @example computeSale({ currency: 'USD', lines: [{ …, quantity: 2, unitPriceOriginal: 19 }], …10 % rule }) // subtotal 38, tax 3.8, total 41.8
 */
export function computeSale(input: SaleInput): SaleTotals {
  const currency = input.currency.toUpperCase();
  const treatment: TaxTreatment = taxTreatmentOf(input.taxLocation, input.customerTaxExempt, input.tax);
  const productTax: LineTax = {
    rate: treatment.locationRate,
    taxInclusive: treatment.tax_inclusive,
    taxExempt: treatment.tax_exempt,
  };

  const items = input.lines.map((line): SaleLineTotals => {
    checkQuantity(line.quantity, `Quantity of ${line.itemId}`);
    checkAmount(line.unitPriceOriginal, `Unit price of ${line.itemId}`);
    checkAmount(line.discount ?? 0, `Discount of ${line.itemId}`);
    const amounts = lineAmounts(line.unitPriceOriginal, line.quantity, line.discount ?? 0, productTax, currency);
    return {
      item_id: line.itemId,
      product_id: line.productId,
      name: line.name,
      type: line.type,
      quantity: line.quantity,
      tax_code: line.taxCode,
      ...withSettlement(amounts, currency, input.payment),
    };
  });

  let shippingItem: ShippingLineTotals | null = null;
  if (input.shipping) {
    checkAmount(input.shipping.priceOriginal, `Shipping price of ${input.shipping.methodId}`);
    // Shipping is never discounted in v1, and is taxed at the product rate only with `tax_shipping`.
    const shippingTax: LineTax = { ...productTax, rate: input.tax.tax_shipping ? treatment.locationRate : 0 };
    const amounts = lineAmounts(input.shipping.priceOriginal, 1, 0, shippingTax, currency);
    shippingItem = {
      item_id: input.shipping.methodId,
      name: input.shipping.name,
      quantity: 1,
      ...withSettlement(amounts, currency, input.payment),
    };
  }

  const sumOf = (field: 'subtotal' | 'subtotal_original' | 'discount' | 'tax' | 'tax_original') =>
    sum(items.map((item) => item[field]), currency);
  const subtotal = sumOf('subtotal');
  const subtotalOriginal = sumOf('subtotal_original');
  const shipping = shippingItem?.subtotal ?? 0;
  const shippingOriginal = shippingItem?.subtotal_original ?? 0;
  const tax = sum([sumOf('tax'), shippingItem?.tax ?? 0], currency);
  const taxOriginal = sum([sumOf('tax_original'), shippingItem?.tax_original ?? 0], currency);
  // Inclusive prices already contain their tax.
  const saleTotal = sum(treatment.tax_inclusive ? [subtotal, shipping] : [subtotal, shipping, tax], currency);
  const saleTotalOriginal = sum(
    treatment.tax_inclusive ? [subtotalOriginal, shippingOriginal] : [subtotalOriginal, shippingOriginal, taxOriginal],
    currency,
  );
  const discount = sumOf('discount');

  const to = input.payment.settlement_currency;
  const settle = (amount: number) => convert(amount, currency, to, input.payment);
  return {
    currency,
    settlement_currency: to,
    items,
    shipping_item: shippingItem,
    subtotal,
    subtotal_original: subtotalOriginal,
    shipping,
    shipping_original: shippingOriginal,
    discount,
    tax,
    tax_original: taxOriginal,
    total: saleTotal,
    total_original: saleTotalOriginal,
    settlement_subtotal: settle(subtotal),
    settlement_subtotal_original: settle(subtotalOriginal),
    settlement_shipping: settle(shipping),
    settlement_shipping_original: settle(shippingOriginal),
    settlement_discount: settle(discount),
    settlement_tax: settle(tax),
    settlement_tax_original: settle(taxOriginal),
    settlement_total: settle(saleTotal),
    settlement_total_original: settle(saleTotalOriginal),
    tax_inclusive: treatment.tax_inclusive,
    discount_on_gross: treatment.discount_on_gross,
    items_count: items.length,
    items_quantity: items.reduce((count, item) => count + item.quantity, 0),
  };
}
