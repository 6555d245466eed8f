/**
 * The local data directory: where every byte of state lives, and the lock that makes it
 * belong to one process at a time (the runtime, or an operator command while it is stopped).
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The paths inside a data directory. */
export function dataPaths(dataDir: string) {
  const root = resolve(dataDir);
  return {
    root,
    dynamodb: join(root, 'dynamodb'),
    queues: join(root, 'queues'),
    objects: join(root, 'objects'),
    outbox: join(root, 'outbox'),
    /** Hosted functions' unpacked code and scratch folders (infra/local/functions/). */
    functions: join(root, 'functions'),
    localKey: join(root, 'local.key'),
    clock: join(root, 'clock.json'),
    bootstrap: join(root, 'bootstrap.json'),
    lock: join(root, 'runtime.lock'),
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data directory for this process; throws when a live process holds it. A lock
 * left by a killed process is taken over. Returns the release function.
 */
export function lockDataDir(dataDir: string, purpose: string): () => void {
  const paths = dataPaths(dataDir);
  mkdirSync(paths.root, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(paths.lock, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, purpose }));
      closeSync(fd);
      return () => rmSync(paths.lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder: { pid?: number; purpose?: string } = {};
      try {
        holder = JSON.parse(readFileSync(paths.lock, 'utf8'));
      } catch {
        // unreadable lock: treat as stale
      }
      if (holder.pid && holder.pid !== process.pid && processAlive(holder.pid)) {
        throw new Error(
          `The data directory ${paths.root} is in use by process ${holder.pid} (${holder.purpose ?? 'unknown'}). Stop it first, or use another CARTWHEEL_DATA_DIR.`,
        );
      }
      rmSync(paths.lock, { force: true });
    }
  }
  throw new Error(`Could not lock ${paths.root}`);
}
