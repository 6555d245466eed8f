/**
 * `me` in customer paths (commerce.md §6.1) and the reach rule of customer scope (§0.1): the
 * word stands for a customer-scope token's customer and for nothing with any other token; a
 * customer-scope token reaches records of its own customer, by path what it is bound to.
 */
import { describe, expect, it } from 'vitest';
import { resolvePathAliases } from '../../../shared/core/access/aliases';
import { reachesRecord, scopeCustomerOf, type Principal } from '../../../shared/core/access/principal';

const principal = (kind: Principal['kind'], extra: Partial<Principal> = {}, reach: string[] = []) =>
  ({ kind, permissions: [], isOwner: false, record: { bindings: [], reach }, ...extra }) as unknown as Principal;

const scoped = principal('limited', { customerId: 'ADA' }, ['customers/ADA']);
const shopper = principal('limited', {}, ['orders/O1']);
const secret = principal('secret');

describe('resolvePathAliases', () => {
  it('replaces customer_id "me" by the customer of a customer-scope token, and nothing else', () => {
    expect(resolvePathAliases({ customer_id: 'me', payment_method_id: 'me' }, scoped)).toEqual({ params: { customer_id: 'ADA', payment_method_id: 'me' } });
    const untouched = { customer_id: 'BOB' };
    expect(resolvePathAliases(untouched, scoped).params).toBe(untouched);
    expect(resolvePathAliases({ customer_id: 'ME' }, scoped).params).toEqual({ customer_id: 'ME' });
  });

  it('stands for nothing with other tokens or without one (the request answers 404)', () => {
    for (const caller of [shopper, secret, undefined]) {
      const found = resolvePathAliases({ customer_id: 'me' }, caller);
      expect(found.unresolved?.what).toBe('customer');
    }
    expect(resolvePathAliases({ customer_id: 'BOB' }, undefined).unresolved).toBeUndefined();
  });
});

describe('reachesRecord', () => {
  it('gives customer scope the records of its own customer, and no other', () => {
    expect(scopeCustomerOf(scoped)).toBe('ADA');
    expect(reachesRecord(scoped, 'orders/O9', 'ADA')).toBe(true);
    expect(reachesRecord(scoped, 'orders/O9', 'BOB')).toBe(false);
    expect(reachesRecord(scoped, 'orders/O9', null)).toBe(false);
    // A resource outside customer scope declares no customer: only bindings and reach count.
    expect(reachesRecord(scoped, 'carts/C1', undefined)).toBe(false);
  });

  it('keeps the path reach of other limited tokens, and other tokens reach by permission', () => {
    expect(scopeCustomerOf(shopper)).toBeUndefined();
    expect(reachesRecord(shopper, 'orders/O1', 'BOB')).toBe(true);
    expect(reachesRecord(shopper, 'orders/O2', 'BOB')).toBe(false);
    expect(scopeCustomerOf(secret)).toBeUndefined();
    expect(reachesRecord(secret, 'orders/O2', 'BOB')).toBe(true);
  });
});
