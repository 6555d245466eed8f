import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_TYPES } from '../../../shared/http/errors';
import { BankNetworkError, BankNetworkTimeoutError, DuplicatePaymentError, FeatureNotEnabledError, gatewayError, gatewayErrorCode, InvalidAvsError, InvalidCvvError, PaymentDeclinedError, PaymentError } from '../../../shared/modules/payments';
import type { FailedChargeOutcome } from '../../../shared/platform/ports';

describe('gatewayError', () => {
  const cases: [FailedChargeOutcome, new (...args: never[]) => PaymentError, number, string, string][] = [
    ['declined', PaymentDeclinedError, 402, 'payment_declined', 'transaction_error'],
    ['invalid_cvv', InvalidCvvError, 402, 'invalid_cvv', 'transaction_error'],
    ['invalid_avs', InvalidAvsError, 402, 'invalid_avs', 'transaction_error'],
    ['error', BankNetworkError, 502, 'bank_network_error', 'external_server_error'],
    ['timeout', BankNetworkTimeoutError, 504, 'bank_network_timeout', 'external_server_timeout'],
  ];

  for (const [outcome, type, status, code, errorType] of cases) {
    it(`maps ${outcome} to ${status} ${code}`, () => {
      const payment = { object: 'payment', payment_id: 'P7X2M9QK4TZR', status: 'failed', error_code: code };
      const error = gatewayError(outcome, { payment });
      expect(error).toBeInstanceOf(type);
      expect(error).toBeInstanceOf(PaymentError);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBe(status);
      expect(error.code).toBe(code);
      expect(ERROR_TYPES[error.status]).toBe(errorType);
      expect(error.meta).toEqual({ payment });
      expect(error.message).toMatch(/^[A-Z].*\.$/);
      expect(error.name).toBe(type.name);
      expect(gatewayErrorCode(outcome)).toBe(code);
    });
  }

  it('says the card was declined', () => {
    expect(gatewayError('declined').message).toBe('The card was declined.');
  });

  it('has no meta unless given', () => {
    expect(gatewayError('timeout').meta).toBeNull();
  });
});

describe('conflicts', () => {
  it('409 duplicate names the earlier payment', () => {
    const error = new DuplicatePaymentError('P7X2M9QK4TZR');
    expect(error).toBeInstanceOf(PaymentError);
    expect([error.status, error.code, error.name]).toEqual([409, 'duplicate', 'DuplicatePaymentError']);
    expect(error.meta).toEqual({ payment_id: 'P7X2M9QK4TZR' });
    expect(error.message).toContain('P7X2M9QK4TZR');
  });

  it('409 feature_not_enabled for live charges', () => {
    const error = new FeatureNotEnabledError();
    expect([error.status, error.code, error.name]).toEqual([409, 'feature_not_enabled', 'FeatureNotEnabledError']);
    expect(error.meta).toBeNull();
  });
});
