/**
 * The resource registry checks itself: names are unique, and every link, sub-collection and
 * embedded array of every declaration names a registered resource, so a forgotten
 * registration fails here rather than silently leaving a link unexpandable.
 */
import { describe, expect, it } from 'vitest';
import { declareResource, lookupOf } from '../../shared/rest/declarations';
import { declarationOf, resources } from '../../shared/app/resources';

/**
 * Resources the contract links to that no capability declares yet (invoices). Expansion leaves their links as URLs; the capability that
 * declares one removes it from here (the test below fails until it does).
 */
const notYetDeclared = new Set<string>();

describe('resource registry', () => {
  const all = resources();

  it('has unique names, and unique collections among the resources stored on their own', () => {
    const names = all.map((declaration) => declaration.name);
    expect(new Set(names).size).toBe(names.length);
    // Embedded elements (cart, order and invoice items) are stored inside their parent: their
    // collection is the path segment under it (`items`), never a storage partition.
    const embedded = new Set(all.flatMap((declaration) => Object.values(declaration.embedded ?? {})));
    expect(embedded).toEqual(new Set(['cart_item', 'order_item', 'invoice_item']));
    const collections = all.filter((declaration) => !embedded.has(declaration.name)).map((declaration) => declaration.collection);
    expect(new Set(collections).size).toBe(collections.length);
  });

  it('finds every registered declaration by name, and nothing else', () => {
    for (const declaration of all) expect(declarationOf(declaration.name)).toBe(declaration);
    expect(declarationOf('nope')).toBeUndefined();
  });

  it.each(all.map((declaration) => [declaration.name, declaration] as const))('%s: every link, sub-collection, embedded array and virtual resolves', (_name, declaration) => {
    const targets = [
      ...Object.values(declaration.links ?? {}),
      ...Object.values(declaration.subCollections ?? {}).map((sub) => sub.resource),
      ...Object.values(declaration.embedded ?? {}),
      ...Object.values(declaration.virtuals ?? {}).flatMap((virtual) => (virtual.resource ? [virtual.resource] : [])),
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
