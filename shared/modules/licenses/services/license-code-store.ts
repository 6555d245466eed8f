/**
 * Where a list service's codes live: one partition per service,
 * `<account>#<mode>#license-codes#<service_id>`, beside (not inside) the service item, with
 *
 * - one item per code, sort key `code#<seq>` (12 digits, never reused), holding the code and
 *   its SHA-256 (`h`), so a duplicate check reads hashes, not codes;
 * - one issued marker per code the service ever handed out while consuming codes, sort key
 *   `issued#<sha256>`, so an issued code is never stored (nor handed out) again.
 *
 * Which code items are published is the service item's business (`PoolState`): readers pass
 * the range and holes they read there. Code items are written in batches into a range the
 * writer reserved (no conditions needed: nobody else writes there) and deleted, one by one and
 * conditionally, in the take's transaction.
 */
import { createHash } from 'node:crypto';
import type { RecordScope, TransactEntry } from '../../../store/entity';
import { batchGetList, batchWriteItems, type BatchWrite } from '../../../store/batch';
import { table } from '../../../store/client';
import { queryItems } from '../../../store/query';
import type { PoolState } from './license-service-record';

/** Digits of a code item's sequence number in its sort key. */
const SEQ_DIGITS = 12;

/** One published code of a list. */
export interface StoredCode {
  seq: number;
  /** The code (absent when only hashes were read). */
  code?: string;
  /** SHA-256 of the code, hex. */
  hash: string;
}

/** The range of a list readers see: what `PoolState` publishes. */
export type PublishedRange = Pick<PoolState, 'pool_start' | 'pool_end' | 'pool_holes'>;

/** SHA-256 of a code, hex: the key of its issued marker and what duplicate checks compare. */
export function codeHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

/** The partition of a service's codes and issued markers. */
export function codePartition(scope: RecordScope, serviceId: string): string {
  return `${scope.accountId}#${scope.mode}#license-codes#${serviceId}`;
}

const codeSortKey = (seq: number) => `code#${String(seq).padStart(SEQ_DIGITS, '0')}`;
const issuedKey = (scope: RecordScope, serviceId: string, hash: string) => ({ pk: codePartition(scope, serviceId), sk: `issued#${hash}` });
const codeKey = (scope: RecordScope, serviceId: string, seq: number) => ({ pk: codePartition(scope, serviceId), sk: codeSortKey(seq) });

/** Whether `seq` is in one of the unpublished ranges. */
function inHole(holes: PoolState['pool_holes'], seq: number): boolean {
  return holes.some(([from, to]) => seq >= from && seq < to);
}

/**
 * The published codes of a list in list order (strongly consistent), at most `max`; with
 * `hashesOnly` the codes themselves are not read. Items in unpublished ranges are skipped.
 */
export async function readPublishedCodes(scope: RecordScope, serviceId: string, range: PublishedRange, options: { max?: number; hashesOnly?: boolean } = {}): Promise<StoredCode[]> {
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const found: StoredCode[] = [];
  let from = range.pool_start;
  while (from < range.pool_end && found.length < max) {
    // Taken codes leave no item; holes may hold dead ones, so a short read goes on after the last item seen.
    const wanted = Number.isFinite(max) ? max - found.length + 8 : max;
    const items = await queryItems(
      {
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
        ExpressionAttributeValues: { ':pk': codePartition(scope, serviceId), ':first': codeSortKey(from), ':last': codeSortKey(range.pool_end - 1) },
        ...(options.hashesOnly ? { ProjectionExpression: 'sk, h' } : {}),
        ConsistentRead: true,
      },
      wanted,
    );
    for (const item of items) {
      const seq = Number((item.sk as string).slice('code#'.length));
      if (inHole(range.pool_holes, seq)) continue;
      found.push({ seq, hash: item.h as string, ...(options.hashesOnly ? {} : { code: item.code as string }) });
      if (found.length >= max) break;
    }
    if (items.length < wanted) break;
    from = Number((items.at(-1)!.sk as string).slice('code#'.length)) + 1;
  }
  return found;
}

/** Which of `hashes` this service has issued (one batch read per 100). */
export async function issuedHashes(scope: RecordScope, serviceId: string, hashes: readonly string[]): Promise<Set<string>> {
  const found = await batchGetList(hashes.map((hash) => issuedKey(scope, serviceId, hash)));
  return new Set(found.map((item) => (item.sk as string).slice('issued#'.length)));
}

/** Writes `codes` at `start`, `start + 1`, ... of a range the writer reserved (batches of 25). `beforeEach` runs before every batch (lease upkeep). */
export async function writeCodes(scope: RecordScope, serviceId: string, start: number, codes: readonly string[], beforeEach?: () => Promise<void>): Promise<void> {
  const writes: BatchWrite[] = codes.map((code, index) => ({ put: { ...codeKey(scope, serviceId, start + index), code, h: codeHash(code) } }));
  for (let from = 0; from < writes.length; from += 25) {
    await beforeEach?.();
    await batchWriteItems(writes.slice(from, from + 25));
  }
}

/** Deletes the code items `[start, start + count)` (a writer cleaning up its own unpublished range; best effort by the caller). */
export async function deleteCodeRange(scope: RecordScope, serviceId: string, start: number, count: number): Promise<void> {
  await batchWriteItems(Array.from({ length: count }, (_, index) => ({ delete: codeKey(scope, serviceId, start + index) })));
}

/** Deletes every code item below `seq`: the lists a replacement left behind (their markers stay). */
export async function deleteCodesBelow(scope: RecordScope, serviceId: string, seq: number): Promise<void> {
  if (seq <= 0) return;
  const items = await queryItems({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
    ExpressionAttributeValues: { ':pk': codePartition(scope, serviceId), ':first': codeSortKey(0), ':last': codeSortKey(seq - 1) },
    ProjectionExpression: 'pk, sk',
  });
  await batchWriteItems(items.map((item) => ({ delete: { pk: item.pk as string, sk: item.sk as string } })));
}

/** Deletes the whole partition of a deleted service: codes and issued markers. */
export async function deleteCodePartition(scope: RecordScope, serviceId: string): Promise<void> {
  const items = await queryItems({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': codePartition(scope, serviceId) },
    ProjectionExpression: 'pk, sk',
  });
  await batchWriteItems(items.map((item) => ({ delete: { pk: item.pk as string, sk: item.sk as string } })));
}

/** Entry names of a take's code writes, by the code's position in the chunk. */
export const takeEntryNames = {
  take: (index: number) => `license code.take#${index}`,
  issue: (index: number) => `license code.issue#${index}`,
};

/**
 * The code side of taking `codes`: each code item deleted (it must still exist: another taker
 * may have got it) and, when the service consumes codes, its issued marker written (it must
 * not exist: a code issued before is never handed out again).
 */
export function takeCodeEntries(scope: RecordScope, serviceId: string, codes: readonly StoredCode[], now: number): TransactEntry[] {
  return codes.flatMap((code, index) => [
    {
      name: takeEntryNames.take(index),
      item: { Delete: { TableName: table(), Key: codeKey(scope, serviceId, code.seq), ConditionExpression: 'attribute_exists(pk)' } },
    },
    {
      name: takeEntryNames.issue(index),
      item: { Put: { TableName: table(), Item: { ...issuedKey(scope, serviceId, code.hash), issued_ms: now }, ConditionExpression: 'attribute_not_exists(pk)' } },
    },
  ]);
}

/** The entry that deletes one code item that must still exist (dropping a code issued before). */
export function dropCodeEntry(scope: RecordScope, serviceId: string, seq: number): TransactEntry {
  return { name: 'license code.drop', item: { Delete: { TableName: table(), Key: codeKey(scope, serviceId, seq), ConditionExpression: 'attribute_exists(pk)' } } };
}
