/**
 * The readers–writer lock that gives the local DynamoDB emulator its isolation: writes
 * (single-item, batch and transactional) hold it exclusively, reads share it, so no read
 * ever sees a transaction, or dynalite's separate item and index writes, half applied.
 */

interface Waiter {
  exclusive: boolean;
  grant: () => void;
}

const granted: Promise<void> = Promise.resolve();

/** A first-come-first-served readers–writer lock for one process's async work. */
export class ReadWriteLock {
  private readers = 0;
  private writer = false;
  // FIFO, so a steady stream of readers cannot starve a waiting writer (or the reverse).
  private readonly waiting: Waiter[] = [];

  /** `exclusiveScope` wraps every exclusive section (the emulator lands each one's writes as one batch). */
  constructor(private readonly exclusiveScope: <T>(work: () => Promise<T>) => Promise<T> = (work) => work()) {}

  /** Runs `work` while holding shared access (other readers may run alongside). */
  async shared<T>(work: () => Promise<T>): Promise<T> {
    await this.acquireShared();
    try {
      return await work();
    } finally {
      this.releaseShared();
    }
  }

  /** Runs `work` while holding exclusive access (nothing else runs under the lock). */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    await this.acquireExclusive();
    try {
      return await this.exclusiveScope(work);
    } finally {
      this.releaseExclusive();
    }
  }

  /** Waits for shared access; pair with `releaseShared`. */
  acquireShared(): Promise<void> {
    // The uncontended case allocates nothing, which keeps reads on the fast path.
    if (!this.writer && this.waiting.length === 0) {
      this.readers++;
      return granted;
    }
    return new Promise((grant) => this.waiting.push({ exclusive: false, grant }));
  }

  /** Waits for exclusive access; pair with `releaseExclusive`. */
  acquireExclusive(): Promise<void> {
    if (!this.writer && this.readers === 0 && this.waiting.length === 0) {
      this.writer = true;
      return granted;
    }
    return new Promise((grant) => this.waiting.push({ exclusive: true, grant }));
  }

  /** Gives back shared access taken with `acquireShared`. */
  releaseShared(): void {
    this.readers--;
    if (this.readers === 0) this.grantWaiting();
  }

  /** Gives back exclusive access taken with `acquireExclusive`. */
  releaseExclusive(): void {
    this.writer = false;
    this.grantWaiting();
  }

  /** Whether nothing holds or waits for the lock (for tests and shutdown checks). */
  get idle(): boolean {
    return !this.writer && this.readers === 0 && this.waiting.length === 0;
  }

  private grantWaiting(): void {
    // Ownership is recorded before the waiter's continuation runs, so the lock state is
    // right even while granted work is still queued as a microtask.
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (next.exclusive) {
        if (this.writer || this.readers > 0) return;
        this.waiting.shift();
        this.writer = true;
        next.grant();
        return;
      }
      if (this.writer) return;
      this.waiting.shift();
      this.readers++;
      next.grant();
    }
  }
}
