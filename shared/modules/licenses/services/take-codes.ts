/**
 * Handing out a list service's codes to a license request (licenses.md §6, §8), atomically.
 *
 * With `remove_after_use: true`, codes are taken in chunks of at most `TAKE_CHUNK`, each in ONE
 * transaction: every code item deleted (it must still exist), its issued marker written (it must
 * not exist), the service's `license_count` lowered (only while the list is the same generation
 * and holds enough), low_licenses fired when the count reaches the threshold, and the caller's
 * own entries (`reserve`: the request recording the codes). Two takers never get the same code:
 * the loser's transaction is refused, it reads again and takes other codes (the first ones in
 * list order at first; after a lost race, codes picked at random among more of the first ones,
 * so many concurrent takers stop colliding on the same few). A code this
 * service issued before (a replacement re-added it while a take ran) is dropped from the list
 * without being handed out.
 *
 * With `remove_after_use: false` the list is shared: every request gets the first codes, and
 * nothing is written.
 */
import { eventWrites } from '../../events';
import { namedEntries, transact, type RecordScope, type TransactEntry } from '../../../store/entity';
import { RecordNotFoundError, TransactionRejectedError } from '../../../store/errors';
import { dropCodeEntry, readPublishedCodes, takeCodeEntries, takeEntryNames, type StoredCode } from './license-code-store';
import type { LicenseServiceRecord } from './license-service-record';
import { dropCodeServiceEntry, findLicenseServiceRecord, lowLicensesEntry, takeServiceEntry } from './license-service-store';

/** Most codes one transaction takes (2 writes each, plus the service, the event and the caller's entries, within DynamoDB's 100). */
export const TAKE_CHUNK = 40;

/** Refused rounds (conflicts with other takers or writers) a take makes before it gives up. */
const TAKE_ROUNDS = 20;

/** How far past the first codes a take that lost a race looks for codes others are less likely to want. */
const MAX_SPREAD = 200;

/** What a take answers: the codes, or that the list has too few (`available` codes left). */
export type TakeCodesResult = { outcome: 'taken'; codes: string[] } | { outcome: 'none_available'; available: number };

/** How a take is made. */
export interface TakeCodesOptions {
  /** The instant of the take (issued markers, the low_licenses occurrence). */
  now: number;
  /**
   * Entries written in the SAME transaction as each chunk of codes taken: the request records
   * them as reserved. `takenBefore` = codes taken by earlier chunks of this call. Keep them
   * few (at most 15): a chunk's transaction holds up to 83 entries of its own.
   */
  reserve: (codes: readonly string[], takenBefore: number) => TransactEntry[];
  /**
   * Added to the service's `requests_outstanding` in the transaction of the chunk that completes
   * the take (the request leaving `queued`/`retry` there: -1). The take already writes the
   * service item, and a transaction may write an item once, so `requestsOutstandingEntry` cannot
   * be among the `reserve` entries. Not applied when the answer is `none_available`.
   */
  requestsOutstanding?: number;
}

/**
 * Takes `count` codes of a list service for one license request, atomically (licenses.md §6).
 *
 * Reads the service fresh; throws `RecordNotFoundError` when it does not exist and an `Error`
 * when it is not a list service. Shared lists (`remove_after_use: false`) answer their first
 * `count` codes without writing or calling `reserve`. Consumed lists answer `none_available`
 * when fewer than `count` codes are left (and fire low_licenses, §8), else take them in chunks
 * of `TAKE_CHUNK`, retrying on conflicts (up to 20 refused rounds, then an `Error`).
 *
 * A take of more than one chunk is not one transaction: when a later chunk finds the list too
 * short (others took codes meanwhile), the answer is `none_available` and the codes of the
 * earlier chunks stay taken, recorded by the caller's `reserve` entries of those chunks; the
 * caller keeps them for its next attempt (they are issued and never return to the list).
 *
 * @example
 *   const result = await takeCodes(scope, serviceId, item.quantity, {
 *     now, reserve: (codes, before) => [requestCodesEntry(scope, requestId, codes, before)],
 *   });
 */
export async function takeCodes(scope: RecordScope, serviceId: string, count: number, options: TakeCodesOptions): Promise<TakeCodesResult> {
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`A take needs a positive whole count of codes, not ${count}`);
  const taken: string[] = [];
  let refused = 0;
  const retry = async () => {
    if (++refused >= TAKE_ROUNDS) throw new Error(`Taking codes of license service ${serviceId} kept conflicting with other writers`);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * refused));
  };
  for (;;) {
    const service = await findLicenseServiceRecord(scope, serviceId);
    if (!service) throw new RecordNotFoundError('license service', serviceId, 'license_service_id');
    if (service.type !== 'list') throw new Error(`License service ${serviceId} is not a list service`);
    const wanted = count - taken.length;

    if (!service.remove_after_use) {
      const shared = await readPublishedCodes(scope, serviceId, service, { max: wanted });
      if (shared.length < wanted) return { outcome: 'none_available', available: shared.length };
      return { outcome: 'taken', codes: [...taken, ...shared.map((code) => code.code!)] };
    }
    if (service.license_count < wanted) {
      await fireLowLicenses(scope, service, options.now);
      return { outcome: 'none_available', available: service.license_count };
    }

    const size = Math.min(TAKE_CHUNK, wanted);
    // First in list order; after refusals (other takers got the same first codes), spread out over more of the list.
    const window = await readPublishedCodes(scope, serviceId, service, { max: Math.min(size * (1 + refused), size + MAX_SPREAD) });
    const chunk = refused === 0 ? window : sample(window, size);
    if (chunk.length < size) {
      // The count and the items disagree only while a concurrent take or replacement commits: read again.
      await retry();
      continue;
    }
    const codes = chunk.map((code) => code.code!);
    const completes = taken.length + size === count;
    try {
      await transact([...takeEntries(scope, service, chunk, options.now, completes ? (options.requestsOutstanding ?? 0) : 0), ...options.reserve(codes, taken.length)]);
    } catch (error) {
      if (!(error instanceof TransactionRejectedError)) throw error;
      const issuedBefore = chunk.filter((_, index) => error.refused(takeEntryNames.issue(index)));
      if (issuedBefore.length) await Promise.all(issuedBefore.map((code) => dropIssuedCode(scope, service, code)));
      else await retry();
      continue;
    }
    taken.push(...codes);
    if (taken.length === count) return { outcome: 'taken', codes: taken };
  }
}

/** `count` codes picked at random from `codes`, in list order. */
function sample(codes: readonly StoredCode[], count: number): StoredCode[] {
  if (codes.length <= count) return [...codes];
  const picked = new Set<number>();
  while (picked.size < count) picked.add(Math.floor(Math.random() * codes.length));
  return [...picked].sort((a, b) => a - b).map((index) => codes[index]!);
}

/**
 * The entries of one chunk's take: the codes' deletes and issued markers, the count, and the
 * low_licenses flag and occurrence when the count reaches the threshold. While the event is
 * armed the decision needs the exact count, so the take is then conditional on it.
 */
function takeEntries(scope: RecordScope, service: LicenseServiceRecord, chunk: readonly StoredCode[], now: number, requestsOutstanding: number): TransactEntry[] {
  const after = service.license_count - chunk.length;
  const armed = service.notify_at_count !== null && !service.low_licenses_notified;
  const notify = armed && after <= service.notify_at_count!;
  return [
    ...takeCodeEntries(scope, service.license_service_id, chunk, now),
    takeServiceEntry(scope, service.license_service_id, { generation: service.pool_generation, count: chunk.length, ...(armed ? { countRead: service.license_count } : {}), notify, requestsOutstanding }),
    ...(notify ? lowLicensesEvent(scope, { ...service, license_count: after, low_licenses_notified: true }, now) : []),
  ];
}

/**
 * low_licenses for a request that found too few codes (§8): fired once, if armed, in one
 * transaction with the flag (a refused condition means someone else fired it, or it no longer applies).
 */
async function fireLowLicenses(scope: RecordScope, service: LicenseServiceRecord, now: number): Promise<void> {
  if (service.notify_at_count === null || service.low_licenses_notified) return;
  try {
    await transact([lowLicensesEntry(scope, service.license_service_id), ...lowLicensesEvent(scope, { ...service, low_licenses_notified: true }, now)]);
  } catch (error) {
    if (!(error instanceof TransactionRejectedError)) throw error;
  }
}

/** The low_licenses occurrence: `data` is the service as stored after the change (no codes, no secrets, no pool internals). */
function lowLicensesEvent(scope: RecordScope, service: LicenseServiceRecord, now: number): TransactEntry[] {
  const { secrets_sealed: _sealed, pool_lock: _lock, pool_lock_until: _until, pool_holes: _holes, ...record } = service;
  return namedEntries(
    'license service.events',
    eventWrites(scope, [{ type: 'license_service:low_licenses', resource: 'license_service', id: service.license_service_id, record: { ...record, secrets_sealed: null, pool_holes: [] } }], now),
  );
}

/** Drops a code this service issued before from the list, without handing it out (a refusal: someone else did). */
async function dropIssuedCode(scope: RecordScope, service: LicenseServiceRecord, code: StoredCode): Promise<void> {
  try {
    await transact([dropCodeEntry(scope, service.license_service_id, code.seq), dropCodeServiceEntry(scope, service.license_service_id, service.pool_generation)]);
  } catch (error) {
    if (!(error instanceof TransactionRejectedError)) throw error;
  }
}
