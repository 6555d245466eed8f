/**
 * The copies of just-written carts a payment may start from (shared/modules/carts/cart-cache.ts)
 * lapse after 5 s and never pile up: each write drops the lapsed ones, and at most 1,000 stay.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { forgetCart, keptCartCount, recentCart, rememberCart } from '../../../shared/modules/carts/cart-cache';
import type { CartRecord } from '../../../shared/modules/carts/types';

const scope = { accountId: 'acct-cache', mode: 'test' as const };
const cart = (cartId: string) => ({ account_id: scope.accountId, mode: scope.mode, cart_id: cartId, items: [{ product_id: 'p', quantity: 1 }] }) as unknown as CartRecord;

beforeEach(() => vi.useFakeTimers({ toFake: ['performance'] }));
afterEach(() => {
  // Empty the module's cache for the next test: every copy lapses, the next write drops them.
  vi.advanceTimersByTime(60_000);
  rememberCart(cart('sweep'));
  forgetCart(scope, 'sweep');
  vi.useRealTimers();
});

describe('cart cache', () => {
  it('offers a copy, not the kept object, for 5 s', () => {
    rememberCart(cart('c1'));
    const copy = recentCart(scope, 'c1')!;
    expect(copy.cart_id).toBe('c1');
    (copy as unknown as { items: unknown[] }).items.length = 0;
    expect((recentCart(scope, 'c1') as unknown as { items: unknown[] }).items).toHaveLength(1);
    vi.advanceTimersByTime(5_001);
    expect(recentCart(scope, 'c1')).toBeUndefined();
  });

  it('drops lapsed copies on the next write, so a process holds only its last seconds of carts', () => {
    for (let index = 0; index < 50; index++) rememberCart(cart(`old-${index}`));
    expect(keptCartCount()).toBe(50);
    vi.advanceTimersByTime(6_000);
    rememberCart(cart('new'));
    expect(keptCartCount()).toBe(1);
    expect(recentCart(scope, 'new')?.cart_id).toBe('new');
  });

  it('keeps at most 1,000 carts, the most recent', () => {
    for (let index = 0; index < 1_200; index++) rememberCart(cart(`many-${index}`));
    expect(keptCartCount()).toBe(1_000);
    expect(recentCart(scope, 'many-199')).toBeUndefined();
    expect(recentCart(scope, 'many-200')?.cart_id).toBe('many-200');
    expect(recentCart(scope, 'many-1199')?.cart_id).toBe('many-1199');
  });
});
