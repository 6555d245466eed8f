/**
 * Storage attributes and the versioned update of the entity helper, against the local DynamoDB
 * emulator: a store's key, index-key and expiry builders make the item, every read answers the
 * record without them (and the store still knows where it found it), a key can hold a property
 * of the record, and the versioned update and remove read, change, write only over the version
 * read and run again after a lost race.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, table } from '../../shared/store/client';
import { datePosition, readDateListing } from '../../shared/store/date-listing';
import { byDate, defineEntity, EXISTS } from '../../shared/store/entity';
import { VersionConflictError } from '../../shared/store/errors';
import type { ItemKey } from '../../shared/store/keys';
import { batchGetItems } from '../../shared/store/records';
import { STORAGE_ATTRIBUTES } from '../../shared/store/storage';
import { Harness, useEmulatedTable } from '../local/fixtures/dynamo-harness';

const harness = new Harness();
useEmulatedTable(harness);

interface Gadget {
  account_id: string;
  mode: 'live' | 'test';
  gadget_id: string;
  label: string;
  created_ms: number;
  modified_ms: number;
  /** Moved by others without a new version (like a promotion's uses). */
  uses?: number;
}

const T0 = Date.parse('2026-11-01T10:00:00Z');
const scope = { accountId: 'ACCTG', mode: 'test' as const };
const partition = 'ACCTG#test#gadgets';
const gadgets = defineEntity<Gadget>({
  name: 'gadget',
  collection: 'gadgets',
  scope: 'mode',
  idField: 'gadget_id',
  indexes: { gsi1: 'gadgets by date_created', gsi2: 'gadgets by date_modified' },
  indexKeys: (gadget, listing) => ({ gsi1: byDate(listing, gadget.created_ms, gadget.gadget_id), gsi2: byDate(listing, gadget.modified_ms, gadget.gadget_id) }),
  expiresAt: (gadget) => Math.floor(gadget.created_ms / 1000) + 3600,
});
const gadget = (id: string, label = 'new', at = T0): Gadget => ({ account_id: scope.accountId, mode: scope.mode, gadget_id: id, label, created_ms: at, modified_ms: at });

/** The item as stored, storage attributes and all. */
async function item(key: ItemKey): Promise<Record<string, unknown> | undefined> {
  return (await db().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }))).Item;
}

/** Changes the stored gadget behind the caller's back, as a concurrent writer would (a new version). */
async function changeBehind(id: string, label: string): Promise<void> {
  const current = await gadgets.get(scope, id);
  await gadgets.save(current, { ...current, label, modified_ms: current.modified_ms + 1 });
}

const storageIn = (record: object) => Object.keys(record).filter((name) => STORAGE_ATTRIBUTES.includes(name));

describe('storage attributes', () => {
  it('are built by the entity when it writes a record: key, index keys, expiry', async () => {
    await gadgets.create(gadget('G1'));
    expect(await item(gadgets.key(scope, 'G1'))).toEqual({
      ...gadget('G1'),
      pk: 'ACCTG#test#gadgets#G1',
      sk: 'record',
      gsi1pk: partition,
      gsi1sk: '2026-11-01T10:00:00.000Z#G1',
      gsi2pk: partition,
      gsi2sk: '2026-11-01T10:00:00.000Z#G1',
      ttl: T0 / 1000 + 3600,
    });
  });

  it('are stripped from every read: by id, many by id, by index, in batches and listings', async () => {
    await gadgets.create(gadget('G2', 'two', T0 + 1000));
    expect(await gadgets.get(scope, 'G2')).toEqual(gadget('G2', 'two', T0 + 1000));
    expect(await gadgets.find(scope, 'G2')).toEqual(gadget('G2', 'two', T0 + 1000));
    const many = await gadgets.findMany(scope, ['G1', 'G2']);
    expect([...many.values()].map(storageIn)).toEqual([[], []]);
    const listed = await gadgets.query('gsi1', { KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': partition } });
    expect(listed.map((record) => record.gadget_id)).toEqual(['G1', 'G2']);
    expect(listed.map(storageIn)).toEqual([[], []]);
    const batch = await batchGetItems([gadgets.key(scope, 'G1'), gadgets.key(scope, 'G2')]);
    expect([...batch.keys()].sort()).toEqual(['ACCTG#test#gadgets#G1', 'ACCTG#test#gadgets#G2']);
    expect([...batch.values()].map(storageIn)).toEqual([[], []]);
    expect(gadgets.recordOf((await item(gadgets.key(scope, 'G2')))!)).toEqual(gadget('G2', 'two', T0 + 1000));
  });

  it('leave the store knowing where it found a record: its position in a date listing', async () => {
    const read = await gadgets.get(scope, 'G2');
    expect(datePosition(read, 'date_created')).toBe('2026-11-01T10:00:01.000Z#G2');
    expect(datePosition({ ...read }, 'date_created')).toBeUndefined();
    const page = await readDateListing({ partition, order: 'date_modified', from: '', to: '~', ascending: false, max: 10 });
    expect(page.map((record) => record.gadget_id)).toEqual(['G2', 'G1']);
    expect(page.map(storageIn)).toEqual([[], []]);
    expect(page.map((record) => datePosition(record, 'date_modified'))).toEqual(['2026-11-01T10:00:01.000Z#G2', '2026-11-01T10:00:00.000Z#G1']);
  });

  it('may hold a property of the record in its key, stored nowhere else', async () => {
    interface Ticket { ticket_hash: string; account_id: string; note: string }
    const tickets = defineEntity<Ticket>({
      name: 'ticket',
      collection: 'tickets',
      scope: 'account',
      idField: 'ticket_hash',
      keyOf: (ticket) => ({ pk: `ticket#${ticket.ticket_hash}`, sk: 'ticket' }),
      fromKey: (key) => ({ ticket_hash: key.pk.slice('ticket#'.length) }),
    });
    await tickets.create({ ticket_hash: 'abc', account_id: 'ACCTG', note: 'hi' });
    const stored = await item({ pk: 'ticket#abc', sk: 'ticket' });
    expect(stored).toEqual({ pk: 'ticket#abc', sk: 'ticket', account_id: 'ACCTG', note: 'hi' });
    expect(tickets.recordOf(stored!)).toEqual({ ticket_hash: 'abc', account_id: 'ACCTG', note: 'hi' });
  });

  it('cannot be declared by a record type (its entity does not compile)', () => {
    interface Carrying { pk: string; thing_id: string }
    const define = () =>
      // @ts-expect-error A record type with `pk` is refused: its store adds the key.
      defineEntity<Carrying>({ name: 'carrying', collection: 'carryings', scope: 'mode', idField: 'thing_id' }, { register: false });
    expect(define).toBeTypeOf('function');
  });
});

describe('the versioned update', () => {
  it('writes the change over the version read, moving the record in its listings, and answers it', async () => {
    await gadgets.create(gadget('U1'));
    const saved = await gadgets.update(scope, 'U1', (current) => ({ next: { ...current, label: 'changed', modified_ms: T0 + 5000 } }));
    expect(saved).toEqual({ ...gadget('U1', 'changed'), modified_ms: T0 + 5000 });
    expect(await item(gadgets.key(scope, 'U1'))).toMatchObject({ label: 'changed', gsi1sk: '2026-11-01T10:00:00.000Z#U1', gsi2sk: '2026-11-01T10:00:05.000Z#U1', ttl: T0 / 1000 + 3600 });
  });

  it('reads and changes again after a lost race, so a concurrent change is kept', async () => {
    await gadgets.create(gadget('U2', 'a'));
    let rounds = 0;
    const saved = await gadgets.update(scope, 'U2', async (current) => {
      rounds++;
      if (rounds === 1) await changeBehind('U2', `${current.label}+other`);
      return { next: { ...current, label: `${current.label}+mine`, modified_ms: current.modified_ms + 1 } };
    });
    expect(rounds).toBe(2);
    expect(saved.label).toBe('a+other+mine');
    expect((await gadgets.get(scope, 'U2')).label).toBe('a+other+mine');
  });

  it('gives up with 422 request_failure after 12 lost races, having written nothing of its own', async () => {
    await gadgets.create(gadget('U3', 'a'));
    let rounds = 0;
    const attempt = gadgets.update(scope, 'U3', async (current) => {
      rounds++;
      await changeBehind('U3', `other${rounds}`);
      return { next: { ...current, label: 'mine', modified_ms: current.modified_ms + 1 } };
    });
    await expect(attempt).rejects.toMatchObject({ status: 422, code: 'request_failure' });
    expect(rounds).toBe(12);
    expect((await gadgets.get(scope, 'U3')).label).toBe('other12');
  });

  it('passes errors of the change through at once, and writes nothing when the change says so', async () => {
    await gadgets.create(gadget('U4'));
    await expect(gadgets.update(scope, 'U4', () => { throw new Error('refused'); })).rejects.toThrow('refused');
    await expect(gadgets.update(scope, 'NOPE', (current) => ({ next: current }))).rejects.toMatchObject({ status: 404 });
    const before = await item(gadgets.key(scope, 'U4'));
    const answer = await gadgets.update(scope, 'U4', (current) => ({ next: { ...current, label: 'unsaved' }, write: false, answer: 'nothing to do' }));
    expect(answer).toBe('nothing to do');
    expect(await item(gadgets.key(scope, 'U4'))).toEqual(before);
  });

  it('with `set` writes only those attributes (and the listing keys), so what others move meanwhile stays', async () => {
    await gadgets.create(gadget('U5'));
    const saved = await gadgets.update(scope, 'U5', async (current) => {
      // A counter moved by someone else after this read, without a new version.
      await db().send(new UpdateCommand({ TableName: table(), Key: gadgets.key(scope, 'U5'), UpdateExpression: 'ADD uses :one', ExpressionAttributeValues: { ':one': 1 } }));
      const changes = { label: 'set', modified_ms: current.modified_ms + 1000 };
      return { next: { ...current, ...changes }, set: changes };
    });
    expect(saved.uses).toBeUndefined();
    expect(await item(gadgets.key(scope, 'U5'))).toMatchObject({ label: 'set', uses: 1, gsi2sk: '2026-11-01T10:00:01.000Z#U5' });
  });

  it('writes the entries of the change with it, and a refused condition of the change is a lost race', async () => {
    await gadgets.create(gadget('U6'));
    const current = await gadgets.get(scope, 'U6');
    const stale = { ...current };
    await gadgets.revise(current, { next: { ...current, label: 'with extra', modified_ms: current.modified_ms + 1 }, extra: [gadgets.putEntry(gadget('U6-extra'), { ifNew: true })] });
    expect((await gadgets.get(scope, 'U6')).label).toBe('with extra');
    expect(await gadgets.find(scope, 'U6-extra')).toBeDefined();
    await expect(gadgets.revise(stale, { next: { ...stale, label: 'stale' } })).rejects.toBeInstanceOf(VersionConflictError);
    const now = await gadgets.get(scope, 'U6');
    const refused = gadgets.revise(now, { next: { ...now, label: 'refused' }, condition: { expression: 'label = :other', values: { ':other': 'other' } } });
    await expect(refused).rejects.toBeInstanceOf(VersionConflictError);
    expect((await gadgets.get(scope, 'U6')).label).toBe('with extra');
  });
});

describe('the versioned remove', () => {
  it('deletes over the version read, again after a lost race, with its entries', async () => {
    await gadgets.create(gadget('R1'));
    let rounds = 0;
    await gadgets.remove(scope, 'R1', async () => {
      rounds++;
      if (rounds === 1) await changeBehind('R1', 'changed meanwhile');
      return { extra: [gadgets.updateEntry(scope, 'U1', { name: 'gadget.note', set: { label: 'R1 removed' }, condition: EXISTS })] };
    });
    expect(rounds).toBe(2);
    expect(await item(gadgets.key(scope, 'R1'))).toBeUndefined();
    expect((await gadgets.get(scope, 'U1')).label).toBe('R1 removed');
  });

  it('deletes nothing when the decision says so, and answers 404 for a missing record', async () => {
    await gadgets.create(gadget('R2'));
    await gadgets.remove(scope, 'R2', () => undefined);
    expect(await gadgets.find(scope, 'R2')).toBeDefined();
    await expect(gadgets.remove(scope, 'NOPE', () => ({}))).rejects.toMatchObject({ status: 404 });
  });
});
