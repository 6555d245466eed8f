/** Errors of refunds (commerce.md §7). */
import { ApiError } from '../../http/errors';

/** Base class of every refunds error. */
export class RefundError extends ApiError {
  override name = 'RefundError';
}

/** 402 transaction_failure: the gateway refused the refund; `meta.refund` carries the failed refund. */
export class TransactionFailureError extends RefundError {
  override name = 'TransactionFailureError';
  constructor(meta: Record<string, unknown> | null = null, message = 'The payment gateway refused the refund.') {
    super(402, 'transaction_failure', message, meta);
  }
}
