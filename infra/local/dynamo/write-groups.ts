/**
 * One LevelDB batch per write operation, so a `kill -9` keeps all of an operation or none of it.
 *
 * dynalite writes an item's index entries first and the item after, each as a LevelDB write of
 * its own. A process killed between them kept an index entry without its item: after the
 * restart the item was absent (so a conditional create succeeded again) while a Query on the
 * index still listed the old version. The crash test found it as a payment the gateway ledger
 * listed as both charged and voided.
 *
 * Every write operation runs under the emulator's exclusive lock; the lock runs it inside
 * `WriteGroups.run`. Meanwhile the store's writes are collected (each acknowledged at once, as
 * LevelDB would), point reads see what the operation already wrote, and when the operation ends
 * everything it wrote goes to LevelDB as one atomic batch, before the lock is released and
 * before the caller hears back. A TransactWriteItems is one operation, so it also lands whole;
 * a refused one drops what it collected (`mark`, `rollback`), so nothing of it lands at all.
 * Writes outside a group (none but start-up's) go straight through.
 */
import type { BatchOperation, PointLevel } from './read-cache';

type Callback<T> = (error: Error | null, value?: T) => void;

/** Answers `callback` (or the returned promise) with `value`, as a microtask (see read-cache.ts's `settle`). */
function acknowledge<T>(value: T, callback: Callback<T> | undefined): Promise<T> | undefined {
  if (typeof callback !== 'function') return Promise.resolve(value);
  queueMicrotask(() => callback(null, value));
  return undefined;
}

/** Collects the writes of one operation at a time and lands them as one batch. */
export class WriteGroups {
  private pending: BatchOperation[] | undefined;
  private batch: ((operations: BatchOperation[]) => Promise<void>) | undefined;

  /** Puts the grouping in front of `db`'s point reads and writes (dynalite's prefixed stores write through them). */
  attach(db: PointLevel): void {
    const get = db.get.bind(db);
    const put = db.put.bind(db);
    const del = db.del.bind(db);
    const batch = db.batch.bind(db);
    this.batch = (operations) => batch(operations) as Promise<void>;

    db.get = (key, callback) => {
      const written = this.pending && this.latest(key);
      if (!written) return get(key, callback);
      // A copy: dynalite changes the items it reads.
      const value = written.type === 'put' ? (JSON.parse(JSON.stringify(written.value)) as unknown) : undefined;
      return acknowledge(value, callback);
    };
    db.put = (key, value, callback) => {
      if (!this.pending) return put(key, value, callback);
      this.pending.push({ type: 'put', key, value });
      return acknowledge(undefined, callback);
    };
    db.del = (key, callback) => {
      if (!this.pending) return del(key, callback);
      this.pending.push({ type: 'del', key });
      return acknowledge(undefined, callback);
    };
    db.batch = (operations, callback) => {
      if (!this.pending) return batch(operations, callback);
      this.pending.push(...operations);
      return acknowledge(undefined, callback);
    };
  }

  /**
   * Runs one write operation with its writes collected, then lands them as one batch (also when
   * `work` failed: what it wrote stands unless it rolled it back, as with LevelDB directly).
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.pending || !this.batch) return work();
    const operations: BatchOperation[] = [];
    this.pending = operations;
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await work() };
    } catch (error) {
      outcome = { error };
    } finally {
      this.pending = undefined;
    }
    if (operations.length) await this.batch(operations);
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** How far the operation under way has got in its writes: `rollback` goes back there. */
  mark(): number {
    return this.underWay().length;
  }

  /**
   * Drops what the operation under way wrote since `mark`: none of it reaches LevelDB, and its
   * reads see the store as it was at the mark (a refused transaction's undo).
   */
  rollback(mark: number): void {
    const pending = this.underWay();
    if (mark < 0 || mark > pending.length) throw new Error(`No write mark ${mark} in this operation (it has ${pending.length} writes)`);
    pending.length = mark;
  }

  private underWay(): BatchOperation[] {
    if (!this.pending) throw new Error('No write operation under way: marks and rollbacks only work inside WriteGroups.run');
    return this.pending;
  }

  /** The last write to `key` in the operation under way, if any. */
  private latest(key: string): BatchOperation | undefined {
    for (let index = this.pending!.length - 1; index >= 0; index--) {
      if (this.pending![index]!.key === key) return this.pending![index];
    }
    return undefined;
  }
}
