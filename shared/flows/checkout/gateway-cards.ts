/**
 * A card the platform knows only from a live gateway's answer (a Stripe.js `pm_…` token,
 * commerce.md §4.7) as the payment's masked `payment_method.data` (§4.2).
 */
import type { MaskedCard } from '../../modules/payments';
import type { ChargeResult } from '../../platform/ports';

/** Stripe's brand words as the platform's display names (`CARD_BRANDS`). */
const BRANDS: Readonly<Record<string, string>> = {
  visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover', jcb: 'JCB', diners: 'Diners Club',
};

/** The masked data of a gateway's card: `{brand: 'visa', last4: '4242', ...}` → `Visa 4242`, mask `************4242`. */
export function gatewayCardData(card: NonNullable<ChargeResult['card']>, cardholderName: string | null): MaskedCard {
  const brand = card.brand ? (BRANDS[card.brand] ?? null) : null;
  const length = brand === 'American Express' ? 15 : brand === 'Diners Club' ? 14 : 16;
  return {
    type: brand,
    mask: '*'.repeat(length - card.last4.length) + card.last4,
    last4: card.last4,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    cardholder_name: cardholderName,
    label: `${brand ?? 'Card'} ${card.last4}`,
    billing_address: null,
  };
}
