import { describe, expect, it } from 'vitest';
import { ReadWriteLock } from '../../../infra/local/dynamo/lock';

/** Resolves after every queued microtask and one macrotask, so granted work has run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadWriteLock', () => {
  it('lets readers share and keeps a writer alone', async () => {
    const lock = new ReadWriteLock();
    const log: string[] = [];
    let releaseFirst!: () => void;
    const firstRead = lock.shared(async () => {
      log.push('read 1 start');
      await new Promise<void>((resolve) => (releaseFirst = resolve));
      log.push('read 1 end');
    });
    const secondRead = lock.shared(async () => log.push('read 2'));
    await settle();
    expect(log).toEqual(['read 1 start', 'read 2']);

    const write = lock.exclusive(async () => log.push('write'));
    const lateRead = lock.shared(async () => log.push('late read'));
    await settle();
    // The writer waits for the first reader; the late reader queues behind the writer.
    expect(log).toEqual(['read 1 start', 'read 2']);
    releaseFirst();
    await Promise.all([firstRead, secondRead, write, lateRead]);
    expect(log).toEqual(['read 1 start', 'read 2', 'read 1 end', 'write', 'late read']);
    expect(lock.idle).toBe(true);
  });

  it('runs writers one at a time, in arrival order', async () => {
    const lock = new ReadWriteLock();
    const log: string[] = [];
    let inside = 0;
    await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        lock.exclusive(async () => {
          inside++;
          expect(inside).toBe(1);
          await settle();
          log.push(`write ${index}`);
          inside--;
        }),
      ),
    );
    expect(log).toEqual(['write 0', 'write 1', 'write 2', 'write 3', 'write 4']);
  });

  it('releases the lock when the work throws', async () => {
    const lock = new ReadWriteLock();
    await expect(lock.exclusive(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(lock.shared(async () => Promise.reject(new Error('bang')))).rejects.toThrow('bang');
    expect(lock.idle).toBe(true);
  });

  it('costs well under a few microseconds when uncontended', async () => {
    const lock = new ReadWriteLock();
    const rounds = 100_000;
    const work = async () => undefined;
    for (let index = 0; index < 10_000; index++) await lock.shared(work);
    const started = process.hrtime.bigint();
    for (let index = 0; index < rounds; index++) {
      await lock.shared(work);
      await lock.exclusive(work);
    }
    const perAcquire = Number(process.hrtime.bigint() - started) / (rounds * 2) / 1000;
    console.log(`ReadWriteLock: ${perAcquire.toFixed(3)} µs per uncontended acquire + release (including the awaited work)`);
    expect(perAcquire).toBeLessThan(5);
  });
});
