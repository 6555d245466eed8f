/**
 * Sealed fields (shared/outbound/sealed-fields.ts): values sealed together and bound to their
 * record by the purpose, nothing sealed when none is set, all null when opened from nothing,
 * and who may see them.
 */
import { describe, expect, it } from 'vitest';
import type { SecretsPort } from '../../shared/platform/ports';
import { sealedFields } from '../../shared/outbound/sealed-fields';

/** A secrets port that writes the purpose next to the text, so a wrong purpose fails to open. */
const port: SecretsPort & { purposes: string[] } = {
  purposes: [],
  async seal(plaintext, purpose) {
    port.purposes.push(purpose);
    return JSON.stringify([purpose, plaintext]);
  },
  async open(sealed, purpose) {
    const [bound, plaintext] = JSON.parse(sealed) as [string, string];
    if (bound !== purpose) throw new Error('sealed for another purpose');
    return plaintext;
  },
};

const fields = sealedFields({ purpose: 'thing', permission: 'license_services', idField: 'thing_id', names: ['password', 'header_value'] });
const scope = { accountId: 'ACC', mode: 'test' as const };

describe('sealedFields', () => {
  it('seals the values together for one record, and opens them only for that record', async () => {
    const values = { password: 'pw', header_value: null };
    const sealed = await fields.seal(values, scope, 'ID1', port);
    expect(port.purposes).toEqual(['thing:ACC:test:ID1']);
    expect(await fields.open(sealed, scope, 'ID1', port)).toEqual(values);
    await expect(fields.open(sealed, scope, 'ID2', port)).rejects.toThrow();
    await expect(fields.open(sealed, { ...scope, mode: 'live' }, 'ID1', port)).rejects.toThrow();
  });

  it('seals nothing when none is set and opens nothing to all null, in the order of the names', async () => {
    expect(await fields.seal(fields.none(), scope, 'ID1', port)).toBeNull();
    const opened = await fields.open(null, scope, 'ID1', port);
    expect(opened).toEqual({ password: null, header_value: null });
    expect(Object.keys(opened)).toEqual(['password', 'header_value']);
    expect(await fields.open(JSON.stringify(['thing:ACC:test:ID1', '{"password":"pw"}']), scope, 'ID1', port)).toEqual({ password: 'pw', header_value: null });
  });

  it("opens what a stored record keeps, bound to the record's scope and id", async () => {
    const values = { password: 'pw', header_value: 'hv' };
    const record = { thing_id: 'ID1', account_id: 'ACC', mode: 'test' as const, secrets_sealed: await fields.seal(values, scope, 'ID1', port) };
    expect(await fields.openRecord(record, port)).toEqual(values);
    await expect(fields.openRecord({ ...record, thing_id: 'ID2' }, port)).rejects.toThrow();
    expect(await fields.openRecord({ ...record, secrets_sealed: null }, port)).toEqual({ password: null, header_value: null });
  });

  it('compares values by name', () => {
    expect(fields.same({ password: 'a', header_value: null }, { password: 'a', header_value: null })).toBe(true);
    expect(fields.same({ password: 'a', header_value: null }, { password: 'a', header_value: '' })).toBe(false);
  });

  it('shows them to owners and holders of the resource update permission, never to limited tokens', () => {
    const holder = (permissions: Array<{ resource: 'license_services' | 'event_subscriptions'; methods: ['update'] | ['read']; allow: boolean }>, extra = {}) => ({ kind: 'secret' as const, isOwner: false, permissions, ...extra });
    expect(fields.maySee(holder([], { isOwner: true }))).toBe(true);
    expect(fields.maySee(holder([{ resource: 'license_services', methods: ['update'], allow: true }]))).toBe(true);
    expect(fields.maySee(holder([{ resource: 'event_subscriptions', methods: ['update'], allow: true }]))).toBe(false);
    expect(fields.maySee(holder([{ resource: 'license_services', methods: ['read'], allow: true }]))).toBe(false);
    expect(fields.maySee(holder([], { kind: 'limited', isOwner: true }))).toBe(false);
    expect(fields.maySee(undefined)).toBe(false);
  });
});
