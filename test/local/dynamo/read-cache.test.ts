/**
 * The point-read cache in front of the local DynamoDB's LevelDB (infra/local/dynamo/read-cache.ts):
 * hot items come from memory, every write is seen at once, a refused write leaves nothing
 * behind, the budget holds however much is written, and what was acknowledged is on disk
 * (a new emulator on the same data, with an empty cache, reads it).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../../infra/local/dynamo/emulator';
import { cachePointReads, type PointLevel } from '../../../infra/local/dynamo/read-cache';
import { tableDefinition } from '../../../shared/store/table';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

const harness = new Harness();
afterAll(() => harness.cleanup());

const get = (doc: Awaited<ReturnType<Harness['startWithTable']>>['doc'], pk: string) =>
  doc.send(new GetCommand({ TableName: TABLE, Key: { pk, sk: 'record' }, ConsistentRead: true })).then((result) => result.Item);

describe('the point-read cache', () => {
  it('serves repeated reads from memory and sees every write, update and delete at once', async () => {
    const { emulator, doc } = await harness.startWithTable();
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'hot', sk: 'record', n: 1, tags: ['a'] } }));
    const before = emulator.readCache();
    for (let i = 0; i < 20; i++) expect(await get(doc, 'hot')).toMatchObject({ n: 1 });
    const after = emulator.readCache();
    expect(after.hits - before.hits).toBeGreaterThanOrEqual(20);
    expect(after.misses - before.misses).toBe(0);

    await doc.send(new UpdateCommand({ TableName: TABLE, Key: { pk: 'hot', sk: 'record' }, UpdateExpression: 'SET n = n + :one, tags = list_append(tags, :b)', ExpressionAttributeValues: { ':one': 1, ':b': ['b'] } }));
    expect(await get(doc, 'hot')).toMatchObject({ n: 2, tags: ['a', 'b'] });
    await doc.send(new DeleteCommand({ TableName: TABLE, Key: { pk: 'hot', sk: 'record' } }));
    expect(await get(doc, 'hot')).toBeUndefined();
    // A conditional put of a new item reads the (absent) key first: from the cache, still absent.
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'hot', sk: 'record', n: 3 }, ConditionExpression: 'attribute_not_exists(pk)' }));
    expect(await get(doc, 'hot')).toMatchObject({ n: 3 });
  });

  it('hands out copies: changing an item dynalite read never changes the cached one', async () => {
    const { doc } = await harness.startWithTable();
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'copy', sk: 'record', list: [1] } }));
    const first = (await get(doc, 'copy'))!;
    (first.list as number[]).push(2);
    expect(await get(doc, 'copy')).toMatchObject({ list: [1] });
  });

  it('keeps within its budget, oldest out first, and acknowledged writes are on disk for a new emulator', async () => {
    const dataDir = await harness.dataDir();
    const emulator = await harness.start({ dataDir, readCache: { maxChars: 20_000, maxEntries: 50 } });
    const { client, doc } = harness.connect(emulator.endpoint);
    await ensureTable(client, TABLE, tableDefinition);
    for (let i = 0; i < 300; i++) await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: `item-${i}`, sk: 'record', body: 'x'.repeat(200) } }));
    const stats = emulator.readCache();
    expect(stats.entries).toBeLessThanOrEqual(50);
    expect(stats.chars).toBeLessThanOrEqual(20_000);
    // An evicted key is read from LevelDB again, correctly.
    expect(await get(doc, 'item-0')).toMatchObject({ body: 'x'.repeat(200) });
    await emulator.stop();
    const reopened = await harness.start({ dataDir });
    const again = harness.connect(reopened.endpoint).doc;
    expect(await get(again, 'item-299')).toMatchObject({ pk: 'item-299' });
    expect(reopened.readCache().hits).toBe(0);
  });

  it('drops a refused write from the cache, and does not keep a read that overlapped a write', async () => {
    const stored = new Map<string, unknown>();
    let failNext = false;
    let releaseRead: (() => void) | undefined;
    const level: PointLevel = {
      // Reads the value when asked, answers when released (a slow LevelDB read).
      get: (key) => {
        const value = stored.get(key);
        return new Promise((resolve) => (releaseRead = () => resolve(value)));
      },
      put: (key, value) => {
        if (failNext) return Promise.reject(new Error('disk full'));
        stored.set(key, value);
        return Promise.resolve();
      },
      del: (key) => (stored.delete(key), Promise.resolve()),
      batch: () => Promise.resolve(),
    };
    const stats = cachePointReads(level);
    stored.set('k', { v: 1 });
    // A read from LevelDB, and a write before it answers: the old value is not cached.
    const slow = level.get('k') as Promise<unknown>;
    await level.put('k', { v: 2 });
    releaseRead!();
    expect(await slow).toEqual({ v: 1 });
    expect(await (level.get('k') as Promise<unknown>)).toEqual({ v: 2 });
    // A write LevelDB refuses: its value is not served afterwards.
    failNext = true;
    await expect(level.put('k', { v: 3 }) as Promise<void>).rejects.toThrow('disk full');
    failNext = false;
    const next = level.get('k') as Promise<unknown>;
    releaseRead!();
    expect(await next).toEqual({ v: 2 });
    expect(stats().entries).toBe(1);
  });

  it('keeps table descriptions parsed and hands out the same object until the table is written', async () => {
    const stored = new Map<string, unknown>([['table~t', { TableName: 't', TableStatus: 'ACTIVE' }]]);
    let reads = 0;
    const level: PointLevel = {
      get: (key) => (reads++, Promise.resolve(stored.get(key))),
      put: (key, value) => (stored.set(key, value), Promise.resolve()),
      del: (key) => (stored.delete(key), Promise.resolve()),
      batch: () => Promise.resolve(),
    };
    cachePointReads(level);
    const first = await (level.get('table~t') as Promise<Record<string, unknown>>);
    const second = await (level.get('table~t') as Promise<Record<string, unknown>>);
    expect(await (level.get('table~t') as Promise<unknown>)).toBe(second);
    expect(second).toEqual(first);
    expect(reads).toBe(1);
    // UpdateTable/DeleteTable change the object and write it back: later reads get what was written, as a copy.
    const changed = { ...first, TableStatus: 'DELETING' };
    await level.put('table~t', changed);
    changed.TableStatus = 'CHANGED AFTER THE WRITE';
    expect(await (level.get('table~t') as Promise<unknown>)).toEqual({ TableName: 't', TableStatus: 'DELETING' });
    await level.del('table~t');
    expect(await (level.get('table~t') as Promise<unknown>)).toBeUndefined();
    expect(reads).toBe(1);
  });

  it('reads a miss on the calling thread when the store can (getSync), and passes its error on', async () => {
    const stored = new Map<string, unknown>([['k', { v: 1 }]]);
    let asyncReads = 0;
    let broken = false;
    const level: PointLevel = {
      status: 'open',
      get: () => (asyncReads++, Promise.resolve(undefined)),
      getSync: (key) => {
        if (broken) throw new Error('Corruption: bad block');
        return stored.get(key);
      },
      put: (key, value) => (stored.set(key, value), Promise.resolve()),
      del: (key) => (stored.delete(key), Promise.resolve()),
      batch: () => Promise.resolve(),
    };
    const stats = cachePointReads(level);
    expect(await (level.get('k') as Promise<unknown>)).toEqual({ v: 1 });
    expect(await (level.get('k') as Promise<unknown>)).toEqual({ v: 1 });
    expect(stats()).toMatchObject({ misses: 1, hits: 1 });
    broken = true;
    await expect(level.get('other') as Promise<unknown>).rejects.toThrow('Corruption: bad block');
    // A store not open yet (still opening) is read the usual way.
    level.status = 'opening';
    expect(await (level.get('later') as Promise<unknown>)).toBeUndefined();
    expect(asyncReads).toBe(1);
  });

  it('takes the JSON text the store encoded for a batch instead of encoding the values again', async () => {
    const stored = new Map<string, string>();
    const level: PointLevel = {
      get: (key) => Promise.resolve(stored.has(key) ? JSON.parse(stored.get(key)!) : undefined),
      put: () => Promise.resolve(),
      del: () => Promise.resolve(),
      // As abstract-level does: encode, then hand the encoded operations to the private batch
      // within the call. The text says what it is, so the test can tell where a read came from.
      batch(operations) {
        const encodedOperations = operations.map((operation) =>
          operation.type === 'put' ? { ...operation, value: JSON.stringify({ ...(operation.value as object), encodedBy: 'store' }) } : operation,
        );
        return this._batch!(encodedOperations, {});
      },
      _batch: (operations) => {
        for (const operation of operations) operation.type === 'put' ? stored.set(operation.key, operation.value as string) : stored.delete(operation.key);
        return Promise.resolve();
      },
    };
    const stats = cachePointReads(level);
    await level.batch([
      { type: 'put', key: 'a', value: { n: 1 } },
      { type: 'put', key: 'b', value: { n: 2 } },
      { type: 'del', key: 'b' },
    ]);
    expect(await (level.get('a') as Promise<unknown>)).toEqual({ n: 1, encodedBy: 'store' });
    expect(await (level.get('b') as Promise<unknown>)).toBeUndefined();
    expect(stats()).toMatchObject({ hits: 2, misses: 0 });
  });
});
