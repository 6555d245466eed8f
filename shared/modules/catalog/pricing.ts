/**
 * Currencies of a request and unit prices in them (commerce.md §1.1): the `currency`
 * parameter must be an enabled currency; a product's price in C is its entry for C, else its
 * default-currency entry converted, else its first entry converted, rounded per §1.2.
 */
import type { PaymentSettings } from '../accounts';
import { InvalidInputError } from '../../http/errors';
import { roundMoney } from '../../rest/money';

/** A price entry of a product. */
export interface PriceEntry {
  currency: string;
  price: number;
}

/** The currency a request asks for (`currency` parameter), or the account default. */
export function requestCurrency(query: Record<string, string>, payment: PaymentSettings): string {
  const raw = query.currency;
  if (!raw) return payment.default_payment_currency;
  const currency = raw.toUpperCase();
  if (!payment.currencies.includes(currency)) {
    throw new InvalidInputError(`The currency ${raw} is not enabled for this account.`, { parameter: 'currency', reason: 'invalid' });
  }
  return currency;
}

/** Rate of a currency: units per one unit of the default currency (default: 1). */
function rate(currency: string, payment: PaymentSettings): number {
  if (currency === payment.default_payment_currency) return 1;
  const value = payment.exchange_rates[currency];
  if (!value) throw new Error(`No exchange rate for ${currency}`);
  return value;
}

/** Converts an amount between enabled currencies and rounds it in the target currency. */
export function convert(amount: number, from: string, to: string, payment: PaymentSettings): number {
  if (from === to) return roundMoney(amount, to);
  // Binary floating point turns 19.99 × 150 into 2998.4999…; 15 significant digits drop that
  // noise, so the half-away-from-zero rounding of §1.2 sees the decimal value.
  return roundMoney(Number(((amount / rate(from, payment)) * rate(to, payment)).toPrecision(15)), to);
}

/** A product's unit price in `currency`. */
export function unitPrice(prices: readonly PriceEntry[], currency: string, payment: PaymentSettings): number {
  const exact = prices.find((entry) => entry.currency === currency);
  if (exact) return exact.price;
  const source = prices.find((entry) => entry.currency === payment.default_payment_currency) ?? prices[0];
  if (!source) return 0;
  return convert(source.price, source.currency, currency, payment);
}
