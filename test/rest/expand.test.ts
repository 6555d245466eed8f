/**
 * The expansion engine with synthetic declarations: links become objects, one BatchGetItem
 * per depth level however many links a page holds, and links the caller may not read, or
 * whose records are missing, stay URLs.
 */
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../shared/auth/principal';
import { resetConfig } from '../../shared/config';
import { declareResource, lookupOf } from '../../shared/rest/declarations';
import { expandResources, renderStored } from '../../shared/rest/expand';
import { parseExpand } from '../../shared/rest/paths';
import type { RenderContext } from '../../shared/rest/render-context';
import { recordKey } from '../../shared/store/records';

process.env.CARTWHEEL_TABLE = 'cartwheel';
process.env.CARTWHEEL_DYNAMODB_ENDPOINT = 'http://127.0.0.1:1';
resetConfig();
const ddb = mockClient(DynamoDBDocumentClient);

interface Row { id: string; next?: string; note?: string }
const link = (collection: string, id: string | undefined, context: RenderContext) => (id ? context.url(`${collection}/${id}`) : null);

const gizmo = declareResource<Row>({
  name: 'test_gizmo', collection: 'test_gizmos', idField: 'id', permission: 'orders', scope: 'mode',
  idOf: (row) => row.id,
  toJson: (row, context) => ({ object: 'test_gizmo', url: context.url(`test_gizmos/${row.id}`), id: row.id, note: row.note ?? null }),
});
const gadget = declareResource<Row>({
  name: 'test_gadget', collection: 'test_gadgets', idField: 'id', permission: 'products', scope: 'mode',
  links: { gizmo: 'test_gizmo' },
  idOf: (row) => row.id,
  toJson: (row, context) => ({ object: 'test_gadget', url: context.url(`test_gadgets/${row.id}`), id: row.id, gizmo: link('test_gizmos', row.next, context) }),
});
const widget = declareResource<Row>({
  name: 'test_widget', collection: 'test_widgets', idField: 'id', permission: 'products', scope: 'mode',
  links: { gadget: 'test_gadget' },
  idOf: (row) => row.id,
  toJson: (row, context) => ({ object: 'test_widget', url: context.url(`test_widgets/${row.id}`), id: row.id, gadget: link('test_gadgets', row.next, context) }),
});

/** The synthetic declarations' own registry (the platform's lists only real resources). */
const lookup = lookupOf([gizmo, gadget, widget]);

function context(permissions: Principal['permissions']): RenderContext {
  return {
    baseUrl: 'https://api.example.test/api/v1/', zone: 'UTC', locale: 'en-US', formatted: false, now: 0, accountId: 'ACCT', mode: 'test',
    principal: { permissions, isOwner: false } as unknown as Principal, query: {}, showHide: {},
    payment: { default_payment_currency: 'USD', currencies: ['USD'], exchange_rates: {} } as never, currency: 'USD',
    url: (path) => `https://api.example.test/api/v1/${path}`, date: () => null,
  };
}

const stored = (declaration: { collection: string; scope: 'mode' | 'account' }, row: Row) => ({ ...recordKey(declaration, { accountId: 'ACCT', mode: 'test' }, row.id), ...row });

beforeEach(() => {
  ddb.reset();
  ddb.on(BatchGetCommand).callsFake((input) => {
    const keys = input.RequestItems.cartwheel.Keys as Array<{ pk: string }>;
    const rows: Record<string, unknown>[] = [];
    for (const key of keys) {
      const [, , collection, id] = key.pk.split('#');
      if (id === 'missing') continue;
      if (collection === 'test_gadgets') rows.push(stored(gadget, { id: id!, next: `z-${id}` }));
      if (collection === 'test_gizmos') rows.push(stored(gizmo, { id: id!, note: `note ${id}` }));
    }
    return { Responses: { cartwheel: rows } };
  });
});

describe('expandResources', () => {
  const all = [{ resource: '*' as const, methods: ['read' as const], allow: true }];

  it('reads each depth level with one BatchGetItem for a whole page', async () => {
    const ctx = context(all);
    const roots = Array.from({ length: 50 }, (_, i) => ({ json: renderStored(widget, { id: `w${i}`, next: `g${i}` }, ctx), declaration: widget }));
    await expandResources(roots, parseExpand('gadget.gizmo', 'list'), ctx, true, lookup);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(2);
    expect(roots[7]!.json.gadget).toMatchObject({ object: 'test_gadget', id: 'g7', gizmo: { object: 'test_gizmo', note: 'note z-g7' } });
  });

  it('expands every link along a path and ignores unknown paths', async () => {
    const ctx = context(all);
    const json = renderStored(widget, { id: 'w1', next: 'g1' }, ctx);
    await expandResources([{ json, declaration: widget }], parseExpand('gadget.gizmo.nothing,bogus,gadget.nope', 'single'), ctx, false, lookup);
    expect((json.gadget as Record<string, unknown>).gizmo).toMatchObject({ id: 'z-g1' });
    expect(json).not.toHaveProperty('bogus');
  });

  it('leaves links to missing records, and links the caller may not read, as URLs', async () => {
    const missing = context(all);
    const json = renderStored(widget, { id: 'w1', next: 'missing' }, missing);
    await expandResources([{ json, declaration: widget }], parseExpand('gadget', 'single'), missing, false, lookup);
    expect(json.gadget).toBe('https://api.example.test/api/v1/test_gadgets/missing');

    const productsOnly = context([{ resource: 'products', methods: ['read'], allow: true }]);
    const limited = renderStored(widget, { id: 'w2', next: 'g2' }, productsOnly);
    await expandResources([{ json: limited, declaration: widget }], parseExpand('gadget.gizmo', 'single'), productsOnly, false, lookup);
    expect(limited.gadget).toMatchObject({ object: 'test_gadget' });
    expect((limited.gadget as Record<string, unknown>).gizmo).toBe('https://api.example.test/api/v1/test_gizmos/z-g2');
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(2);
  });

  it('makes no read when nothing is to be expanded', async () => {
    const ctx = context(all);
    await expandResources([{ json: renderStored(widget, { id: 'w1' }, ctx), declaration: widget }], parseExpand('gadget', 'single'), ctx, false, lookup);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});
