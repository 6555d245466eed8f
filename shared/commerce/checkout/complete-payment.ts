/**
 * The two ways a cart payment ends, each one transaction (commerce.md §4.3, §5.1):
 *
 * - completion: the payment completed, the cart closed, the order (and a guest's customer)
 *   created, the customer marked as paying, the promotion use counted, the events recorded, a
 *   limited payer given reach, the confirmation email made due, and the payment's recovery
 *   record removed — all conditional on this payment holding the cart's lock, so a retried,
 *   redelivered or recovered completion can never make a second order;
 * - failure: the payment failed, the lock and the reserved promotion use released, the event
 *   recorded, the recovery record removed.
 *
 * Both are used by the paying request and by recovery (recover-payment.ts).
 */
import { forgetToken } from '../../auth/authenticate';
import type { Principal } from '../../auth/principal';
import { reachWrite } from '../../auth/reach';
import { customerFromSale } from '../../customers/customers';
import { createFromSaleEntry, hasPaymentsEntry } from '../../customers/customer-store';
import { claimWritten, doneEntry, type DueClaim } from '../../due-work/due-work-store';
import { InUseError } from '../../http/errors';
import { newId } from '../../ids';
import { logger } from '../../logging';
import type { RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { transact, writeOne, type TransactEntry } from '../../store/transact';
import { cartClosedForOrder, closeForOrderEntry, releaseLockEntry } from '../carts/cart-store';
import type { CartRecord } from '../carts/types';
import { eventWrites, type EventSpec } from '../events/emit';
import { createOrderEntry } from '../orders/order-store';
import { orderFromCart, type OrderRecord } from '../orders/orders';
import { countUseWrite, releaseUseWrite } from '../promotions';
import { gatewayErrorCode } from '../payments/errors';
import type { ChargeResult, FailedChargeOutcome } from '../payments/gateway';
import type { PaymentRecord } from '../payments/payment-records';
import { outcomeEntry } from '../payments/payment-store';
import { confirmationDueWrite } from './confirmation';
import { named, present } from './entries';

/** The entries that record `events` now. */
export function eventEntries(scope: RecordScope, events: readonly EventSpec[], now: number): TransactEntry[] {
  return eventWrites(scope, events, now).map((item, index) => ({ name: index < events.length ? `event.${events[index]!.type}` : 'due.event-fanout', item }));
}

/** The payment as the gateway's answer leaves it (before completion or failure is recorded). */
export function withGatewayAnswer(payment: PaymentRecord, result: ChargeResult, now: number): PaymentRecord {
  return { ...payment, gateway_transaction_id: result.transactionId, response_data: result.responseData, modified_ms: now };
}

/**
 * Completes an approved cart payment that holds the cart's lock (one transaction); answers the
 * order and the completed payment. A lost lock (the cart was paid or taken over) is 409.
 */
export async function completeCartPayment(
  scope: RecordScope,
  cart: CartRecord,
  approved: PaymentRecord,
  promotionId: string | undefined,
  principal: Principal | undefined,
  completedAt: number,
): Promise<{ order: OrderRecord; completed: PaymentRecord; confirmation: DueClaim }> {
  const paymentId = approved.payment_id;
  const orderId = newId();
  const linkedCustomerId = cart.customer.customer_id;
  const customerId = linkedCustomerId ?? newId();
  const order = orderFromCart(scope, orderId, cart, paymentId, customerId, completedAt);
  const completed: PaymentRecord = { ...approved, status: 'completed', customer_id: customerId, order_id: orderId, modified_ms: completedAt };
  delete completed.gateway_outcome;
  const reachPaths = [`orders/${orderId}`, `payments/${paymentId}`, `customers/${customerId}`];
  const reach = principal ? named('token.reach', reachWrite(principal, reachPaths)) : undefined;
  const confirmationDue = confirmationDueWrite(order, newId());
  const entries = present(
    outcomeEntry(completed),
    closeForOrderEntry(scope, cart.cart_id, paymentId, orderId, completedAt),
    createOrderEntry(order),
    confirmationDue,
    linkedCustomerId ? hasPaymentsEntry(scope, linkedCustomerId) : createFromSaleEntry(customerFromSale(scope, customerId, cart.customer, completedAt)),
    promotionId ? named('promotion.count-use', countUseWrite(scope, promotionId)) : undefined,
    ...eventEntries(
      scope,
      [
        { type: 'payment:created_success', resource: 'payment', id: paymentId, record: completed },
        { type: 'payment:completed', resource: 'payment', id: paymentId, record: completed },
        { type: 'cart:payment_completed', resource: 'cart', id: cart.cart_id, record: cartClosedForOrder(cart, orderId, completedAt) },
        { type: 'order:created', resource: 'order', id: orderId, record: order },
        { type: 'order:payment_completed', resource: 'order', id: orderId, record: order },
      ],
      completedAt,
    ),
    doneEntry('payment-recovery', scope, paymentId),
    reach,
  );
  try {
    await transact(entries);
  } catch (error) {
    if (!(error instanceof TransactionRejectedError)) throw error;
    // Only a lost lock or an outcome already written can refuse this: someone else finished the
    // payment or the cart moved on. The reserved use is given back (best effort: holding it only ever refuses).
    if (promotionId) await writeOne(named('promotion.release-use', releaseUseWrite(scope, promotionId))!).catch(() => undefined);
    throw new InUseError('The cart was paid or changed by another request.', { reason: 'conflict' });
  }
  if (reach && principal) {
    forgetToken(principal.tokenHash);
    // This answer may already expand what the payment gave the shopper (`expand=order`).
    principal.record = { ...principal.record, reach: [...(principal.record.reach ?? []), ...reachPaths] };
  }
  return { order, completed, confirmation: claimWritten(confirmationDue) };
}

/**
 * Records a failed payment (a declined charge, or one that never happened): for a cart payment
 * the lock and the reserved promotion use are released in the same transaction.
 */
export async function failPayment(scope: RecordScope, payment: PaymentRecord, outcome: FailedChargeOutcome, promotionId: string | undefined, failedAt: number): Promise<PaymentRecord> {
  const failed: PaymentRecord = { ...payment, status: 'failed', error_code: gatewayErrorCode(outcome), modified_ms: failedAt };
  delete failed.gateway_outcome;
  await transact(
    present(
      outcomeEntry(failed),
      payment.cart_id ? releaseLockEntry(scope, payment.cart_id, payment.payment_id) : undefined,
      payment.cart_id && promotionId ? named('promotion.release-use', releaseUseWrite(scope, promotionId)) : undefined,
      ...eventEntries(scope, [{ type: 'payment:created_failure', resource: 'payment', id: payment.payment_id, record: failed }], failedAt),
      doneEntry('payment-recovery', scope, payment.payment_id),
    ),
  );
  return failed;
}

/** Completes an approved direct payment (no cart, no order). */
export async function completeDirectPayment(scope: RecordScope, approved: PaymentRecord, completedAt: number): Promise<PaymentRecord> {
  const completed: PaymentRecord = { ...approved, status: 'completed', modified_ms: completedAt };
  delete completed.gateway_outcome;
  await transact([
    outcomeEntry(completed),
    ...eventEntries(
      scope,
      [
        { type: 'payment:created_success', resource: 'payment', id: approved.payment_id, record: completed },
        { type: 'payment:completed', resource: 'payment', id: approved.payment_id, record: completed },
      ],
      completedAt,
    ),
    doneEntry('payment-recovery', scope, approved.payment_id),
  ]);
  return completed;
}

/** Logs and swallows a failure of a step that runs after the commit and has its own recovery. */
export function afterCommit(step: string, paymentId: string) {
  return (error: unknown): void => logger.error(`${step} failed after the payment committed`, { payment_id: paymentId, error: error as Error });
}
