/**
 * A card the platform knows only from a live gateway's answer (a Stripe.js `pm_…` token,
 * commerce.md §4.7) as the payment's masked `payment_method.data` (§4.2).
 */
import { brandNumberLength, gatewayBrandName, type MaskedCard } from '../../modules/payments';
import type { ChargeResult } from '../../platform/ports';

/** The masked data of a gateway's card: `{brand: 'visa', last4: '4242', ...}` → `Visa 4242`, mask `************4242`. */
export function gatewayCardData(card: NonNullable<ChargeResult['card']>, cardholderName: string | null): MaskedCard {
  const brand = gatewayBrandName(card.brand);
  const length = brandNumberLength(brand);
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
