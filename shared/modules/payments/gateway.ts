/**
 * The payment gateway port (commerce.md §4.3, §4.4). The payments capability charges through
 * this interface only, so the built-in test gateway and a future live gateway are
 * interchangeable. Card validation happens before a charge (cards.ts); a gateway judges the
 * card the way a processor would.
 */
import type { Address } from '../../rest/addresses';
import type { NewCard } from './cards';

/**
 * How the built-in test gateway treats a card number (§4.4). A saved card keeps the class of
 * its number because the number itself is never stored (§4.2).
 */
export type TestBehaviour = 'approve' | 'decline' | 'error' | 'timeout';

/** What a saved payment method keeps of a card: never the full number or the CVV. */
export interface SavedCardRef {
  kind: 'saved';
  /** Brand display name from `CARD_BRANDS`, or null when the leading digits match none. */
  brand: string | null;
  last4: string;
  /** Digits in the full number, so the mask has the original length. */
  numberLength: number;
  expMonth: number;
  /** Four digits. */
  expYear: number;
  cardholderName: string | null;
  billingAddress: Address | null;
  testBehaviour: TestBehaviour;
}

/** A charge to run: the amount in `currency` and the card it is taken from. */
export interface ChargeRequest {
  amount: number;
  currency: string;
  card: NewCard | SavedCardRef;
  /** The card's billing postal code, else the sale customer's (§4.4); null when neither is known. */
  billingPostalCode: string | null;
  /** `/settings/payment.ignore_bad_cvv`: approve despite a rejected security code. */
  ignoreBadCvv: boolean;
  /** `/settings/payment.ignore_bad_avs`: approve despite a failed address check. */
  ignoreBadAvs: boolean;
}

/** A gateway's verdict; everything but `approved` is a failed payment (§4.4). */
export type ChargeOutcome = 'approved' | 'declined' | 'invalid_cvv' | 'invalid_avs' | 'error' | 'timeout';

/** A non-approved outcome, which `gatewayError` turns into the API error. */
export type FailedChargeOutcome = Exclude<ChargeOutcome, 'approved'>;

/** The payment's `response_data` (§4.1); each value may be null when the gateway said nothing. */
export interface ChargeResponseData {
  authorization_code: string | null;
  avs_match: boolean | null;
  cvv_match: boolean | null;
  message: string | null;
}

/** The result of `PaymentGateway.charge`. */
export interface ChargeResult {
  outcome: ChargeOutcome;
  /** The gateway's transaction id (`gateway_transaction_id`); null when none was assigned. */
  transactionId: string | null;
  responseData: ChargeResponseData;
}

/**
 * A payment gateway: takes money from a card, or says why it did not. Charges carry an
 * idempotency key (the platform uses `<account>#<mode>#<payment_id>`), as real gateways offer:
 * a repeated charge with the same key answers the first result and takes nothing more, and
 * the result can be looked up later. That is what lets a crashed checkout be finished (the
 * charge happened: complete it) or failed safely (it did not: void the key so it never will).
 */
export interface PaymentGateway {
  /**
   * Charges the card once per `key`. Resolves with every outcome, failed ones included;
   * rejects only on a bug or when the gateway cannot be reached at all. Without a key (card
   * verification before saving a method) nothing is recorded.
   */
  charge(request: ChargeRequest & { key?: string }): Promise<ChargeResult>;
  /** The recorded result of the charge with `key`, or undefined when none was made. */
  lookup(key: string): Promise<ChargeResult | undefined>;
  /**
   * Makes sure no charge with `key` happens from now on, and answers the charge if one
   * already happened (then nothing is voided: the caller must honour it).
   */
  voidKey(key: string): Promise<ChargeResult | undefined>;
}
