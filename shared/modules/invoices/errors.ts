/** Errors of the invoices capability (commerce.md §9): the HTTP layer turns them into envelopes. */
import { InvalidStateError, InUseError } from '../../http/errors';
import type { InvoiceState } from './records';

/** 422 invalid_state: what was asked is not allowed in the invoice's state (§9.2). */
export class InvoiceStateError extends InvalidStateError {
  override name = 'InvoiceStateError';
  constructor(invoiceId: string, state: InvoiceState, action: string) {
    super(`The invoice ${invoiceId} is ${state === 'paid' ? 'paid' : state === 'draft' ? 'a draft' : state}; it cannot be ${action}.`, { reason: state, state });
  }
}

/** 409 in_use: a payment of the invoice is running, and the invoice is locked until it ends. */
export class InvoiceLockedError extends InUseError {
  override name = 'InvoiceLockedError';
  constructor(invoiceId: string) {
    super(`A payment of the invoice ${invoiceId} is in progress; retry when it has finished.`, { resource: 'invoice', reason: 'payment_in_progress' });
  }
}
