/**
 * The resource registry checks itself: names are unique, and every link and sub-collection of
 * every declaration names a registered resource, so a forgotten registration fails here
 * rather than silently leaving a link unexpandable.
 */
import { describe, expect, it } from 'vitest';
import { declareResource, lookupOf } from '../../shared/rest/declarations';
import { declarationOf, resources } from '../../shared/rest/resources';

/**
 * Resources the contract links to that no capability declares yet (refunds, subscriptions,
 * invoices, license services). Expansion leaves their links as URLs; the capability that
 * declares one removes it from here (the test below fails until it does).
 */
const notYetDeclared = new Set(['license_service', 'refund', 'subscription', 'invoice']);

describe('resource registry', () => {
  const all = resources();

  it('has unique names and collections', () => {
    const names = all.map((declaration) => declaration.name);
    expect(new Set(names).size).toBe(names.length);
    const collections = all.map((declaration) => declaration.collection);
    expect(new Set(collections).size).toBe(collections.length);
  });

  it('finds every registered declaration by name, and nothing else', () => {
    for (const declaration of all) expect(declarationOf(declaration.name)).toBe(declaration);
    expect(declarationOf('nope')).toBeUndefined();
  });

  it.each(all.map((declaration) => [declaration.name, declaration] as const))('%s: every link and sub-collection resolves', (_name, declaration) => {
    const targets = [
      ...Object.values(declaration.links ?? {}),
      ...Object.values(declaration.subCollections ?? {}).map((sub) => sub.resource),
    ];
    for (const target of targets) {
      if (notYetDeclared.has(target)) continue;
      expect(declarationOf(target), `${declaration.name} → ${target}`).toBeDefined();
    }
  });

  it('lists as not yet declared only resources that really are not', () => {
    for (const name of notYetDeclared) expect(declarationOf(name), name).toBeUndefined();
  });

  it('refuses a registry with a duplicate name', () => {
    const row = { name: 'dup', collection: 'dups', idField: 'id', permission: 'orders' as const, scope: 'mode' as const, idOf: () => 'x', toJson: () => ({}) };
    expect(() => lookupOf([declareResource(row), declareResource({ ...row, collection: 'others' })])).toThrow(/Duplicate/);
  });
});
