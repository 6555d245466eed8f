/**
 * One LevelDB batch per write operation (infra/local/dynamo/write-groups.ts): inside `run`, the
 * store's writes are acknowledged at once, point reads see them, and they land as one batch
 * when the operation ends (also when it failed: what it wrote stands unless it rolled it back);
 * a rollback to a mark drops the writes made since; outside `run` writes go straight through.
 */
import { describe, expect, it } from 'vitest';
import type { BatchOperation, PointLevel } from '../../../infra/local/dynamo/read-cache';
import { WriteGroups } from '../../../infra/local/dynamo/write-groups';

type Callback = (error: Error | null, value?: unknown) => void;

/** A store that records the writes that reach it. */
function recordingStore() {
  const data = new Map<string, unknown>();
  const writes: string[] = [];
  const done = (callback: Callback | undefined, value?: unknown) => (callback ? void setImmediate(callback, null, value) : Promise.resolve(value));
  const db: PointLevel = {
    get: (key, callback) => done(callback as Callback, data.get(key)),
    put: (key, value, callback) => {
      writes.push(`put ${key}`);
      data.set(key, value);
      return done(callback as Callback);
    },
    del: (key, callback) => {
      writes.push(`del ${key}`);
      data.delete(key);
      return done(callback as Callback);
    },
    batch: (operations: BatchOperation[], callback) => {
      writes.push(`batch ${operations.map((operation) => `${operation.type} ${operation.key}`).join(', ')}`);
      for (const operation of operations) operation.type === 'put' ? data.set(operation.key, operation.value) : data.delete(operation.key);
      return done(callback as Callback);
    },
  };
  return { db, data, writes };
}

const call = <T>(method: (callback: Callback) => unknown) => new Promise<T>((resolve, reject) => void method((error, value) => (error ? reject(error) : resolve(value as T))));

describe('write groups', () => {
  it('lands the index entries and the item of one operation as one batch, reading its own writes meanwhile', async () => {
    const { db, data, writes } = recordingStore();
    const groups = new WriteGroups();
    groups.attach(db);
    await groups.run(async () => {
      await call((done) => db.del('index~old', done));
      await call((done) => db.put('index~new', { n: 1 }, done));
      await call((done) => db.put('item~a', { n: 1 }, done));
      // Acknowledged, readable, and not on the store yet.
      expect(await call((done) => db.get('item~a', done))).toEqual({ n: 1 });
      expect(await call((done) => db.get('index~old', done))).toBeUndefined();
      expect(writes).toEqual([]);
    });
    expect(writes).toEqual(['batch del index~old, put index~new, put item~a']);
    expect(data.get('item~a')).toEqual({ n: 1 });
    // Outside a group, writes go straight through.
    await call((done) => db.put('item~b', { n: 2 }, done));
    expect(writes.at(-1)).toBe('put item~b');
  });

  it('lands the writes of a failed operation too, then passes the failure on', async () => {
    const { db, writes } = recordingStore();
    const groups = new WriteGroups();
    groups.attach(db);
    await expect(
      groups.run(async () => {
        await call((done) => db.put('item~a', { n: 1 }, done));
        await call((done) => db.put('item~a', { n: 0 }, done));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(writes).toEqual(['batch put item~a, put item~a']);
    // Nothing written: nothing landed.
    await groups.run(async () => 'read only');
    expect(writes).toHaveLength(1);
  });

  it('hands out copies of what the operation wrote, so changing one does not change the write', async () => {
    const { db, data } = recordingStore();
    const groups = new WriteGroups();
    groups.attach(db);
    await groups.run(async () => {
      await call((done) => db.put('item~a', { list: [1] }, done));
      const read = await call<{ list: number[] }>((done) => db.get('item~a', done));
      read.list.push(2);
    });
    expect(data.get('item~a')).toEqual({ list: [1] });
  });

  it('drops the writes made since a mark, so reads see the store as it was and nothing of them lands', async () => {
    const { db, data, writes } = recordingStore();
    data.set('item~a', { n: 1 });
    const groups = new WriteGroups();
    groups.attach(db);
    await groups.run(async () => {
      await call((done) => db.put('item~b', { n: 2 }, done));
      const mark = groups.mark();
      await call((done) => db.put('item~a', { n: 9 }, done));
      await call((done) => db.del('item~b', done));
      await call((done) => db.put('item~c', { n: 3 }, done));
      groups.rollback(mark);
      expect(await call((done) => db.get('item~a', done))).toEqual({ n: 1 });
      expect(await call((done) => db.get('item~b', done))).toEqual({ n: 2 });
      expect(await call((done) => db.get('item~c', done))).toBeUndefined();
      expect(() => groups.rollback(mark + 1)).toThrow('No write mark 2 in this operation (it has 1 writes)');
    });
    expect(writes).toEqual(['batch put item~b']);
  });

  it('refuses marks and rollbacks outside an operation', () => {
    const groups = new WriteGroups();
    groups.attach(recordingStore().db);
    expect(() => groups.mark()).toThrow('No write operation under way');
    expect(() => groups.rollback(0)).toThrow('No write operation under way');
  });
});
