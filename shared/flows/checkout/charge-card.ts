/**
 * The one charge of a payment, through the gateway port (commerce.md §4.4): keyed by the
 * payment, so a repeated or recovered charge never takes money twice. A zero total charges
 * nothing and approves.
 */
import type { PaymentSettings } from '../../modules/accounts';
import { countOutcome, metricNames } from '../../core/metrics';
import { isWaiting, type Platform, type NewCard, type ChargeRequest, type ChargeResult, type SavedCardRef, type TokenCard } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { chargeKey, type GatewayCharge, type PaymentRecord } from '../../modules/payments';
import type { SaleGateway } from './sale-gateway';

/** What to charge. */
export interface CardCharge {
  scope: RecordScope;
  paymentId: string;
  amount: number;
  currency: string;
  /** Absent for a zero total. */
  card: NewCard | SavedCardRef | TokenCard | undefined;
  /** The sale's billing postal code when the card carries none (§4.4 AVS). */
  fallbackPostalCode: string | null;
  settings: Pick<PaymentSettings, 'ignore_bad_cvv' | 'ignore_bad_avs'>;
  /** The sale's gateway (sale-gateway.ts); the built-in one when absent. */
  sale?: SaleGateway;
  /** What a live gateway keeps with the charge (commerce.md §4.7 `metadata`). */
  metadata?: Record<string, string>;
  /** Keep the card at the gateway for later charges, for this customer. */
  saveCard?: { email: string | null; name: string | null };
  /** A renewal: the cardholder is not there (Stripe `off_session`). */
  offSession?: boolean;
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
  const gateway = charge.sale?.gateway ?? platform.gateway;
  const result = await gateway.charge({ key: chargeKey(charge.scope, charge.paymentId), ...chargeRequestOf(charge, charge.card) }).catch((error: unknown) => {
    countOutcome(metricNames.payments, 'error');
    throw error;
  });
  // The card's answer (declined, bad CVV or AVS) apart from the gateway's failure (error, timeout);
  // a live gateway's wait (3-D Secure, processing, no answer) counts once it is settled, not here.
  if (!isWaiting(result.outcome)) {
    countOutcome(metricNames.payments, result.outcome === 'approved' ? 'succeeded' : result.outcome === 'error' || result.outcome === 'timeout' ? 'error' : 'declined');
  }
  return result;
}

/** The port's request of a charge. */
function chargeRequestOf(charge: CardCharge, card: NewCard | SavedCardRef | TokenCard): ChargeRequest {
  const postalCode = card.kind === 'token' ? null : (card.billingAddress?.postal_code as string | null | undefined);
  return {
    amount: charge.amount,
    currency: charge.currency,
    card,
    billingPostalCode: postalCode ?? charge.fallbackPostalCode ?? null,
    ignoreBadCvv: charge.settings.ignore_bad_cvv,
    ignoreBadAvs: charge.settings.ignore_bad_avs,
    ...(charge.metadata ? { metadata: charge.metadata } : {}),
    ...(charge.saveCard ? { saveCard: charge.saveCard } : {}),
    ...(charge.offSession ? { offSession: true } : {}),
  };
}

/**
 * What the initiated payment keeps of a Stripe charge so it can be asked again after a lost
 * answer or a crash (never a card number); undefined for the built-in gateway and zero totals.
 */
export function gatewayChargeOf(charge: Omit<CardCharge, 'paymentId' | 'scope'>): GatewayCharge | undefined {
  if (charge.sale?.kind !== 'stripe' || !charge.card) return undefined;
  const { card } = charge;
  return {
    gateway: 'stripe',
    token: card.kind === 'token' ? card.token : null,
    saved: card.kind === 'saved' ? (card.gateway ?? null) : null,
    raw: card.kind === 'new',
    save: charge.saveCard ?? null,
    off_session: charge.offSession === true,
    metadata: charge.metadata ?? {},
  };
}

/** The charge request a stored Stripe payment was made with, to send again under its key; undefined for a raw card (its number is gone). */
export function replayRequestOf(payment: PaymentRecord): ChargeRequest | undefined {
  const stored = payment.gateway_charge;
  if (!stored || stored.raw) return undefined;
  const card: TokenCard | SavedCardRef | undefined = stored.token
    ? { kind: 'token', token: stored.token }
    : stored.saved
      ? { kind: 'saved', brand: null, last4: '', numberLength: 0, expMonth: 0, expYear: 0, cardholderName: null, billingAddress: null, testBehaviour: 'approve', gateway: stored.saved }
      : undefined;
  if (!card) return undefined;
  return {
    amount: payment.total,
    currency: payment.currency,
    card,
    billingPostalCode: null,
    ignoreBadCvv: false,
    ignoreBadAvs: false,
    metadata: stored.metadata,
    ...(stored.save ? { saveCard: stored.save } : {}),
    ...(stored.off_session ? { offSession: true } : {}),
  };
}
