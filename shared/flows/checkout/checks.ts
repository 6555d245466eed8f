/**
 * The payment checks both ways of paying share (commerce.md §4.3): required customer fields,
 * the payment method, duplicates; and saving a card after the payment.
 */
import type { PaymentSettings } from '../../modules/accounts';
import { logger } from '../../core/logging';
import { invalid } from '../../rest/input';
import type { RecordScope } from '../../store/entity';
import { FIELD_PATHS, type SaleCustomer } from '../../modules/carts';
import { cardFingerprint, gatewayCard, maskedCard, type MaskedCard, DuplicatePaymentError, type PaymentRecord, type PaymentMethodInput, findRecentDuplicate, recordSavedMethod } from '../../modules/payments';
import type { NewCard, SavedCardRef, TokenCard } from '../../platform/ports';
import type { CardRules } from './sale-gateway';
import { findCustomerPaymentMethod, storePaymentMethod } from '../../modules/payment-methods';
import type { Clock } from '../../platform/ports';

function valueAt(customer: SaleCustomer, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), customer);
}

/** Check 3: the required customer fields are present, and the billing country is not blocked. */
export function checkCustomer(customer: SaleCustomer, payment: PaymentSettings): void {
  const tokens = new Set(['email', ...payment.customer_required_fields]);
  for (const token of tokens) {
    for (const path of FIELD_PATHS[token as keyof typeof FIELD_PATHS] ?? []) {
      const value = valueAt(customer, path);
      if (value === null || value === undefined || value === '') {
        invalid(`customer.${path}`, `The property customer.${path} is required to pay.`, 'required');
      }
    }
  }
  const country = customer.billing_address.country;
  if (country && payment.blocked_countries.includes(country)) {
    invalid('customer.billing_address.country', `Payments from ${country} are not accepted.`, 'not_allowed');
  }
}

/** A validated `payment_method`: a new card, or a saved method of the sale's customer. */
export interface ParsedPaymentMethod {
  card: NewCard | SavedCardRef | TokenCard;
  /** The saved method's id; null for a new card. */
  paymentMethodId: string | null;
  /** The masked `payment_method.data` the payment shows. */
  data: MaskedCard;
  /** The duplicate-detection fingerprint (§4.5): the card-number hash, or the saved method's id. */
  fingerprint: string;
  /** `save: true` was sent with a new card. */
  save: boolean;
}

/**
 * Check 6: the payment method (§4.2) of a parsed body (`paymentMethodInput`, which checked its
 * shape): needed unless the total is zero (the caller asks only then). A new card gets its Luhn
 * and expiry checks; a `payment_method_id` must be a saved method of `customerId` (the sale's
 * linked customer), else 400 invalid_input `not_found`.
 */
export async function parsePaymentMethod(method: PaymentMethodInput, now: number, scope: RecordScope, customerId: string | null, rules: CardRules = { gateway: 'test', allowRawCardData: false }): Promise<ParsedPaymentMethod> {
  if (!method) invalid('payment_method', 'The property payment_method is required.', 'required');
  if (method.payment_method_id) {
    const id = method.payment_method_id;
    const saved = customerId ? await findCustomerPaymentMethod(scope, customerId, id) : undefined;
    if (!saved) invalid('payment_method.payment_method_id', 'The payment method does not belong to the sale customer.', 'not_found');
    if (rules.gateway === 'stripe' && !saved.card.gateway) invalid('payment_method.payment_method_id', 'This card was saved without Stripe and cannot be charged through Stripe; enter it again.', 'not_allowed');
    return { card: saved.card, paymentMethodId: saved.payment_method_id, data: saved.data, fingerprint: `payment_method:${saved.payment_method_id}`, save: false };
  }
  if (!method.data) invalid('payment_method.data', 'The property payment_method.data is required.', 'required');
  // §4.7: through Stripe a card is a `pm_…` token; a raw number only when the account allows it.
  // Live mode without `stripe_live` has no gateway: its token passes here, and check 8 answers 409.
  const card = gatewayCard(method.data, 'payment_method.data', rules, now);
  if (card.kind === 'token') {
    return { card, paymentMethodId: null, data: tokenMask(method.data.cardholder_name ?? null), fingerprint: `token:${card.token}`, save: method.save === true };
  }
  return { card, paymentMethodId: null, data: maskedCard(card), fingerprint: cardFingerprint(card.number, scope.accountId), save: method.save === true };
}

/** The masked data of a token card until Stripe says what card it is (the charge fills it in). */
function tokenMask(cardholderName: string | null): MaskedCard {
  return { type: null, mask: '', last4: '', exp_month: 0, exp_year: 0, cardholder_name: cardholderName, label: 'Card', billing_address: null };
}

/** Check 7: no completed payment with the same card, currency and total inside the window. */
export async function assertNotDuplicate(scope: RecordScope, fingerprint: string, currency: string, total: number, windowSeconds: number, now: number): Promise<void> {
  if (windowSeconds <= 0) return;
  const recent = await findRecentDuplicate(scope, fingerprint, currency, total, now - windowSeconds * 1000);
  if (recent) throw new DuplicatePaymentError(recent.payment_id);
}

/**
 * Saves the new card of a completed payment on its customer (§4.2 `save: true`, when
 * `allow_save_cards` is on) and records the method's id on the payment. Runs after the
 * completion committed; a failure here leaves the payment completed without a saved card.
 * The saved method is dated by `clock`.
 */
export async function saveCardAfterPayment(scope: RecordScope, method: ParsedPaymentMethod | undefined, payment: PaymentRecord, allowSaveCards: boolean, clock: Clock): Promise<PaymentRecord> {
  if (!method || !method.save || !allowSaveCards || !payment.customer_id || !payment.payment_method) return payment;
  // A subscription sale saved the card with its order already.
  if (payment.payment_method.payment_method_id) return payment;
  // Through Stripe the card is kept there, and the platform's method keeps its Stripe ids (§4.7).
  const stripeSaved = payment.gateway_charge?.saved_as;
  const { data } = payment.payment_method;
  const card: NewCard | SavedCardRef | undefined = payment.gateway_charge
    ? stripeSaved
      ? { kind: 'saved', brand: data.type, last4: data.last4, numberLength: data.mask.length, expMonth: data.exp_month, expYear: data.exp_year, cardholderName: data.cardholder_name, billingAddress: null, testBehaviour: 'approve', gateway: stripeSaved }
      : undefined
    : method.card.kind === 'new' ? method.card : undefined;
  if (!card) return payment;
  try {
    const saved = await storePaymentMethod(scope, payment.customer_id, card, undefined, clock.nowMs());
    await recordSavedMethod(payment, saved.payment_method_id);
    return { ...payment, payment_method: { ...payment.payment_method, payment_method_id: saved.payment_method_id } };
  } catch (error) {
    logger.error('Saving the card of a completed payment failed', { payment_id: payment.payment_id, error: error as Error });
    return payment;
  }
}
