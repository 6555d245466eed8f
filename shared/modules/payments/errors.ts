/**
 * Errors of payments (conventions.md §6, commerce.md §4.3–§4.5). The 402, 502 and 504 errors
 * take a `meta` so the caller can attach the failed payment as `meta.payment`.
 */
import { ApiError } from '../../http/errors';
import type { FailedChargeOutcome } from '../../platform/ports';

type Meta = Record<string, unknown> | null;

/** Base class of every payments error. */
export class PaymentError extends ApiError {
  override name = 'PaymentError';
}

/** 402 payment_declined: the gateway refused the payment. */
export class PaymentDeclinedError extends PaymentError {
  override name = 'PaymentDeclinedError';
  constructor(meta: Meta = null, message = 'The card was declined.') {
    super(402, 'payment_declined', message, meta);
  }
}

/** 402 invalid_cvv: the gateway refused the card's security code. */
export class InvalidCvvError extends PaymentError {
  override name = 'InvalidCvvError';
  constructor(meta: Meta = null, message = 'The card was declined because of its security code.') {
    super(402, 'invalid_cvv', message, meta);
  }
}

/** 402 invalid_avs: the billing address check failed. */
export class InvalidAvsError extends PaymentError {
  override name = 'InvalidAvsError';
  constructor(meta: Meta = null, message = 'The card was declined because the billing address did not match.') {
    super(402, 'invalid_avs', message, meta);
  }
}

/** 502 bank_network_error: the gateway or processor returned an error. */
export class BankNetworkError extends PaymentError {
  override name = 'BankNetworkError';
  constructor(meta: Meta = null, message = 'The payment processor returned an error. Try again later.') {
    super(502, 'bank_network_error', message, meta);
  }
}

/** 504 bank_network_timeout: the gateway or processor did not answer in time. */
export class BankNetworkTimeoutError extends PaymentError {
  override name = 'BankNetworkTimeoutError';
  constructor(meta: Meta = null, message = 'The payment processor did not answer in time. Try again later.') {
    super(504, 'bank_network_timeout', message, meta);
  }
}

/** 409 duplicate: the payment repeats a recent one (§4.5); meta names the earlier payment. */
export class DuplicatePaymentError extends PaymentError {
  override name = 'DuplicatePaymentError';
  constructor(paymentId: string) {
    super(409, 'duplicate', `The payment repeats the recent payment ${paymentId}. Send allow_duplicate: true to charge again.`, {
      payment_id: paymentId,
    });
  }
}

/** 409 feature_not_enabled: live card charges until a live gateway exists (§4.3). */
export class FeatureNotEnabledError extends PaymentError {
  override name = 'FeatureNotEnabledError';
  constructor(message = 'Live card payments are not enabled for this account.', meta: Meta = null) {
    super(409, 'feature_not_enabled', message, meta);
  }
}

/** The error class of each failed-charge outcome: one table for the error thrown and the code a failed payment stores. */
const OUTCOME_ERRORS: Record<FailedChargeOutcome, new (meta?: Meta) => PaymentError> = {
  declined: PaymentDeclinedError,
  invalid_cvv: InvalidCvvError,
  invalid_avs: InvalidAvsError,
  error: BankNetworkError,
  timeout: BankNetworkTimeoutError,
};

/**
 * The API error for a failed charge: `gatewayError(result.outcome, { payment })` is thrown
 * once the failed payment is stored, so the client sees it in `meta.payment`.
 */
export function gatewayError(outcome: FailedChargeOutcome, meta: Meta = null): PaymentError {
  return new OUTCOME_ERRORS[outcome](meta);
}

/** The `error_code` a failed payment stores for an outcome (the code of `gatewayError`). */
export function gatewayErrorCode(outcome: FailedChargeOutcome): string {
  return gatewayError(outcome).code;
}
