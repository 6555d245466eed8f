/**
 * The built-in test gateway (commerce.md §4.4): test mode's only gateway. Fixed card numbers
 * decline, fail or time out; CVV `000` and postal code `00000` fail the security-code and
 * address checks; every other valid, unexpired card is approved. Nothing leaves the process.
 */
import type { Clock } from '../../platform/ports';
import { ID_ALPHABET, randomString } from '../../core/ids';
import { cardBrand, cardExpired, luhnValid } from './cards';
import { findCharge, recordOnce } from './gateway-charge-store';
import type { ChargeOutcome, ChargeRequest, ChargeResponseData, ChargeResult, NewCard, PaymentGateway, RefundRequest, RefundResult, SavedCardRef, TestBehaviour } from '../../platform/ports';

/** The numbers with a fixed outcome; every other valid number approves. */
const FIXED_BEHAVIOURS: ReadonlyMap<string, TestBehaviour> = new Map([
  ['4000000000000002', 'decline'],
  ['4000000000000119', 'error'],
  ['4000000000000127', 'timeout'],
]);

/** The CVV the test gateway rejects. */
export const TEST_BAD_CVV = '000';
/** The billing postal code the test gateway's address check fails. */
export const TEST_BAD_POSTAL_CODE = '00000';

/**
 * How the test gateway treats a card number: `testBehaviourOf('4000000000000002')` →
 * `decline`. A number that is not 12–19 digits or fails the Luhn check declines too.
 */
export function testBehaviourOf(number: string): TestBehaviour {
  const digits = number.replace(/[ -]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) return 'decline';
  return FIXED_BEHAVIOURS.get(digits) ?? 'approve';
}

/** What a saved payment method keeps of a new card: brand, last four, expiry and the test behaviour. */
export function savedCardRef(card: NewCard): SavedCardRef {
  return {
    kind: 'saved',
    brand: cardBrand(card.number),
    last4: card.number.slice(-4),
    numberLength: card.number.length,
    expMonth: card.expMonth,
    expYear: card.expYear,
    cardholderName: card.cardholderName,
    billingAddress: card.billingAddress,
    // The number is gone once saved, so its behaviour is recorded now: a renewal on a saved
    // 4000000000000002 must still decline (§4.4).
    testBehaviour: testBehaviourOf(card.number),
  };
}

/**
 * The built-in test gateway, on the platform's `clock` (card expiry, ledger dates). It answers
 * at once, timeouts included. A keyed charge is recorded in its ledger (gateway-charge-store.ts)
 * before it answers, exactly once per key; a timeout or processor error is recorded too (no
 * money moved, and a retry of the key answers the same). A refund is recorded the same way,
 * once per refund key, so a retried refund moves money once.
 */
export function testGateway(clock: Clock): PaymentGateway {
  return {
    async charge(request: ChargeRequest & { key?: string }): Promise<ChargeResult> {
      const decided = decide(request, clock.nowMs());
      if (!request.key) return decided;
      const standing = await recordOnce(request.key, { state: 'charged', result: decided, amount: request.amount, currency: request.currency, created_ms: clock.nowMs() });
      return standing.result ?? result('declined', 'The charge was cancelled.');
    },
    async lookup(key: string): Promise<ChargeResult | undefined> {
      return (await findCharge(key))?.result ?? undefined;
    },
    async voidKey(key: string): Promise<ChargeResult | undefined> {
      const standing = await recordOnce(key, { state: 'voided', result: null, amount: null, currency: null, created_ms: clock.nowMs() });
      return standing.result ?? undefined;
    },
    // Refunds are never refused here (commerce.md §7), except of a charge the ledger has no approval for.
    async refund(request: RefundRequest): Promise<RefundResult> {
      const charge = await findCharge(request.chargeKey);
      const refund: RefundResult = charge?.result?.outcome === 'approved'
        ? { outcome: 'refunded', refundId: `test_re_${randomString(16, ID_ALPHABET)}`, message: 'Refunded.' }
        : { outcome: 'refused', refundId: null, message: 'No approved charge to refund.' };
      const standing = await recordOnce(request.key, { state: 'refunded', result: null, amount: request.amount, currency: request.currency, created_ms: clock.nowMs(), charge_key: request.chargeKey, refund });
      return standing.refund ?? { outcome: 'refused', refundId: null, message: 'The key was used for something else.' };
    },
    async lookupRefund(key: string): Promise<RefundResult | undefined> {
      return (await findCharge(key))?.refund;
    },
  };
}

/** The §4.4 rules in their order at `now` (epoch ms): number, then CVV, then postal code. */
function decide(request: ChargeRequest, now: number): ChargeResult {
  const { card } = request;
  // A gateway token is Stripe's (commerce.md §4.7): the built-in gateway never sees one.
  if (card.kind === 'token') return result('declined', 'The built-in test gateway takes card numbers, not gateway tokens.');
  const behaviour = card.kind === 'new' ? testBehaviourOf(card.number) : card.testBehaviour;
  if (behaviour === 'decline') return result('declined', 'The card was declined.');
  if (behaviour === 'error') return result('error', 'Processor error.');
  if (behaviour === 'timeout') return result('timeout', 'Processor timeout.');
  // New cards are refused before the charge when expired; a saved card can expire later.
  if (cardExpired(card, now)) return result('declined', 'The card has expired.');

  // Saved cards carry no CVV, so the security-code rule applies to new cards only.
  let cvvMatch: boolean | null = card.kind === 'new' ? true : null;
  if (card.kind === 'new' && card.cvv === TEST_BAD_CVV) {
    if (!request.ignoreBadCvv) return result('invalid_cvv', 'The security code was not accepted.', { cvv_match: false });
    cvvMatch = false;
  }

  const postalCode = request.billingPostalCode?.trim() ?? '';
  let avsMatch: boolean | null = postalCode === '' ? null : true;
  if (postalCode === TEST_BAD_POSTAL_CODE) {
    if (!request.ignoreBadAvs) return result('invalid_avs', 'The billing address check failed.', { cvv_match: cvvMatch, avs_match: false });
    avsMatch = false;
  }

  return result('approved', 'Approved.', {
    authorization_code: randomString(6, ID_ALPHABET),
    cvv_match: cvvMatch,
    avs_match: avsMatch,
  });
}

/** A result with a fresh transaction id, except for errors and timeouts, where no transaction exists. */
function result(outcome: ChargeOutcome, message: string, data: Partial<ChargeResponseData> = {}): ChargeResult {
  const reached = outcome !== 'error' && outcome !== 'timeout';
  return {
    outcome,
    transactionId: reached ? `test_${randomString(16, ID_ALPHABET)}` : null,
    responseData: { authorization_code: null, avs_match: null, cvv_match: null, message, ...data },
  };
}
