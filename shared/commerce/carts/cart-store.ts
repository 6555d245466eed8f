/**
 * The carts entity and the writes other capabilities make to a cart: the payment lock, its
 * release, and closing the cart for its order. Only this store knows the lock's conditions.
 */
import { listSortKey } from '../../store/keys';
import { defineEntity, type RecordScope } from '../../store/entity';
import type { TransactEntry } from '../../store/transact';
import type { CartRecord } from './types';

/** Carts (mode-scoped), listed by date_created (gsi1) and date_modified (gsi2). */
export const carts = defineEntity<CartRecord>({
  name: 'cart',
  collection: 'carts',
  scope: 'mode',
  idField: 'cart_id',
  indexes: { gsi1: 'carts by date_created', gsi2: 'carts by date_modified' },
});

/** Whether the cart's payment lock is held at `now` by a payment that has not lapsed. */
export function lockHeld(cart: CartRecord, now: number): boolean {
  return Boolean(cart.payment_lock && cart.payment_lock.until_ms >= now);
}

/**
 * Takes the cart for a payment until `untilMs`: only an open cart, unchanged since it was read
 * (`modified_ms`), whose lock is free or lapsed. The caller reads the cart again to tell why a
 * refusal happened (paid, locked, changed).
 */
export function lockEntry(scope: RecordScope, cart: CartRecord, paymentId: string, untilMs: number, now: number): TransactEntry {
  return carts.updateEntry(scope, cart.cart_id, {
    name: 'cart.lock',
    set: { payment_lock: { payment_id: paymentId, until_ms: untilMs } },
    condition: {
      expression: '#open = :true AND modified_ms = :version AND (attribute_not_exists(payment_lock) OR payment_lock = :null OR payment_lock.until_ms < :now)',
      names: { '#open': 'open' },
      values: { ':true': true, ':version': cart.modified_ms, ':null': null, ':now': now },
    },
  });
}

/** Frees the lock of `paymentId` (its charge failed or was abandoned). */
export function releaseLockEntry(scope: RecordScope, cartId: string, paymentId: string): TransactEntry {
  return carts.updateEntry(scope, cartId, {
    name: 'cart.release-lock',
    set: { payment_lock: null },
    condition: { expression: 'payment_lock.payment_id = :pid', values: { ':pid': paymentId } },
  });
}

/** Closes the cart as paid by `paymentId` with its order; only while that payment holds the lock. */
export function closeForOrderEntry(scope: RecordScope, cartId: string, paymentId: string, orderId: string, now: number): TransactEntry {
  return carts.updateEntry(scope, cartId, {
    name: 'cart.close',
    set: { open: false, payment_status: 'completed', order_id: orderId, payment_lock: null, modified_ms: now, gsi2sk: listSortKey(now, cartId) },
    condition: { expression: 'payment_lock.payment_id = :pid AND #open = :true', names: { '#open': 'open' }, values: { ':pid': paymentId, ':true': true } },
  });
}
