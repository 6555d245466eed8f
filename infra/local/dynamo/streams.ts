/**
 * Read streams over dynalite's LevelDB that close their iterator when they end.
 *
 * dynalite 4.0.0 (db/index.js, `wrapWithCallbacks`) turns `level` 10 iterators into Node
 * streams for every Query and Scan (`queryTable`), ListTables and table deletion. Its streams'
 * `destroy` closes the iterator through `iterator.return()`, a method abstract-level 3
 * iterators do not have (theirs is `close()`), so no iterator is ever closed: each Query left
 * two open (a value iterator and the entry iterator under it), each holding native memory and
 * a LevelDB version whose table files compaction then may not delete. These replacements
 * are the same streams with the iterator closed on end, on error and when dynalite stops
 * reading early (a Limit or the 1 MB page size reached).
 */
import { Readable } from 'node:stream';

/** The part of an abstract-level iterator the streams use. */
interface LevelIterator<T> {
  next(): Promise<T | undefined>;
  close(): Promise<void>;
}

/** The LevelDB instance dynalite keeps in its store, after dynalite has wrapped it. */
export interface StreamingLevel {
  keys(options?: Record<string, unknown>): LevelIterator<string>;
  values(options?: Record<string, unknown>): LevelIterator<unknown>;
  createKeyStream?: (options?: Record<string, unknown>) => Readable;
  createValueStream?: (options?: Record<string, unknown>) => Readable;
}

/**
 * Replaces dynalite's `createKeyStream`/`createValueStream` on `db` (its prefixed sub-databases
 * call them through `db`, so every read path gets them) with streams that close their iterator.
 */
export function closeIteratorsWhenDone(db: StreamingLevel): void {
  if (typeof db.createKeyStream !== 'function' || typeof db.createValueStream !== 'function') {
    throw new Error('dynalite no longer adds createKeyStream/createValueStream to its LevelDB: check the stream patch in dynamo/streams.ts');
  }
  db.createKeyStream = (options) => iteratorStream(db.keys(options));
  db.createValueStream = (options) => iteratorStream(db.values(options));
}

/** An object-mode stream of `iterator`'s entries that closes it however the stream finishes. */
export function iteratorStream<T>(iterator: LevelIterator<T>): Readable {
  return new Readable({
    objectMode: true,
    read() {
      iterator.next().then(
        (value) => this.push(value === undefined ? null : value),
        (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
      );
    },
    // Called on end (autoDestroy), on error and on an early destroy(); abstract-level defers the
    // close until a read in progress has finished, and a second close is a no-op.
    destroy(error, callback) {
      iterator.close().then(
        () => callback(error),
        (closeError: unknown) => callback(error ?? (closeError instanceof Error ? closeError : new Error(String(closeError)))),
      );
    },
  });
}
