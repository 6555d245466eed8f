/**
 * A bounded read cache in front of dynalite's LevelDB (issue 12: the local store made cheap).
 *
 * Every DynamoDB write dynalite answers first reads the item it replaces, and GetItem reads it
 * again: point reads of a small hot set (tokens, settings, the cart being paid) were the
 * largest single cost of a checkout on the local runtime (LevelDB's native `get` through the
 * thread pool). The cache keeps the JSON text of recently read or written keys, and absent
 * keys as absent, up to a byte budget, least recently used out first; so memory stays flat
 * however much the data grows. A miss is read with classic-level's `getSync`, on this thread.
 *
 * Writes go through: the cache takes the new value when a write starts and LevelDB acknowledges
 * it exactly as before (a committed write is on disk as it was, so `kill -9` keeps it); a write
 * LevelDB refuses drops its keys from the cache. A read that overlapped any write is not kept
 * (it may hold the value from before the write). Range reads (Query, Scan) still read LevelDB.
 *
 * Table descriptions (`table~<name>`) are the exception to "a fresh copy every time": dynalite
 * reads one for every operation and every item of a batch (some 60 times a checkout, 2 KB of
 * JSON each) and only changes it in UpdateTable/DeleteTable, which write it back at once; so
 * they are kept parsed and handed out as they are.
 */

/** The callback-style LevelDB methods dynalite calls on its store (after its own wrapping). */
export interface PointLevel {
  get(key: string, callback?: Callback<unknown>): unknown;
  put(key: string, value: unknown, callback?: Callback<void>): unknown;
  del(key: string, callback?: Callback<void>): unknown;
  batch(operations: BatchOperation[], callback?: Callback<void>): unknown;
  /** A read on the calling thread (classic-level 3); the store's state, as abstract-level reports it. */
  getSync?(key: string): unknown;
  /** abstract-level's private batch: the operations with keys and values encoded (JSON text). */
  _batch?(operations: BatchOperation[], options: unknown): Promise<void>;
  status?: string;
}

type Callback<T> = (error: Error | null, value?: T) => void;

/** One operation of a batch write. */
export interface BatchOperation {
  type: 'put' | 'del';
  key: string;
  value?: unknown;
}

/** How much the cache may hold. */
export interface ReadCacheLimits {
  /** Characters of JSON text kept, in all (default 32 Mi). */
  maxChars: number;
  /** Keys kept (default 50,000). */
  maxEntries: number;
}

/** What the cache did so far (for benches and tests). */
export interface ReadCacheStats {
  hits: number;
  misses: number;
  entries: number;
  chars: number;
}

const defaults: ReadCacheLimits = { maxChars: 32 * 1024 * 1024, maxEntries: 50_000 };

/** dynalite's table descriptions live under this prefix of its store. */
const isTableKey = (key: string) => key.startsWith('table~');

/** The cache's state; `stats()` reports it. */
class ReadCache {
  /** JSON text by key; null: known absent. Map order is recency (oldest first). */
  private readonly texts = new Map<string, string | null>();
  /** Table descriptions, parsed (see above); few, never evicted. */
  private readonly tables = new Map<string, unknown>();
  private chars = 0;
  /** Counts every write started, so a read can tell whether one overlapped it. */
  epoch = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly limits: ReadCacheLimits) {}

  lookup(key: string): { found: false } | { found: true; value: unknown } {
    if (isTableKey(key)) {
      if (!this.tables.has(key)) {
        this.misses++;
        return { found: false };
      }
      this.hits++;
      return { found: true, value: this.tables.get(key) };
    }
    const text = this.texts.get(key);
    if (text === undefined) {
      this.misses++;
      return { found: false };
    }
    this.hits++;
    // Most recently used last.
    this.texts.delete(key);
    this.texts.set(key, text);
    // A fresh copy every time: dynalite changes the items it reads.
    return { found: true, value: text === null ? undefined : JSON.parse(text) };
  }

  /** Takes `value` for `key`; `encoded`: its JSON text, when the store already made it. */
  remember(key: string, value: unknown, encoded?: string): void {
    if (isTableKey(key)) {
      // A copy: the writer may go on changing its object.
      this.tables.set(key, value === undefined ? undefined : JSON.parse(encoded ?? JSON.stringify(value)));
      return;
    }
    this.forget(key);
    const text = value === undefined ? null : (encoded ?? JSON.stringify(value));
    const size = key.length + (text?.length ?? 0);
    if (size > this.limits.maxChars / 16) return; // one huge item would evict everything
    this.texts.set(key, text);
    this.chars += size;
    while (this.chars > this.limits.maxChars || this.texts.size > this.limits.maxEntries) {
      const oldest = this.texts.keys().next().value as string;
      this.forget(oldest);
    }
  }

  forget(key: string): void {
    if (isTableKey(key)) {
      this.tables.delete(key);
      return;
    }
    const text = this.texts.get(key);
    if (text === undefined) return;
    this.texts.delete(key);
    this.chars -= key.length + (text?.length ?? 0);
  }

  stats(): ReadCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.texts.size, chars: this.chars };
  }
}

/**
 * Settles `callback` (or the returned promise) with `work`'s outcome. The callback runs as a
 * microtask, not a turn of the event loop later as dynalite's own wrappers do: an operation
 * holds the emulator's lock across its reads and writes, and each turn it yields lets unrelated
 * work run while every other write waits for the lock.
 */
function settle<T>(work: Promise<T>, callback: Callback<T> | undefined): Promise<T> | undefined {
  if (typeof callback !== 'function') return work;
  work.then(
    (value) => callback(null, value),
    (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
  );
  return undefined;
}

/** The original method as a promise (dynalite's wrappers return one when given no callback). */
function original<T>(method: (...args: never[]) => unknown, self: object, args: unknown[]): Promise<T> {
  return (method as (...args: unknown[]) => Promise<T>).apply(self, args);
}

/**
 * Puts the read cache in front of `db`'s point reads and writes (dynalite's prefixed
 * sub-databases call them through `db`). Answers its statistics.
 */
export function cachePointReads(db: PointLevel, limits: Partial<ReadCacheLimits> = {}): () => ReadCacheStats {
  const cache = new ReadCache({ ...defaults, ...limits });
  const get = db.get;
  const put = db.put;
  const del = db.del;
  const batch = db.batch;

  db.get = (key, callback) => {
    const cached = cache.lookup(key);
    if (cached.found) return settle(Promise.resolve(cached.value), callback);
    if (db.getSync && db.status === 'open') {
      // A miss is read on this thread: LevelDB answers from memory or the page cache in
      // microseconds, where the thread pool's round trip took a turn of the event loop (under
      // the emulator's lock, while other writes waited).
      let value: unknown;
      try {
        value = db.getSync(key);
      } catch (error) {
        return settle(Promise.reject(error instanceof Error ? error : new Error(String(error))), callback);
      }
      cache.remember(key, value);
      return settle(Promise.resolve(value), callback);
    }
    const epoch = cache.epoch;
    const read = original<unknown>(get, db, [key]).then((value) => {
      // Kept only if no write started meanwhile (it could be this key's).
      if (cache.epoch === epoch) cache.remember(key, value);
      return value;
    });
    return settle(read, callback);
  };
  db.put = (key, value, callback) => written([key], () => cache.remember(key, value), original<void>(put, db, [key, value]), callback);
  db.del = (key, callback) => written([key], () => cache.remember(key, undefined), original<void>(del, db, [key]), callback);
  // abstract-level encodes a batch's values to JSON text and hands them to the store's private
  // `_batch` within the `batch` call itself: the cache takes that text instead of making it again.
  const encoded = new Map<string, string>();
  const privateBatch = db._batch;
  if (privateBatch) {
    db._batch = (operations, options) => {
      for (const operation of operations) if (typeof operation.value === 'string') encoded.set(operation.key, operation.value);
      return privateBatch.call(db, operations, options);
    };
  }
  db.batch = (operations, callback) => {
    encoded.clear();
    const write = original<void>(batch, db, [operations]);
    return written(
      operations.map((operation) => operation.key),
      () => {
        for (const operation of operations) {
          cache.remember(operation.key, operation.type === 'put' ? operation.value : undefined, operation.type === 'put' ? encoded.get(operation.key) : undefined);
        }
        encoded.clear();
      },
      write,
      callback,
    );
  };

  /** A write: the cache takes it at once; a refused write takes its keys out again. */
  function written(keys: string[], apply: () => void, write: Promise<void>, callback: Callback<void> | undefined): Promise<void> | undefined {
    cache.epoch++;
    apply();
    const done = write.catch((error: unknown) => {
      for (const key of keys) cache.forget(key);
      throw error;
    });
    return settle(done, callback);
  }

  return () => cache.stats();
}
