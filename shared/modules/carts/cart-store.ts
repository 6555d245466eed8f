/**
 * The carts entity and every write to a cart: creation (with the creating token's binding),
 * the versioned save of a changed cart, the payment lock, its release, and closing the cart
 * for its order. Only this store knows the conditions of those writes.
 */
import { BindingLimitExceededError } from '../identity';
import { listSortKey } from '../../store/keys';
import { defineEntity, IS_NEW, writeAll, writeOne, type RecordScope } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import type { TransactEntry, TransactItem } from '../../store/transact';
import { rememberCart } from './cart-cache';
import type { CartRecord } from './types';

/** Carts (mode-scoped), listed by date_created (gsi1) and date_modified (gsi2). */
export const carts = defineEntity<CartRecord>({ name: 'cart', collection: 'carts', scope: 'mode', idField: 'cart_id',
  indexes: { gsi1: 'carts by date_created', gsi2: 'carts by date_modified' } });

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
    set: closedForOrder(cartId, orderId, now),
    condition: { expression: 'payment_lock.payment_id = :pid AND #open = :true', names: { '#open': 'open' }, values: { ':pid': paymentId, ':true': true } },
  });
}

/** What closing a cart for its order changes (`closeForOrderEntry` writes exactly this). */
function closedForOrder(cartId: string, orderId: string, now: number) {
  return { open: false, payment_status: 'completed' as const, order_id: orderId, payment_lock: null, modified_ms: now, gsi2sk: listSortKey(now, cartId) };
}

/** The cart as `closeForOrderEntry` leaves it (what the cart's `cart:payment_completed` shows). */
export function cartClosedForOrder(cart: CartRecord, orderId: string, now: number): CartRecord {
  return { ...cart, ...closedForOrder(cart.cart_id, orderId, now) };
}

/**
 * Writes a new cart and, when given, the binding of the creating limited token to it in the
 * same transaction: a refused binding (the token's 21st) creates nothing (422 binding_limit_exceeded).
 */
export async function insertCart(cart: CartRecord, binding?: TransactItem): Promise<void> {
  const entries: TransactEntry[] = [carts.putEntry(cart, { name: 'cart.create', condition: IS_NEW })];
  if (binding) entries.push({ name: 'token.binding', item: binding, onConditionFailed: () => new BindingLimitExceededError() });
  await writeAll(entries);
  rememberCart(cart);
}

/**
 * The conditional Put that stores a changed cart (`saved`, with its new version): it holds
 * only if nobody changed the cart since it was read (version), it is still open, and its
 * payment lock is as read; refused, it is a `VersionConflictError` (read again and retry).
 * Other modules that write a cart in a transaction of their own (customer login) use it.
 * `now` is the platform clock's epoch ms.
 */
export function cartSaveEntry(current: CartRecord, next: CartRecord, now: number): { saved: CartRecord; entry: TransactEntry } {
  const modified = Math.max(now, current.modified_ms + 1);
  const saved: CartRecord = { ...next, modified_ms: modified, gsi2sk: listSortKey(modified, current.cart_id) };
  const lock = current.payment_lock;
  const entry = carts.putEntry(saved, {
    name: 'cart.save',
    condition: {
      expression: lock
        ? 'modified_ms = :version AND #open = :open AND payment_lock.payment_id = :lock_id AND payment_lock.until_ms = :lock_until'
        : 'modified_ms = :version AND #open = :open AND (attribute_not_exists(payment_lock) OR attribute_type(payment_lock, :null_type))',
      names: { '#open': 'open' },
      values: {
        ':version': current.modified_ms,
        ':open': true,
        ...(lock ? { ':lock_id': lock.payment_id, ':lock_until': lock.until_ms } : { ':null_type': 'NULL' }),
      },
    },
    onConditionFailed: () => new VersionConflictError(`Cart ${current.cart_id} changed concurrently`),
  });
  return { saved, entry };
}

/** Stores a changed cart under `cartSaveEntry`'s conditions and answers it as saved (a lost race: `VersionConflictError`). */
export async function saveCartRecord(current: CartRecord, next: CartRecord, now: number): Promise<CartRecord> {
  const { saved, entry } = cartSaveEntry(current, next, now);
  await writeOne(entry);
  rememberCart(saved);
  return saved;
}
