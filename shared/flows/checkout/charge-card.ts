/**
 * The one charge of a payment, through the gateway port (commerce.md §4.4): keyed by the
 * payment, so a repeated or recovered charge never takes money twice. A zero total charges
 * nothing and approves.
 */
import type { PaymentSettings } from '../../modules/accounts';
import { countOutcome, metricNames } from '../../core/metrics';
import type { Platform, NewCard, ChargeResult, SavedCardRef } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { chargeKey } from '../../modules/payments';

/** What to charge. */
export interface CardCharge {
  scope: RecordScope;
  paymentId: string;
  amount: number;
  currency: string;
  /** Absent for a zero total. */
  card: NewCard | SavedCardRef | undefined;
  /** The sale's billing postal code when the card carries none (§4.4 AVS). */
  fallbackPostalCode: string | null;
  settings: Pick<PaymentSettings, 'ignore_bad_cvv' | 'ignore_bad_avs'>;
}

/** The approval of a zero total. */
export const NOTHING_TO_CHARGE: ChargeResult = {
  outcome: 'approved',
  transactionId: null,
  responseData: { authorization_code: null, avs_match: null, cvv_match: null, message: 'Nothing to charge' },
};

/** Charges the payment's card once (by its key) and answers the gateway's verdict. */
export async function chargeCard(platform: Platform, charge: CardCharge): Promise<ChargeResult> {
  if (!charge.card) return NOTHING_TO_CHARGE;
  const result = await platform.gateway.charge({
    key: chargeKey(charge.scope, charge.paymentId),
    amount: charge.amount,
    currency: charge.currency,
    card: charge.card,
    billingPostalCode: (charge.card.billingAddress?.postal_code as string | null | undefined) ?? charge.fallbackPostalCode ?? null,
    ignoreBadCvv: charge.settings.ignore_bad_cvv,
    ignoreBadAvs: charge.settings.ignore_bad_avs,
  }).catch((error: unknown) => {
    countOutcome(metricNames.payments, 'error');
    throw error;
  });
  // The card's answer (declined, bad CVV or AVS) apart from the gateway's failure (error, timeout).
  countOutcome(metricNames.payments, result.outcome === 'approved' ? 'succeeded' : result.outcome === 'error' || result.outcome === 'timeout' ? 'error' : 'declined');
  return result;
}
