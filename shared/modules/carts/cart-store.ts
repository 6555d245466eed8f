/**
 * The carts entity and every write to a cart: creation (with the creating token's binding),
 * the versioned update of a changed cart, the payment lock, its release, and closing the cart
 * for its order. Only this store knows the conditions of those writes.
 */
import { BindingLimitExceededError } from '../identity';
import type { Clock } from '../../platform/ports';
import { byDate, defineEntity, IS_NEW, writeAll, type Change, type Condition, type RecordScope, type Revision } from '../../store/entity';
import type { TransactEntry, TransactItem } from '../../store/transact';
import { rememberCart } from './cart-cache';
import type { CartRecord } from './types';

/** Carts (mode-scoped), listed by date_created (gsi1) and date_modified (gsi2). */
export const carts = defineEntity<CartRecord>({ name: 'cart', collection: 'carts', scope: 'mode', idField: 'cart_id',
  indexes: { gsi1: 'carts by date_created', gsi2: 'carts by date_modified' },
  indexKeys: (cart, partition) => ({ gsi1: byDate(partition, cart.created_ms, cart.cart_id), gsi2: byDate(partition, cart.modified_ms, cart.cart_id) }) });

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
    // Modified now, the cart moves in the date_modified listing too.
    set: { ...closedForOrder(orderId, now), gsi2sk: byDate(carts.partition(scope), now, cartId).sk },
    condition: { expression: 'payment_lock.payment_id = :pid AND #open = :true', names: { '#open': 'open' }, values: { ':pid': paymentId, ':true': true } },
  });
}

/** What closing a cart for its order changes (`closeForOrderEntry` writes exactly this, and the cart's listing position). */
function closedForOrder(orderId: string, now: number) {
  return { open: false, payment_status: 'completed' as const, order_id: orderId, payment_lock: null, modified_ms: now };
}

/** The cart as `closeForOrderEntry` leaves it (what the cart's `cart:payment_completed` shows). */
export function cartClosedForOrder(cart: CartRecord, orderId: string, now: number): CartRecord {
  return { ...cart, ...closedForOrder(orderId, now) };
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

/** Only while the cart is still open and its payment lock is as read (a payment that starts meanwhile is never overwritten). */
function openWithLockAsRead(current: CartRecord): Condition {
  const lock = current.payment_lock;
  return {
    expression: lock
      ? '#open = :open AND payment_lock.payment_id = :lock_id AND payment_lock.until_ms = :lock_until'
      : '#open = :open AND (attribute_not_exists(payment_lock) OR attribute_type(payment_lock, :null_type))',
    names: { '#open': 'open' },
    values: { ':open': true, ...(lock ? { ':lock_id': lock.payment_id, ':lock_until': lock.until_ms } : { ':null_type': 'NULL' }) },
  };
}

/** A cart revision as the store writes it: with a new version at `now` or later, and only over the cart open and locked as read. */
function cartRevision(current: CartRecord, revision: Revision<CartRecord>, now: number): Revision<CartRecord> {
  if (revision.write === false) return revision;
  const modified = Math.max(now, current.modified_ms + 1);
  return { ...revision, next: { ...revision.next, modified_ms: modified }, condition: openWithLockAsRead(current) };
}

/** How a cart write is made: `remember` keeps the saved cart for this process's payment (`rememberCart`); `transaction` writes it as one even alone. */
export interface CartWriteOptions {
  remember?: boolean;
  transaction?: boolean;
}

function writing(options: CartWriteOptions) {
  return { ...(options.remember ? { written: rememberCart } : {}), ...(options.transaction ? { transaction: true } : {}) };
}

/**
 * Stores a cart's revision with a new version (`modified_ms`, moved strictly forward from `now`,
 * the platform clock's epoch ms), only if nobody changed the cart since `current` was read, it is
 * still open and its payment lock is as read; else `VersionConflictError` (read again and retry).
 * Answers the cart as saved.
 */
export function saveCart(current: CartRecord, revision: Revision<CartRecord>, now: number, options: CartWriteOptions = {}): Promise<CartRecord> {
  return carts.revise(current, cartRevision(current, revision, now), writing(options));
}

/**
 * Applies `change` to a cart read by id, as `saveCart` stores it (each round dated by `clock`),
 * reading and changing again after a lost race. Other modules that change a cart with entries of
 * their own (customer login) use it too.
 */
export function updateCart(scope: RecordScope, cartId: string, change: Change<CartRecord>, clock: Pick<Clock, 'nowMs'>, options: CartWriteOptions = {}): Promise<CartRecord> {
  return carts.update(scope, cartId, async (current) => cartRevision(current, await change(current), clock.nowMs()), writing(options));
}
