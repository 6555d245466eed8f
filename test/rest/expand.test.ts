/**
 * The expansion engine with synthetic declarations: links become objects, one BatchGetItem
 * per depth level however many links a page or an embedded array holds, virtual expansions
 * and sub-collections at any depth, the depth and list limits, and links the caller may not
 * read, or whose records are missing, stay URLs.
 */
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { LIMITED_BASE_RIGHTS } from '../../shared/core/access/permissions';
import type { Principal } from '../../shared/core/access/principal';
import { readConfig, siteOf } from '../../shared/core/config';
import { declareResource, lookupOf, type ResourceDeclaration } from '../../shared/rest/declarations';
import { expandResources, renderStored } from '../../shared/rest/expand';
import { parseExpand } from '../../shared/rest/paths';
import type { RenderContext } from '../../shared/rest/render-context';
import { recordKey } from '../../shared/store/records';
import { configureStore } from '../../shared/store/client';

configureStore({ tableName: 'cartwheel', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:1' } });
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
    baseUrl: 'https://api.example.test/api/v1/', site: siteOf(readConfig({})), zone: 'UTC', locale: 'en-US', formatted: false, now: 0, accountId: 'ACCT', mode: 'test',
    principal: { permissions, isOwner: false } as unknown as Principal, query: {}, showHide: {}, preread: new Map(),
    payment: { default_payment_currency: 'USD', currencies: ['USD'], exchange_rates: {} } as never, currency: 'USD',
    url: (path) => `https://api.example.test/api/v1/${path}`, date: () => null,
  };
}

const stored = <R extends { id: string }>(declaration: { collection: string; scope: 'mode' | 'account' }, row: R) => ({ ...recordKey(declaration, { accountId: 'ACCT', mode: 'test' }, row.id), ...row });

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

  it('expands for customer scope only the records its declaration says are its customer’s (commerce.md §0.1)', async () => {
    // Gizmos here belong to the customer their note names; a customer-scope token reaches its own.
    const owned = declareResource<Row>({ ...gizmo, customerOf: (row) => row.note ?? null });
    const holder = declareResource<Row>({ ...gadget, name: 'test_holder', links: { gizmo: 'test_gizmo' } });
    const scoped = lookupOf([owned, holder]);
    const ctx = context([...LIMITED_BASE_RIGHTS]);
    ctx.principal = { kind: 'limited', customerId: 'note mine', permissions: [...LIMITED_BASE_RIGHTS], isOwner: false, record: { bindings: [], reach: [] } } as unknown as Principal;
    const mine = renderStored(holder, { id: 'h1', next: 'mine' }, ctx);
    const theirs = renderStored(holder, { id: 'h2', next: 'theirs' }, ctx);
    await expandResources([{ json: mine, declaration: holder }, { json: theirs, declaration: holder }], parseExpand('gizmo', 'list'), ctx, true, scoped);
    expect(mine.gizmo).toMatchObject({ object: 'test_gizmo', id: 'mine' });
    expect(theirs.gizmo).toBe('https://api.example.test/api/v1/test_gizmos/theirs');
    // Without customer scope nothing of the kind is read at all.
    const shopper = context([...LIMITED_BASE_RIGHTS]);
    shopper.principal = { kind: 'limited', permissions: [...LIMITED_BASE_RIGHTS], isOwner: false, record: { bindings: [], reach: [] } } as unknown as Principal;
    const guest = renderStored(holder, { id: 'h3', next: 'mine' }, shopper);
    await expandResources([{ json: guest, declaration: holder }], parseExpand('gizmo', 'single'), shopper, false, scoped);
    expect(guest.gizmo).toBe('https://api.example.test/api/v1/test_gizmos/mine');
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(1);
  });

  it('makes no read when nothing is to be expanded', async () => {
    const ctx = context(all);
    await expandResources([{ json: renderStored(widget, { id: 'w1' }, ctx), declaration: widget }], parseExpand('gadget', 'single'), ctx, false, lookup);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Embedded arrays, virtual expansions, sub-collections and limits at depth (conventions.md §10)

type CrateRow = { id: string; lines: string[]; extra?: string; gadget?: string };

/** A line inside a crate: embedded, never read on its own. */
const line = declareResource<never>({
  name: 'test_line', collection: 'lines', idField: 'line_id', permission: 'orders', scope: 'mode',
  links: { gadget: 'test_gadget' },
  idOf: () => '',
  toJson: () => ({}),
});

/** What the test crates' sub-collection `parts` lists, and how often it was read. */
const partReads: string[] = [];
const crate = declareResource<CrateRow>({
  name: 'test_crate', collection: 'test_crates', idField: 'id', permission: 'orders', scope: 'mode',
  links: { gadget: 'test_gadget' },
  embedded: { lines: 'test_line', extra: 'test_line' },
  subCollections: {
    parts: {
      resource: 'test_gadget',
      firstPage: async (parentId) => {
        partReads.push(parentId);
        return { records: [stored(gadget, { id: `p1-${parentId}`, next: `k-${parentId}` }), stored(gadget, { id: `p2-${parentId}` })], totalItems: 2 };
      },
    },
  },
  virtuals: {
    summary: { compute: (row) => ({ lines: row.lines.length }) },
    // A virtual whose value is a record of another declaration: rendered and walked on.
    boss: { resource: 'test_gadget', compute: (row) => stored(gadget, { id: `boss-${row.id}`, next: `bz-${row.id}` }) },
    nothing: { compute: () => undefined },
  },
  idOf: (row) => row.id,
  toJson: (row, context) => ({
    object: 'test_crate',
    url: context.url(`test_crates/${row.id}`),
    id: row.id,
    gadget: link('test_gadgets', row.gadget, context),
    lines: row.lines.map((id, index) => ({ object: 'test_line', line_id: `l${index}`, gadget: context.url(`test_gadgets/${id}`) })),
    extra: row.extra ? { object: 'test_line', gadget: context.url(`test_gadgets/${row.extra}`) } : null,
    parts: context.url(`test_crates/${row.id}/parts`),
  }),
});

/** A root that links a crate, as a payment links its order. */
const box = declareResource<{ id: string; crate: string }>({
  name: 'test_box', collection: 'test_boxes', idField: 'id', permission: 'payments', scope: 'mode',
  links: { crate: 'test_crate' },
  idOf: (row) => row.id,
  toJson: (row, context) => ({ object: 'test_box', url: context.url(`test_boxes/${row.id}`), id: row.id, crate: context.url(`test_crates/${row.crate}`) }),
});

/** Gadgets with a sub-collection, a record-level rule for limited tokens, and gizmos linking back. */
const shyGadget = declareResource<Row>({
  ...gadget,
  subCollections: { kids: { resource: 'test_gizmo', firstPage: async (parentId) => ({ records: [stored(gizmo, { id: `kid-${parentId}` })], totalItems: 1 }) } },
  visibleTo: (row, principal) => principal.kind !== 'limited' || !row.id.startsWith('off'),
  toJson: (row, context) => ({ ...gadget.toJson(row, context), kids: context.url(`test_gadgets/${row.id}/kids`) }),
});
const loopGizmo = declareResource<Row>({
  ...gizmo,
  links: { back: 'test_widget' },
  toJson: (row, context) => ({ ...gizmo.toJson(row, context), back: context.url(`test_widgets/w-${row.id}`) }),
});

const deep = lookupOf([loopGizmo, shyGadget, widget, line, crate, box]);

/** The crates the BatchGetItem fake knows, by id. */
const crates = new Map<string, CrateRow>();

function lines(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`);
}

function batchCalls(): number {
  return ddb.commandCalls(BatchGetCommand).length;
}

function limited(reach: string[]): RenderContext {
  const ctx = context([...LIMITED_BASE_RIGHTS]);
  ctx.principal = { kind: 'limited', permissions: [...LIMITED_BASE_RIGHTS], isOwner: false, record: { bindings: [], reach } } as unknown as Principal;
  return ctx;
}

/** Answers BatchGetItem with crates the test set up, and gadgets, gizmos and widgets made up from their ids. */
function serveRecords(): void {
  ddb.on(BatchGetCommand).callsFake((input) => {
    const keys = input.RequestItems.cartwheel.Keys as Array<{ pk: string }>;
    const rows: Record<string, unknown>[] = [];
    for (const key of keys) {
      const [, , collection, id] = key.pk.split('#');
      if (collection === 'test_crates' && crates.has(id!)) rows.push(stored(crate, crates.get(id!)!));
      if (collection === 'test_gadgets') rows.push(stored(gadget, { id: id!, next: `z-${id}` }));
      if (collection === 'test_gizmos') rows.push(stored(gizmo, { id: id!, note: `note ${id}` }));
      if (collection === 'test_widgets') rows.push(stored(widget, { id: id!, next: `again-${id}` }));
    }
    return { Responses: { cartwheel: rows } };
  });
}

const obj = (value: unknown) => value as Record<string, any>;

describe('expand through embedded arrays, at every depth', () => {
  const all = [{ resource: '*' as const, methods: ['read' as const], allow: true }];

  beforeEach(() => {
    partReads.length = 0;
    crates.clear();
    serveRecords();
  });

  it('expands the link of every element of an embedded array of a linked record: one BatchGetItem per level (20 lines: 2 calls)', async () => {
    crates.set('c1', { id: 'c1', lines: lines(20, 'g') });
    const ctx = context(all);
    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    await expandResources([{ json, declaration: box, stored: { id: 'b1', crate: 'c1' } }], parseExpand('crate.lines.gadget', 'single'), ctx, false, deep);
    expect(batchCalls()).toBe(2);
    const [first, second] = ddb.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems!.cartwheel!.Keys!);
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(20);
    const crateJson = obj(json.crate);
    expect(crateJson.lines).toHaveLength(20);
    crateJson.lines.forEach((element: Record<string, any>, index: number) => expect(element.gadget).toMatchObject({ object: 'test_gadget', id: `g${index}` }));
  });

  it('reads the links of embedded elements in the same batch as the other links of their level', async () => {
    crates.set('c1', { id: 'c1', lines: lines(3, 'g'), gadget: 'top', extra: 'single' });
    const ctx = context(all);
    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand('crate.gadget.gizmo,crate.lines.gadget.gizmo,crate.extra.gadget', 'single'), ctx, false, deep);
    // Level 1: the crate. Level 2: its gadget, the 3 lines' gadgets and the single embedded object's. Level 3: 5 gizmos.
    expect(batchCalls()).toBe(3);
    const crateJson = obj(json.crate);
    expect(crateJson.gadget.gizmo).toMatchObject({ id: 'z-top' });
    expect(crateJson.lines[2].gadget.gizmo).toMatchObject({ object: 'test_gizmo', id: 'z-g2', note: 'note z-g2' });
    expect(crateJson.extra.gadget).toMatchObject({ object: 'test_gadget', id: 'single' });
  });

  it('expands embedded arrays of the roots themselves, for a whole list page in one batch', async () => {
    const ctx = context(all);
    const rows = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, lines: lines(5, `c${i}-g`) }));
    const roots = rows.map((row) => ({ json: renderStored(crate, row, ctx), declaration: crate as ResourceDeclaration, stored: row }));
    await expandResources(roots, parseExpand('data.lines.gadget', 'list'), ctx, true, deep);
    expect(batchCalls()).toBe(1);
    expect(obj(roots[9]!.json).lines[4].gadget).toMatchObject({ id: 'c9-g4' });
  });

  it('splits a level of more than 100 keys into 100-key calls, still one level', async () => {
    crates.set('big', { id: 'big', lines: lines(150, 'g') });
    const ctx = context(all);
    const json = renderStored(box, { id: 'b1', crate: 'big' }, ctx);
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand('crate.lines.gadget', 'single'), ctx, false, deep);
    const sizes = ddb.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems!.cartwheel!.Keys!.length);
    expect(sizes).toEqual([1, 100, 50]);
    expect(obj(json.crate).lines[149].gadget).toMatchObject({ id: 'g149' });
  });

  it('reads a record linked by many elements once', async () => {
    crates.set('c1', { id: 'c1', lines: ['same', 'same', 'same'] });
    const ctx = context(all);
    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand('crate.lines.gadget', 'single'), ctx, false, deep);
    expect(ddb.commandCalls(BatchGetCommand)[1]!.args[0].input.RequestItems!.cartwheel!.Keys).toHaveLength(1);
    const gadgets = obj(json.crate).lines.map((element: Record<string, any>) => element.gadget);
    expect(gadgets.every((gadgetJson: Record<string, any>) => gadgetJson.id === 'same')).toBe(true);
    // Each element gets its own object: show/hide and later levels never share state.
    expect(gadgets[0]).not.toBe(gadgets[1]);
  });

  it('stops at 4 segments: a fifth is ignored, links at the fourth still expand', async () => {
    crates.set('c1', { id: 'c1', lines: ['g0'] });
    const ctx = context(all);
    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand('crate.lines.gadget.gizmo.back', 'single'), ctx, false, deep);
    const gizmoJson = obj(json.crate).lines[0].gadget.gizmo;
    expect(gizmoJson).toMatchObject({ object: 'test_gizmo', id: 'z-g0' });
    expect(gizmoJson.back).toBe('https://api.example.test/api/v1/test_widgets/w-z-g0');
    expect(batchCalls()).toBe(3);
  });

  it('ignores unknown and inapplicable paths at every depth, and paths that are already inline', async () => {
    crates.set('c1', { id: 'c1', lines: ['g0'] });
    const ctx = context(all);
    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    const before = structuredClone(json);
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand('crate.lines.bogus,crate.lines,crate.nope.x,crate.id.x,lines.gadget,crate.lines.gadget.gizmo.note', 'single'), ctx, false, deep);
    const crateJson = obj(json.crate);
    expect(Object.keys(json)).toEqual(Object.keys(before));
    expect(crateJson.lines[0]).not.toHaveProperty('bogus');
    expect(crateJson.lines[0].gadget.gizmo).toMatchObject({ note: 'note z-g0' });
  });

  it('limits a list to 2 entries: a third path is dropped from the end', async () => {
    const ctx = context(all);
    const row = { id: 'c1', lines: ['g0'], gadget: 'top' };
    const json = renderStored(crate, row, ctx);
    await expandResources([{ json, declaration: crate, stored: row }], parseExpand('summary,gadget,lines.gadget', 'list'), ctx, true, deep);
    expect(json.summary).toEqual({ lines: 1 });
    expect(obj(json.gadget)).toMatchObject({ id: 'top' });
    expect(obj(json).lines[0].gadget).toBe('https://api.example.test/api/v1/test_gadgets/g0');
  });
});

describe('virtual expansions at any depth', () => {
  const all = [{ resource: '*' as const, methods: ['read' as const], allow: true }];

  beforeEach(() => {
    crates.clear();
    serveRecords();
  });

  it('computes a virtual only when a path names it, on the root and on a linked record', async () => {
    crates.set('c1', { id: 'c1', lines: lines(4, 'g') });
    const ctx = context(all);
    const row = { id: 'c0', lines: ['a'] };
    const plain = renderStored(crate, row, ctx);
    await expandResources([{ json: plain, declaration: crate, stored: row }], parseExpand('lines', 'single'), ctx, false, deep);
    expect(plain).not.toHaveProperty('summary');

    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand('crate.summary,summary,crate.nothing', 'single'), ctx, false, deep);
    expect(obj(json.crate).summary).toEqual({ lines: 4 });
    expect(json).not.toHaveProperty('summary');
    expect(obj(json.crate)).not.toHaveProperty('nothing');
    expect(batchCalls()).toBe(1);
  });

  it('renders a virtual that is a record of another declaration and walks on into it, in the next level batch', async () => {
    crates.set('c1', { id: 'c1', lines: [] });
    const ctx = context(all);
    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand('crate.boss.gizmo', 'single'), ctx, false, deep);
    expect(obj(json.crate).boss).toMatchObject({ object: 'test_gadget', id: 'boss-c1', gizmo: { object: 'test_gizmo', id: 'bz-c1' } });
    expect(batchCalls()).toBe(2);
  });

  it('has no virtuals on inline objects (no stored record to compute from)', async () => {
    const ctx = context(all);
    const inline = declareResource<Row>({ ...widget, name: 'test_holder', links: { crate: 'test_crate' }, toJson: () => ({ crate: { id: 'x', lines: [] } }) });
    const json = renderStored(inline, { id: 'h' }, ctx);
    await expandResources([{ json, declaration: inline, stored: {} }], parseExpand('crate.summary', 'single'), ctx, false, lookupOf([inline, crate, shyGadget, loopGizmo, widget, line]));
    expect(obj(json.crate)).not.toHaveProperty('summary');
  });
});

describe('sub-collections at depth', () => {
  const all = [{ resource: '*' as const, methods: ['read' as const], allow: true }];

  beforeEach(() => {
    partReads.length = 0;
    crates.clear();
    serveRecords();
  });

  it('expands a sub-collection of a linked record into its first page, whose elements expand single links', async () => {
    crates.set('c1', { id: 'c1', lines: [] });
    const ctx = context(all);
    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand('crate.parts.data.gizmo', 'single'), ctx, false, deep);
    const parts = obj(json.crate).parts;
    expect(parts).toMatchObject({
      object: 'list', total_items: 2, total_pages: 1, current_page: 1, next_page_url: null, previous_page_url: null,
      current_page_url: 'https://api.example.test/api/v1/test_crates/c1/parts',
    });
    expect(parts.data[0]).toMatchObject({ object: 'test_gadget', id: 'p1-c1', gizmo: { object: 'test_gizmo', id: 'k-c1' } });
    expect(parts.data[1].gizmo).toBeNull();
    expect(batchCalls()).toBe(2);
  });

  it('never expands a sub-collection inside a list element or inside an expanded sub-collection', async () => {
    crates.set('c1', { id: 'c1', lines: [] });
    const ctx = context(all);
    const rows = [{ id: 'c0', lines: [] }];
    const roots = rows.map((row) => ({ json: renderStored(crate, row, ctx), declaration: crate as ResourceDeclaration, stored: row }));
    await expandResources(roots, parseExpand('parts', 'list'), ctx, true, deep);
    expect(roots[0]!.json.parts).toBe('https://api.example.test/api/v1/test_crates/c0/parts');

    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand('crate.parts.kids', 'single'), ctx, false, deep);
    expect(obj(json.crate).parts.data[0].kids).toBe('https://api.example.test/api/v1/test_gadgets/p1-c1/kids');
    expect(partReads).toEqual(['c1']);
  });
});

describe('what a limited token may read, at every depth', () => {
  beforeEach(() => {
    crates.clear();
    serveRecords();
  });

  it('expands what it reaches and what its rights read, and leaves the rest URLs', async () => {
    crates.set('c1', { id: 'c1', lines: ['on1', 'off1', 'on2'], gadget: 'on3' });
    crates.set('c2', { id: 'c2', lines: ['on4'] });
    const ctx = limited(['test_crates/c1']);
    const reached = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    await expandResources([{ json: reached, declaration: box, stored: {} }], parseExpand('crate.lines.gadget.gizmo,crate.summary,crate.parts,crate.gadget', 'single'), ctx, false, deep);
    const crateJson = obj(reached.crate);
    // Gadgets are products (its base rights), but the record rule hides the `off` ones.
    expect(crateJson.lines.map((element: Record<string, any>) => (typeof element.gadget === 'string' ? 'url' : element.gadget.id))).toEqual(['on1', 'url', 'on2']);
    expect(crateJson.lines[1].gadget).toBe('https://api.example.test/api/v1/test_gadgets/off1');
    // Gizmos need orders:read, which it lacks, and it does not reach them.
    expect(crateJson.lines[0].gadget.gizmo).toBe('https://api.example.test/api/v1/test_gizmos/z-on1');
    expect(crateJson.summary).toEqual({ lines: 3 });
    // Sub-collections of a record it reaches are its to read.
    expect(crateJson.parts).toMatchObject({ object: 'list', total_items: 2 });
    expect(crateJson.gadget).toMatchObject({ id: 'on3' });

    const other = renderStored(box, { id: 'b2', crate: 'c2' }, ctx);
    await expandResources([{ json: other, declaration: box, stored: {} }], parseExpand('crate.lines.gadget', 'single'), ctx, false, deep);
    expect(other.crate).toBe('https://api.example.test/api/v1/test_crates/c2');
  });
});

describe('names inherited from Object.prototype', () => {
  it('name nothing at any depth: expand=constructor,toString,crate.valueOf is ignored', async () => {
    crates.clear();
    crates.set('c1', { id: 'c1', lines: ['g0'] });
    serveRecords();
    const ctx = context([{ resource: '*', methods: ['read'], allow: true }]);
    const json = renderStored(box, { id: 'b1', crate: 'c1' }, ctx);
    const paths = 'constructor,toString,crate.valueOf,crate.lines.hasOwnProperty,crate.constructor.x';
    await expandResources([{ json, declaration: box, stored: {} }], parseExpand(paths, 'single'), ctx, false, deep);
    expect(obj(json.crate)).toMatchObject({ object: 'test_crate', id: 'c1' });
    expect(Object.hasOwn(json, 'constructor')).toBe(false);
    expect(Object.hasOwn(obj(json.crate), 'valueOf')).toBe(false);
  });
});
