import { describe, expect, it } from 'vitest';
import { deniedGrants, effectivePermissions, isAllowed } from '../../../shared/core/access/permissions';
import { parsePermissions } from '../../../shared/modules/identity/auth-schemas';

describe('permission evaluation (auth.md 8.2)', () => {
  const list = parsePermissions([
    { resource: '*', methods: ['*'], allow: true },
    { resource: 'users', methods: ['*'], allow: false },
    { resource: 'payments', methods: ['delete'], allow: false },
  ]);

  it('allows through a wildcard entry', () => {
    expect(isAllowed(list, 'orders', 'read')).toBe(true);
  });

  it('lets deny win whatever the order', () => {
    expect(isAllowed(list, 'users', 'read')).toBe(false);
    const reversed = [...list].reverse();
    expect(isAllowed(reversed, 'users', 'read')).toBe(false);
    expect(isAllowed(list, 'payments', 'delete')).toBe(false);
    expect(isAllowed(list, 'payments', 'read')).toBe(true);
  });

  it('denies when no entry matches', () => {
    expect(isAllowed(parsePermissions([{ resource: 'orders', methods: ['read'] }]), 'orders', 'update')).toBe(false);
  });

  it('defaults allow to true and lists each method once', () => {
    expect(parsePermissions([{ resource: 'orders', methods: ['read', 'read', 'update'] }])).toEqual([{ resource: 'orders', methods: ['read', 'update'], allow: true }]);
  });

  it('produces the read format for every resource', () => {
    const read = effectivePermissions(list);
    expect(read.orders).toEqual({ read: true, create: true, update: true, delete: true });
    expect(read.users).toEqual({ read: false, create: false, update: false, delete: false });
    expect(Object.keys(read)).toHaveLength(23);
  });
});

describe('write format validation', () => {
  it.each([
    [[{ resource: 'nope', methods: ['read'] }], 'permissions[0].resource'],
    [[{ resource: 'orders', methods: ['read', 'fly'] }], 'permissions[0].methods[1]'],
    [[{ resource: 'orders', methods: [] }], 'permissions[0].methods'],
    [[{ resource: 'orders', methods: ['read'], allow: 'yes' }], 'permissions[0].allow'],
    [[{ resource: 'orders', methods: ['read'], allow: 1 }], 'permissions[0].allow'],
    [[{ resource: 'orders', methods: 'read' }], 'permissions[0].methods'],
    [[{ methods: ['read'] }], 'permissions[0].resource'],
    [[{ resource: 'orders', methods: ['read'] }, 7], 'permissions[1]'],
    [[], 'permissions'],
    ['orders', 'permissions'],
  ])('rejects %j naming %s', (value, property) => {
    expect(() => parsePermissions(value)).toThrowError(expect.objectContaining({ code: 'invalid_input', meta: expect.objectContaining({ property }) }));
  });
});

describe('escalation check (auth.md 4.1)', () => {
  it('lists what the caller lacks', () => {
    const holder = parsePermissions([{ resource: '*', methods: ['*'] }, { resource: 'users', methods: ['delete'], allow: false }]);
    const requested = parsePermissions([{ resource: 'users', methods: ['*'] }]);
    expect(deniedGrants(requested, holder)).toEqual(['users:delete']);
    expect(deniedGrants(parsePermissions([{ resource: 'orders', methods: ['read'] }]), holder)).toEqual([]);
  });

  it('ignores methods without an effect', () => {
    const holder = parsePermissions([{ resource: 'reports', methods: ['read'] }]);
    expect(deniedGrants(parsePermissions([{ resource: 'reports', methods: ['*'] }]), holder)).toEqual([]);
  });
});
