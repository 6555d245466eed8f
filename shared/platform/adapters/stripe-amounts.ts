/**
 * Amounts as Stripe takes them (commerce.md §4.7): integers in the currency's smallest unit,
 * with Stripe's own zero-decimal and three-decimal lists (https://docs.stripe.com/currencies).
 * A three-decimal amount must end in 0. No SDK here, so the checkout can ask before it stores.
 */

/** Currencies Stripe takes in whole units. */
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);

/** Currencies Stripe takes in thousandths, whose last digit must be 0. */
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** The digits after the point of a Stripe amount in `currency` (`stripeDecimals('JPY')` → 0). */
export function stripeDecimals(currency: string): number {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  return 2;
}

/**
 * `amount` (a decimal in `currency`) in Stripe's smallest unit, or undefined when Stripe cannot
 * represent it: `stripeMinorAmount(12.5, 'USD')` → 1250, `(1000, 'JPY')` → 1000,
 * `(1.234, 'KWD')` → undefined (it must end in 0), `(0.5, 'JPY')` → undefined.
 */
export function stripeMinorAmount(amount: number, currency: string): number | undefined {
  const digits = stripeDecimals(currency);
  const scaled = amount * 10 ** digits;
  const minor = Math.round(scaled);
  if (Math.abs(scaled - minor) > 1e-6 || !Number.isSafeInteger(minor) || minor < 0) return undefined;
  if (digits === 3 && minor % 10 !== 0) return undefined;
  return minor;
}

/** A Stripe minor amount back as a decimal of `currency` (`fromStripeMinor(1250, 'usd')` → 12.5). */
export function fromStripeMinor(minor: number, currency: string): number {
  return minor / 10 ** stripeDecimals(currency);
}
