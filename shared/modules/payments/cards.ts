/**
 * Card rules (commerce.md §4.2, §4.5): new-card validation, brand detection, the duplicate
 * fingerprint, what a saved method keeps, and the masked `payment_method.data` of responses.
 * The full number and the CVV live only in a `NewCard` for the length of one request.
 */
import { createHmac } from 'node:crypto';
import { addressJson, mergeAddress, type Address } from '../../rest/addresses';
import { invalid } from '../../rest/input';
import type { NewCard, SavedCardRef, TokenCard } from '../../platform/ports';


import type { CardDataInput, PaymentCardDataInput } from './payment-schemas';


/** `payment_method.data` as responses show it (§4.2). */
export interface MaskedCard {
  /** The brand display name, or null when the leading digits match no known brand. */
  type: string | null;
  /** Every digit but the last four replaced by `*`: `************4242`. */
  mask: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  cardholder_name: string | null;
  /** Brand and last four digits, `Visa 4242`; `Card 4242` for an unknown brand. */
  label: string;
  billing_address: Record<string, unknown> | null;
}

/** Whether a digit string passes the Luhn check (`luhnValid('4242424242424242')` → true). */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Leading-digit ranges per brand: [brand, prefix length, lowest, highest]. Names match `CARD_BRANDS`. */
const BRAND_RANGES: readonly (readonly [string, number, number, number])[] = [
  ['Visa', 1, 4, 4],
  ['Mastercard', 2, 51, 55],
  ['Mastercard', 4, 2221, 2720],
  ['American Express', 2, 34, 34],
  ['American Express', 2, 37, 37],
  ['Discover', 4, 6011, 6011],
  ['Discover', 3, 644, 649],
  ['Discover', 2, 65, 65],
  ['JCB', 4, 3528, 3589],
  ['Diners Club', 3, 300, 305],
  ['Diners Club', 2, 36, 36],
  ['Diners Club', 2, 38, 38],
];

/** The brand display name from the leading digits (`cardBrand('4242…')` → `Visa`), or null. */
export function cardBrand(number: string): string | null {
  const digits = number.replace(/\D/g, '');
  for (const [brand, length, low, high] of BRAND_RANGES) {
    if (digits.length < length) continue;
    const prefix = Number(digits.slice(0, length));
    if (prefix >= low && prefix <= high) return brand;
  }
  return null;
}

/**
 * The duplicate-detection fingerprint of a card number within one account (§4.5): HMAC-SHA256
 * keyed by the account id, so the stored value reveals no number and differs between accounts.
 * Spaces and dashes do not change it.
 */
export function cardFingerprint(number: string, accountId: string): string {
  const digits = number.replace(/[ -]/g, '');
  return createHmac('sha256', `cartwheel-card-fingerprint:${accountId}`).update(digits).digest('hex');
}

/**
 * The new card of a parsed `payment_method.data` (`cardData`, §4.2): the checks the schema
 * leaves, the Luhn check and expiry, throw 400 invalid_input with the property's dot path under
 * `propertyPrefix` (reason `invalid` or `expired`, e.g. `payment_method.data`). `now`, the
 * platform clock's epoch ms, decides expiry.
 */
export function newCard(data: CardDataInput, propertyPrefix: string, now: number): NewCard {
  const at = (name: string): string => `${propertyPrefix}.${name}`;
  if (!luhnValid(data.number)) invalid(at('number'), `The property ${at('number')} is not a valid card number.`);
  const { exp_month: expMonth, exp_year: expYear } = data;
  if (cardExpired({ expMonth, expYear }, now)) {
    const property = expYear < new Date(now).getUTCFullYear() ? at('exp_year') : at('exp_month');
    invalid(property, 'The card has expired.', 'expired');
  }
  const billingAddress = data.billing_address ? mergeAddress(undefined, data.billing_address) : null;
  const card: NewCard = { kind: 'new', number: data.number, expMonth, expYear, cvv: data.cvv, cardholderName: data.cardholder_name ?? null, billingAddress };
  // A stray log line or JSON.stringify of the card must not leak the number or the CVV.
  Object.defineProperty(card, 'toJSON', { value: () => maskedCard(card), enumerable: false });
  return card;
}

/** `payment_method.data` for a response: brand, mask, last four, expiry, name, label, address. */
export function maskedCard(card: NewCard | SavedCardRef): MaskedCard {
  const { brand, last4, length } = card.kind === 'new'
    ? { brand: cardBrand(card.number), last4: card.number.slice(-4), length: card.number.length }
    : { brand: card.brand, last4: card.last4, length: card.numberLength };
  return {
    type: brand,
    mask: '*'.repeat(Math.max(0, length - last4.length)) + last4,
    last4,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    cardholder_name: card.cardholderName,
    label: `${brand ?? 'Card'} ${last4}`,
    billing_address: card.billingAddress === null ? null : addressJson(card.billingAddress),
  };
}

/** Whether the card's expiry month has ended at `now` (epoch ms). */
export function cardExpired(card: { expMonth: number; expYear: number }, now: number): boolean {
  // Good through the last day of the expiry month, in UTC like every platform date;
  // Date.UTC's month is zero-based, so `expMonth` here is the first instant of the next month.
  return now >= Date.UTC(card.expYear, card.expMonth, 1);
}

/** Stripe's brand words as the platform's display names (`CARD_BRANDS`). */
const GATEWAY_BRANDS: Readonly<Record<string, string>> = {
  visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover', jcb: 'JCB', diners: 'Diners Club',
};

/** A live gateway's brand word (`visa`) as the display name (`Visa`), or null when unknown. */
export function gatewayBrandName(brand: string | null | undefined): string | null {
  return brand ? (GATEWAY_BRANDS[brand] ?? null) : null;
}

/** The digits a card of a display brand has (for the mask's length when only the last four are known). */
export function brandNumberLength(brand: string | null): number {
  return brand === 'American Express' ? 15 : brand === 'Diners Club' ? 14 : 16;
}

/**
 * The card of a parsed card `data` (under `propertyPrefix`) as a gateway may take it (commerce.md
 * §4.7): a `pm_…` token only where Stripe charges (`gateway` `test`, the built-in gateway, has no
 * tokens: 400 `not_allowed`; with no gateway at all the caller answers 409 itself), and through
 * Stripe a raw number only when the account allows raw card data (else 400
 * `tokenization_required`). A raw number gets `newCard`'s checks. Checkout and saved cards both
 * apply these rules through here.
 */
export function gatewayCard(data: PaymentCardDataInput, propertyPrefix: string, rules: { gateway: 'test' | 'stripe' | 'none'; allowRawCardData: boolean }, now: number): TokenCard | NewCard {
  if (data.token !== undefined) {
    if (rules.gateway === 'test') invalid(`${propertyPrefix}.token`, 'Card tokens are taken only through a Stripe connection (/settings/payment).', 'not_allowed');
    return { kind: 'token', token: data.token };
  }
  if (rules.gateway === 'stripe' && !rules.allowRawCardData) {
    invalid(`${propertyPrefix}.number`, 'Send the card as a Stripe token ({"token": "pm_…"}) made with Stripe.js; raw card numbers are not accepted.', 'tokenization_required');
  }
  return newCard(data as CardDataInput, propertyPrefix, now);
}
