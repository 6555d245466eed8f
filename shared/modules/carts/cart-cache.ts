/**
 * Carts this process wrote a moment ago, for the one reader that re-checks what it read: paying
 * (issue 12: a checkout's pay step need not read the cart its cart step just wrote).
 *
 * A cached cart is only ever a starting point. Paying locks the cart with a write conditioned on
 * the version it read (`modified_ms`, which every content change moves strictly forward, and
 * which the lock and its release leave alone), so a copy that is no longer current makes the lock
 * refuse, and the payment starts over from a consistent read. Nothing else reads from here:
 * `GET /carts/{id}` and every other writer read the table.
 *
 * Bounded (the most recent `MAX_CARTS`) and short-lived (`FRESH_MS`: each write drops the copies
 * older than that), so a busy process holds its last few seconds of carts, an idle one at most
 * those of its last busy seconds, and a stale copy costs at most one refused write.
 */
import type { RecordScope } from '../../store/entity';
import type { CartRecord } from './types';

/** How long a written cart is offered to its payment (real time). */
const FRESH_MS = 5000;
/** Carts kept at most. */
const MAX_CARTS = 1000;

interface Kept {
  cart: CartRecord;
  keptAt: number;
}

const kept = new Map<string, Kept>();

function keyOf(scope: RecordScope, cartId: string): string {
  return `${scope.accountId}#${scope.mode}#${cartId}`;
}

/** Keeps a copy of `cart` as this process just stored it (after the write committed). */
export function rememberCart(cart: CartRecord): void {
  const key = keyOf({ accountId: cart.account_id, mode: cart.mode }, cart.cart_id);
  const now = performance.now();
  kept.delete(key);
  // Oldest first (a rewrite moves a cart to the end): drop what can no longer be offered.
  for (const [oldest, entry] of kept) {
    if (now - entry.keptAt <= FRESH_MS && kept.size < MAX_CARTS) break;
    kept.delete(oldest);
  }
  kept.set(key, { cart: structuredClone(cart), keptAt: now });
}

/** How many carts this process holds (tests: the copies lapse, they do not pile up). */
export function keptCartCount(): number {
  return kept.size;
}

/** Forgets the copy of a cart (a payment's lock refused it as stale). */
export function forgetCart(scope: RecordScope, cartId: string): void {
  kept.delete(keyOf(scope, cartId));
}

/**
 * A copy of the cart as this process last stored it, if that was within `FRESH_MS`; it may be
 * stale (another process changed it since), so only a version-conditioned writer may use it.
 */
export function recentCart(scope: RecordScope, cartId: string): CartRecord | undefined {
  const key = keyOf(scope, cartId);
  const entry = kept.get(key);
  if (!entry) return undefined;
  if (performance.now() - entry.keptAt > FRESH_MS) {
    kept.delete(key);
    return undefined;
  }
  return structuredClone(entry.cart);
}
