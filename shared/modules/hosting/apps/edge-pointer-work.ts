/**
 * Copying alias pointers to the CDN (hosting.md §10) as due work (shared/work): the table's
 * pointer item is the truth, the CloudFront KeyValueStore the apps edge function reads is its
 * copy. Every transaction that writes a pointer also writes `app-edge-pointer` work for each
 * alias it touches (ref `<account_id>/<alias>`, the account's `live` scope like the other app
 * work), claimed by the writing request, which runs it right after the commit. If that request
 * dies or the copy fails, the record stays and the sweep runs it (with backoff).
 *
 * A run copies the pointer as the table holds it NOW (strongly consistent), never what the
 * writer meant: a rerun, or runs of two changes finishing out of order, leave the table's
 * state. After a write it reads the pointer again and copies once more if it moved meanwhile,
 * so a slow run never leaves an older value behind a newer change's finished run.
 * Without a pointer store (locally, where the gateway reads the table) a run just finishes.
 */
import { claimWritten, dueEntry, finishEntry, type DueClaim } from '../../../work/due-work-store';
import { runHere, type DueHandler } from '../../../work/runner';
import { newId } from '../../../core/ids';
import type { Platform } from '../../../platform/ports';
import { TransactionRejectedError } from '../../../store/errors';
import { writeOne, type TransactEntry } from '../../../store/transact';
import { edgePointerKey, edgePointerValue } from '../../../platform/edge-pointer-format';
import { findAliasRecord } from './apps-store';
import { dueScope } from './remove-app-files';

/** How long a run holds the work (a few KeyValueStore calls); also when the sweep takes over from a writer that died. */
export const EDGE_POINTER_LEASE_MS = 60_000;

/** Copies a run makes before it leaves a still-moving pointer to the next run. */
const MAX_COPIES_PER_RUN = 3;

/** The due-work reference of an alias's pointer. */
export function edgePointerRef(accountId: string, alias: string): string {
  return edgePointerKey(accountId, alias);
}

/** The store value the table's pointer of (account, alias) means now, or null for no key. */
async function servedValue(accountId: string, alias: string): Promise<{ appId: string; versionId: string } | null> {
  const pointer = await findAliasRecord(accountId, alias);
  return pointer?.version_id ? { appId: pointer.app_id, versionId: pointer.version_id } : null;
}

const same = (a: { appId: string; versionId: string } | null, b: { appId: string; versionId: string } | null) =>
  (a === null ? null : edgePointerValue(a.appId, a.versionId)) === (b === null ? null : edgePointerValue(b.appId, b.versionId));

async function copyPointerClaimed(platform: Platform, claim: DueClaim): Promise<void> {
  const { record } = claim;
  const accountId = record.account_id;
  const alias = record.ref.slice(record.ref.indexOf('/') + 1);
  const edge = platform.edgePointers;
  if (edge) {
    let target = await servedValue(accountId, alias);
    for (let copies = 0; ; copies++) {
      if (copies === MAX_COPIES_PER_RUN) throw new Error(`The pointer of ${record.ref} kept moving; the next run copies it`);
      if (target) await edge.put(accountId, alias, target);
      else await edge.delete(accountId, alias);
      const now = await servedValue(accountId, alias);
      if (same(now, target)) break;
      target = now;
    }
  }
  // A newer change rewrote the record (and runs it itself): nothing left for this claim.
  await writeOne(finishEntry(claim)).catch((error: unknown) => {
    if (!(error instanceof TransactionRejectedError)) throw error;
  });
}

/** Copying an alias's pointer from the table to the CDN's KeyValueStore. */
export const edgePointerWork: DueHandler = { kind: 'app-edge-pointer', leaseMs: EDGE_POINTER_LEASE_MS, run: copyPointerClaimed };

/**
 * The entries that make the pointers of `aliases` due for copying, claimed by the writer (one
 * per alias: a transaction writes an item once). Put them in the transaction that writes the
 * pointers, then hand the same entries to `copyEdgePointers` after it committed.
 */
export function edgePointerEntries(platform: Pick<Platform, 'clock'>, accountId: string, aliases: Iterable<string>): TransactEntry[] {
  const now = platform.clock.nowMs();
  return [...new Set(aliases)].map((alias) => dueEntry('app-edge-pointer', dueScope(accountId), edgePointerRef(accountId, alias), now + EDGE_POINTER_LEASE_MS, now, newId()));
}

/**
 * The relay: copies the pointers whose work `entries` wrote (committed), one alias after the
 * other. A failure never fails the request (the change is committed): the work is put back
 * with backoff and the sweep copies it.
 */
export async function copyEdgePointers(platform: Platform, entries: readonly TransactEntry[]): Promise<void> {
  for (const entry of entries) {
    const claim = claimWritten(entry);
    await runHere(platform, edgePointerWork, claim);
  }
}
