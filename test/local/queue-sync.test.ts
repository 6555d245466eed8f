/**
 * The local queues' SQLite runs with `synchronous = NORMAL` (infra/local/emulators.ts): no fsync
 * per message, and every committed change still survives a killed process (the kill -9 queue
 * test, queue-durability.test.ts, checks that part).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { syncQueuesNormally } from '../../infra/local/emulators';

const dir = mkdtempSync(join(tmpdir(), 'cartwheel-queue-sync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('local queue persistence', () => {
  it('opens fauxqs SQLite with synchronous = NORMAL (1), not the default FULL (2)', async () => {
    await syncQueuesNormally();
    await syncQueuesNormally(); // twice changes nothing
    const url = new URL('./persistence.js', import.meta.resolve('fauxqs')).href;
    const { PersistenceManager } = (await import(url)) as { PersistenceManager: new (dataDir: string) => { db: { prepare(sql: string): { get(): Record<string, number> }; close(): void } } };
    const manager = new PersistenceManager(dir);
    expect(manager.db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
    expect(manager.db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    manager.db.close();
  });
});
