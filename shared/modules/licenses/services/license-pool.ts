/**
 * Writing a list service's codes (licenses.md §2.1): `licenses` replaces the list,
 * `add_licenses` appends to it. Codes sit in their own partition (./license-code-store.ts), so
 * a write is several steps, made safe against concurrent writers and crashes like this:
 *
 * 1. **Lease.** The writer takes a short lease on the service item (conditional update), so
 *    pool writers run one at a time per service; a lease lapses after `POOL_LEASE_MS`, so a
 *    crashed writer blocks nobody for long. The service must still be at the settings version
 *    the change was validated against (else `VersionConflictError`: the caller reads again).
 * 2. **Compute** under the lease: duplicates removed (against the stored list too when
 *    appending), codes this service issued dropped when it consumes codes, the 10,000 limit
 *    checked (422, nothing written).
 * 3. **Reserve** a fresh range of sequence numbers (conditional on the lease) and **write** the
 *    codes there in batches of 25. Nobody reads a reserved range until it is published, and
 *    nobody else ever writes in it, so a writer whose lease lapsed mid-way can only write
 *    where nobody reads.
 * 4. **Publish** in ONE conditional update of the service: the new range (and, for a
 *    replacement, a new generation, which refuses takes that read the old list), the new
 *    `license_count`, the settings of the same request, the low_licenses re-arm, the lease
 *    released. A writer that crashed before this published nothing: its range becomes a hole
 *    (`pool_holes`) at the next publication and is never read.
 * 5. After a replacement, the old list's items are deleted, best effort (a failure is logged;
 *    they are outside the published range either way).
 *
 * Writes never fire low_licenses (takes do, licenses.md §8); a publication that leaves the
 * count above the threshold re-arms it.
 */
import type { Clock } from '../../../platform/ports';
import { RecordNotFoundError, VersionConflictError } from '../../../store/errors';
import { newId } from '../../../core/ids';
import { logger } from '../../../core/logging';
import type { RecordScope } from '../../../store/entity';
import { LicenseCodeLimitError, LicenseCodesBusyError } from './errors';
import { codeHash, deleteCodeRange, deleteCodesBelow, issuedHashes, readPublishedCodes, writeCodes } from './license-code-store';
import type { LicenseServiceRecord, ServiceSettings } from './license-service-record';
import { MAX_CODES } from './license-service-schemas';
import { acquirePoolLease, findLicenseServiceRecord, publishPool, releasePoolLease, renewPoolLease, reservePoolRange } from './license-service-store';

/** How long a pool writer's lease lasts before another writer may take over. */
export const POOL_LEASE_MS = 60_000;

/** How long a writer waits for another writer's lease before answering 409 in_use. */
export const POOL_WAIT_MS = 10_000;

/** Publication attempts a writer makes while takes keep changing the count under it. */
const PUBLISH_ROUNDS = 20;

/** A change of a list's codes, parsed and sanitised (./license-service-schemas.ts). */
export interface CodesChange {
  /** The new list (`licenses`); undefined appends. */
  replace?: readonly string[];
  /** Codes appended (`add_licenses`; after `replace` when both are sent). */
  add: readonly string[];
  /** The property a limit refusal names. */
  property: 'configuration.licenses' | 'configuration.add_licenses';
}

/** Tuning for tests. */
export interface PoolOptions {
  leaseMs?: number;
  waitMs?: number;
}

/** `codes` without repeats, first occurrences kept in order. */
export function distinctCodes(codes: readonly string[]): string[] {
  return [...new Set(codes)];
}

/**
 * The initial codes of a new list service (no stored list, nothing issued yet): distinct, at
 * most 10,000 (else 422, before anything is written).
 */
export function initialCodes(change: CodesChange): string[] {
  const codes = distinctCodes([...(change.replace ?? []), ...change.add]);
  if (codes.length > MAX_CODES) throw new LicenseCodeLimitError(change.property, MAX_CODES, codes.length);
  return codes;
}

/** Writes the codes of a service that does not exist yet at `[0, codes.length)`: its creation publishes them. */
export async function writeInitialCodes(scope: RecordScope, serviceId: string, codes: readonly string[]): Promise<void> {
  await writeCodes(scope, serviceId, 0, codes);
}

/**
 * Whether low_licenses is armed again after the count became `count` under `settings`
 * (licenses.md §8: it re-arms once the count is above the threshold).
 */
export function rearms(count: number, settings: Pick<ServiceSettings, 'notify_at_count' | 'remove_after_use'>): boolean {
  return !settings.remove_after_use || settings.notify_at_count === null || count > settings.notify_at_count;
}

/**
 * Applies a codes change to `current` together with the request's other `changes` (settings,
 * secrets, `modified_ms`), as one publication (steps above). Answers the service as published.
 * `VersionConflictError` when the settings changed since `current` was read (nothing published);
 * 409 `in_use` when another writer kept the lease; 422 beyond 10,000 codes. Leases are dated by `clock`.
 */
export async function changeCodes(current: LicenseServiceRecord, change: CodesChange, changes: Partial<LicenseServiceRecord>, clock: Clock, options: PoolOptions = {}): Promise<LicenseServiceRecord> {
  const scope: RecordScope = { accountId: current.account_id, mode: current.mode };
  const serviceId = current.license_service_id;
  const leaseMs = options.leaseMs ?? POOL_LEASE_MS;
  const token = newId();
  let leased = await takeLease(scope, serviceId, token, leaseMs, options.waitMs ?? POOL_WAIT_MS, clock);
  let leaseUntil = clock.nowMs() + leaseMs;
  const release = () => releasePoolLease(scope, serviceId, token).catch((error: unknown) => logger.warn('Releasing a license pool lease failed; it lapses by itself', { serviceId, error: error as Error }));
  if (leased.modified_ms !== current.modified_ms) {
    await release();
    throw new VersionConflictError(`License service ${serviceId} changed concurrently`);
  }

  // Step 2: what to write, under the lease.
  const consumes = changes.remove_after_use ?? current.remove_after_use;
  let codes: string[];
  let stored: string[];
  try {
    const incoming = distinctCodes([...(change.replace ?? []), ...change.add]);
    const issued = consumes && incoming.length ? await issuedHashes(scope, serviceId, incoming.map(codeHash)) : new Set<string>();
    const fresh = incoming.filter((code) => !issued.has(codeHash(code)));
    stored = (await readPublishedCodes(scope, serviceId, leased, { hashesOnly: true })).map((code) => code.hash);
    if (change.replace) {
      codes = fresh;
    } else {
      const present = new Set(stored);
      codes = fresh.filter((code) => !present.has(codeHash(code)));
    }
    const total = change.replace ? codes.length : leased.license_count + codes.length;
    if (total > MAX_CODES) throw new LicenseCodeLimitError(change.property, MAX_CODES, total);
  } catch (error) {
    await release();
    throw error;
  }
  // A replacement by the same list (a posted-back object) changes no codes.
  const unchanged = change.replace !== undefined && codes.length === stored.length && codes.every((code, index) => codeHash(code) === stored[index]);
  const writes = !unchanged && codes.length > 0;

  // Step 3: reserve a fresh range and write into it, keeping the lease alive.
  const start = leased.pool_next;
  const cleanUp = async () => {
    if (!writes) return;
    await deleteCodeRange(scope, serviceId, start, codes.length).catch((error: unknown) =>
      logger.warn('Deleting the codes of an unpublished license pool write failed; they are never read', { serviceId, error: error as Error }),
    );
  };
  if (writes) {
    if (!(await reservePoolRange(scope, serviceId, token, start, codes.length))) throw new LicenseCodesBusyError(serviceId);
    try {
      await writeCodes(scope, serviceId, start, codes, async () => {
        if (clock.nowMs() < leaseUntil - leaseMs / 2) return;
        leaseUntil = clock.nowMs() + leaseMs;
        if (!(await renewPoolLease(scope, serviceId, token, leaseUntil))) throw new LicenseCodesBusyError(serviceId);
      });
    } catch (error) {
      await cleanUp();
      if (!(error instanceof LicenseCodesBusyError)) await release();
      throw error;
    }
  }

  // Step 4: publish, reading again while takes change the count under the lease.
  for (let round = 1; ; round++) {
    const set = { ...changes, ...(unchanged ? {} : poolFields(leased, change.replace !== undefined, start, writes ? codes.length : 0)) };
    const count = set.license_count ?? leased.license_count;
    const settings = { ...leased, ...changes };
    if (leased.low_licenses_notified && rearms(count, settings)) set.low_licenses_notified = false;
    const appends = change.replace === undefined || unchanged;
    if (await publishPool(scope, serviceId, { token, version: current.modified_ms, ...(appends ? { countRead: leased.license_count } : {}), set })) {
      const { pool_lock: _lock, pool_lock_until: _until, ...published } = { ...leased, ...set };
      if (change.replace !== undefined && !unchanged) {
        await deleteCodesBelow(scope, serviceId, published.pool_start).catch((error: unknown) =>
          logger.warn('Deleting the codes of a replaced license list failed; they are outside the published range', { serviceId, error: error as Error }),
        );
      }
      return published;
    }
    const again = await findLicenseServiceRecord(scope, serviceId);
    if (!again) {
      await cleanUp();
      throw new RecordNotFoundError('license service', serviceId, 'license_service_id');
    }
    if (again.pool_lock !== token || round >= PUBLISH_ROUNDS) {
      await cleanUp();
      if (again.pool_lock === token) await release();
      throw new LicenseCodesBusyError(serviceId);
    }
    if (again.modified_ms !== current.modified_ms) {
      await cleanUp();
      await release();
      throw new VersionConflictError(`License service ${serviceId} changed concurrently`);
    }
    leased = again;
  }
}

/**
 * The pool fields a publication sets. A replacement starts a new generation at `start`; an
 * append extends the list to `start + count`, recording what lies between the old end and
 * `start` (ranges reserved by writers that never published) as a hole, or, when the list is
 * empty, simply starts it at `start`.
 */
function poolFields(leased: LicenseServiceRecord, replaces: boolean, start: number, count: number): Partial<LicenseServiceRecord> {
  if (replaces) {
    return { pool_generation: leased.pool_generation + 1, pool_start: start, pool_end: start + count, pool_holes: [], license_count: count };
  }
  if (count === 0) return {};
  if (leased.license_count === 0) return { pool_start: start, pool_end: start + count, pool_holes: [], license_count: count };
  const holes = leased.pool_end < start ? [...leased.pool_holes, [leased.pool_end, start] as [number, number]] : leased.pool_holes;
  return { pool_end: start + count, pool_holes: holes, license_count: leased.license_count + count };
}

/** Takes the pool lease, waiting (with growing pauses) up to `waitMs` for another writer's; 409 in_use after that. */
async function takeLease(scope: RecordScope, serviceId: string, token: string, leaseMs: number, waitMs: number, clock: Clock): Promise<LicenseServiceRecord> {
  // Real time, not the platform clock: this is how long the request waits, which a manual clock must not stretch.
  const deadline = Date.now() + waitMs;
  for (let round = 0; ; round++) {
    const now = clock.nowMs();
    const leased = await acquirePoolLease(scope, serviceId, token, now, now + leaseMs).catch(async (error: unknown) => {
      if (!(await findLicenseServiceRecord(scope, serviceId))) throw new RecordNotFoundError('license service', serviceId, 'license_service_id');
      throw error;
    });
    if (leased) return leased;
    if (Date.now() >= deadline) throw new LicenseCodesBusyError(serviceId);
    await new Promise((resolve) => setTimeout(resolve, Math.min(500, 20 * 2 ** round) * (0.5 + Math.random() / 2)));
  }
}
