/**
 * Where license services live: the entity (keyed by account, mode and generated id, listed in
 * creation order through the bucketed offset index) and every write of the service item: its
 * settings (conditional on the version read, never a whole-item put, because takes and the
 * request side change `license_count` and `requests_outstanding` without touching the version),
 * the pool lease and publication of the code pool, the counter entries other modules add to
 * their transactions, and the delete that is refused while products link to the service or
 * requests are outstanding. The codes themselves are ./license-code-store.ts's.
 */
import { allOf, atVersion, bySequence, defineEntity, EXISTS, transact, type Condition, type RecordScope, type Revision, type TransactEntry } from '../../../store/entity';
import { TransactionRejectedError } from '../../../store/errors';
import { bucketCounterWrite, reserveSequence } from '../../../store/offset-index';
import { updateReturning, writeOne } from '../../../store/transact';
import type { LicenseServiceRecord } from './license-service-record';

const services = defineEntity<LicenseServiceRecord>({ name: 'license service', collection: 'license_services', scope: 'mode', idField: 'license_service_id',
  indexes: { gsi1: 'license services by creation sequence (offset list)' },
  indexKeys: (service, partition) => ({ gsi1: bySequence(partition, service.seq) }) });

const scopeOf = (record: Pick<LicenseServiceRecord, 'account_id' | 'mode'>): RecordScope => ({ accountId: record.account_id, mode: record.mode });

/** The key of a license service record (tests read the stored item by it). */
export function licenseServiceKey(scope: RecordScope, serviceId: string): { pk: string; sk: string } {
  return services.key(scope, serviceId);
}

/** The listing partition of a scope's license services (what the offset list reads). */
export function licenseServicePartition(scope: RecordScope): string {
  return services.partition(scope);
}

/** Reserves the listing position (sequence) of a new service. */
export async function reserveLicenseServiceSequence(scope: RecordScope): Promise<number> {
  return reserveSequence(services.partition(scope));
}

/** Writes a new service with its bucket counter. */
export async function insertLicenseService(scope: RecordScope, record: LicenseServiceRecord): Promise<void> {
  await services.create(record, { sequence: record.seq, scope });
}

/** A service by id, or undefined (strongly consistent). */
export function findLicenseServiceRecord(scope: RecordScope, serviceId: string): Promise<LicenseServiceRecord | undefined> {
  return services.find(scope, serviceId);
}

/** A service by id; 404, or 400 token_type_mismatch when it exists in the other mode. */
export function getLicenseServiceRecord(scope: RecordScope, serviceId: string): Promise<LicenseServiceRecord> {
  return services.get(scope, serviceId);
}

/** Many services by id in one batch read (missing ones are absent). */
export function findLicenseServiceRecords(scope: RecordScope, serviceIds: readonly string[]): Promise<Map<string, LicenseServiceRecord>> {
  return services.findMany(scope, serviceIds);
}

/**
 * What a change of a service decides: the service after it and the settings it changes (written
 * over the version read; `countRead`, when given, must also still be the stored `license_count`,
 * for a change whose effect depends on it, such as re-arming low_licenses), or the service as the
 * pool writer already published it with its codes (versioned by the publication itself).
 */
export type LicenseServiceChange = { next: LicenseServiceRecord; set: Partial<LicenseServiceRecord>; countRead?: number } | { published: LicenseServiceRecord };

/** The revision of a change: only the settings are set, never a whole-item put, so the counters takes and requests keep stay. */
function revisionOf(change: LicenseServiceChange): Revision<LicenseServiceRecord> {
  if ('published' in change) return { next: change.published, write: false };
  return { next: change.next, set: change.set, ...(change.countRead === undefined ? {} : { condition: countIs(change.countRead) }) };
}

/** Writes `change` if nobody changed the service's settings since `current` was read (else `VersionConflictError`); answers the service after it. */
export function reviseLicenseServiceRecord(current: LicenseServiceRecord, change: LicenseServiceChange): Promise<LicenseServiceRecord> {
  return services.revise(current, revisionOf(change));
}

/** Applies `change` to a service read by id over the version read, again after a lost race; answers the service after it. */
export function updateLicenseServiceRecord(scope: RecordScope, serviceId: string, change: (current: LicenseServiceRecord) => Promise<LicenseServiceChange>): Promise<LicenseServiceRecord> {
  return services.update(scope, serviceId, async (current) => revisionOf(await change(current)));
}

/** A delete refused by its condition: the operation reads the service again to say why. */
export class LicenseServiceDeleteRefused extends Error {
  override name = 'LicenseServiceDeleteRefused';
}

/**
 * Deletes a service and counts it out of its listing, only while no product links to it and no
 * request of it is outstanding (both counters are kept in the transactions that change them, so
 * this is atomic); else `LicenseServiceDeleteRefused`.
 */
export async function removeLicenseServiceRecord(current: LicenseServiceRecord): Promise<void> {
  const scope = scopeOf(current);
  await transact([
    services.deleteEntry(scope, current.license_service_id, {
      name: 'license service.delete',
      condition: {
        expression:
          'attribute_exists(pk) AND (attribute_not_exists(requests_outstanding) OR requests_outstanding <= :none) AND (attribute_not_exists(linked_products) OR linked_products <= :none)',
        values: { ':none': 0 },
      },
      onConditionFailed: () => new LicenseServiceDeleteRefused(),
    }),
    { name: 'license service.bucket-counter', item: bucketCounterWrite(services.partition(scope), current.seq, -1) },
  ]);
}

/** The name of the entry `requestsOutstandingEntry` makes (a refusal names it: the service is gone). */
export const REQUESTS_OUTSTANDING_ENTRY = 'license service.requests-outstanding';

/**
 * The transaction entry that counts a service's outstanding requests: +1 when a request is
 * created `queued`, -1 when it leaves `queued`/`retry`. The service must exist (a refusal is a
 * `TransactionRejectedError` naming `REQUESTS_OUTSTANDING_ENTRY`).
 */
export function requestsOutstandingEntry(scope: RecordScope, serviceId: string, delta: number): TransactEntry {
  return services.updateEntry(scope, serviceId, { name: REQUESTS_OUTSTANDING_ENTRY, add: { requests_outstanding: delta }, condition: EXISTS });
}

/** The transaction entry that counts a product linking to (+1) or unlinking from (-1) a service that must exist. */
export function linkedProductsEntry(scope: RecordScope, serviceId: string, delta: 1 | -1, onConditionFailed: () => Error): TransactEntry {
  return services.updateEntry(scope, serviceId, { name: 'license service.linked-products', add: { linked_products: delta }, condition: EXISTS, onConditionFailed });
}

const countIs = (count: number): Condition => ({ expression: 'license_count = :count_read', values: { ':count_read': count } });
const lockedBy = (token: string): Condition => ({ expression: 'pool_lock = :lock_token', values: { ':lock_token': token } });

/**
 * Takes the pool lease of a service for `token` until `until`, if nobody holds an unexpired
 * one: the service as written, or undefined when another writer holds it. A missing service
 * throws `TransactionRejectedError`.
 */
export async function acquirePoolLease(scope: RecordScope, serviceId: string, token: string, now: number, until: number): Promise<LicenseServiceRecord | undefined> {
  try {
    return await updateReturning<LicenseServiceRecord>(
      services.updateEntry(scope, serviceId, {
        name: 'license service.pool-lease',
        set: { pool_lock: token, pool_lock_until: until },
        condition: { expression: 'attribute_exists(pk) AND (attribute_not_exists(pool_lock) OR pool_lock_until < :lease_now)', values: { ':lease_now': now } },
      }),
    );
  } catch (error) {
    if (error instanceof TransactionRejectedError && (await services.find(scope, serviceId))) return undefined;
    throw error;
  }
}

/** Extends the lease `token` holds; false when it no longer holds it. */
export async function renewPoolLease(scope: RecordScope, serviceId: string, token: string, until: number): Promise<boolean> {
  return conditionHolds(services.updateEntry(scope, serviceId, { name: 'license service.pool-lease-renew', set: { pool_lock_until: until }, condition: lockedBy(token) }));
}

/** Gives the lease `token` holds back (best effort: a lapsed lease taken over by another writer is left alone). */
export async function releasePoolLease(scope: RecordScope, serviceId: string, token: string): Promise<void> {
  await conditionHolds(services.updateEntry(scope, serviceId, { name: 'license service.pool-lease-release', remove: ['pool_lock', 'pool_lock_until'], condition: lockedBy(token) }));
}

/**
 * Reserves `[start, start + count)` for the writer holding the lease `token`, `start` being the
 * `pool_next` it read under that lease; false when the lease was lost. Nobody else ever writes
 * in a reserved range, so a stale writer can only write where nobody reads.
 */
export async function reservePoolRange(scope: RecordScope, serviceId: string, token: string, start: number, count: number): Promise<boolean> {
  return conditionHolds(
    services.updateEntry(scope, serviceId, {
      name: 'license service.pool-reserve',
      set: { pool_next: start + count },
      condition: allOf(lockedBy(token), { expression: 'pool_next = :reserve_from', values: { ':reserve_from': start } }),
    }),
  );
}

/** What a publication sets on the service, besides giving the lease back. */
export interface PoolPublication {
  token: string;
  /** The settings version the writer validated against. */
  version: number;
  /** The `license_count` the writer computed from, when the new count adds to it (an append). */
  countRead?: number;
  set: Partial<LicenseServiceRecord>;
}

/**
 * Publishes a pool change in one conditional update: `set` (new pool fields, count, settings,
 * version) and the lease released, only if the writer still holds the lease, the settings are
 * still at `version` and (for an append) the count is still `countRead`. False when any of that
 * no longer holds; the writer reads again to learn which.
 */
export async function publishPool(scope: RecordScope, serviceId: string, publication: PoolPublication): Promise<boolean> {
  return conditionHolds(
    services.updateEntry(scope, serviceId, {
      name: 'license service.pool-publish',
      set: publication.set,
      remove: ['pool_lock', 'pool_lock_until'],
      condition: allOf(lockedBy(publication.token), atVersion(publication.version), publication.countRead === undefined ? undefined : countIs(publication.countRead)),
    }),
  );
}

/** The name of the service entry of a take (`takeServiceEntry`). */
export const TAKE_SERVICE_ENTRY = 'license service.take';

/**
 * The service side of a take of `count` codes: `license_count` goes down by `count`, only while
 * the list is still generation `generation` and holds enough codes (or exactly `countRead`, when
 * the low_licenses decision depends on the exact count), and `low_licenses_notified` is set when
 * the take fires that event; `requestsOutstanding` is added to that counter in the same write.
 */
export function takeServiceEntry(scope: RecordScope, serviceId: string, take: { generation: number; count: number; countRead?: number; notify: boolean; requestsOutstanding?: number }): TransactEntry {
  return services.updateEntry(scope, serviceId, {
    name: TAKE_SERVICE_ENTRY,
    add: { license_count: -take.count, ...(take.requestsOutstanding ? { requests_outstanding: take.requestsOutstanding } : {}) },
    ...(take.notify ? { set: { low_licenses_notified: true } } : {}),
    condition: allOf(
      { expression: 'pool_generation = :take_generation', values: { ':take_generation': take.generation } },
      take.countRead === undefined ? { expression: 'license_count >= :take_count', values: { ':take_count': take.count } } : countIs(take.countRead),
    ),
  });
}

/** The service side of dropping one already-issued code from the list: one fewer code, same generation. */
export function dropCodeServiceEntry(scope: RecordScope, serviceId: string, generation: number): TransactEntry {
  return services.updateEntry(scope, serviceId, {
    name: 'license service.drop-issued',
    add: { license_count: -1 },
    condition: { expression: 'pool_generation = :drop_generation AND license_count >= :one', values: { ':drop_generation': generation, ':one': 1 } },
  });
}

/** The entry that records low_licenses as fired, only if it was armed and the service still has a threshold. */
export function lowLicensesEntry(scope: RecordScope, serviceId: string): TransactEntry {
  return services.updateEntry(scope, serviceId, {
    name: 'license service.low-licenses',
    set: { low_licenses_notified: true },
    condition: {
      expression: 'attribute_exists(pk) AND remove_after_use = :yes AND attribute_type(notify_at_count, :number) AND (attribute_not_exists(low_licenses_notified) OR low_licenses_notified = :no)',
      values: { ':yes': true, ':no': false, ':number': 'N' },
    },
  });
}

/** Runs one conditional entry: false when its condition failed. */
async function conditionHolds(entry: TransactEntry): Promise<boolean> {
  try {
    await writeOne(entry);
    return true;
  } catch (error) {
    if (error instanceof TransactionRejectedError) return false;
    throw error;
  }
}
