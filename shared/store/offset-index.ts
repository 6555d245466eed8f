/**
 * Offset pagination that stays cheap at deep offsets (conventions.md §12, architecture.md
 * "Offset lists need total_items").
 *
 * Each listed record gets a sequence number from its collection when it is created; records
 * are listed in sequence order (creation order) under `gsi1`, with sort key
 * `<bucket>#<sequence>` where a bucket holds 100 consecutive sequence numbers. A counter per
 * bucket is kept in the same transaction as every write that adds or removes a record from
 * the listing. Reading page `offset` then costs: one Query of the bucket counters (one small
 * item per 100 records), and one Query of at most two buckets. The total is the sum of the
 * counters. Nothing ever walks the records in front of the page.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RecordScope } from './entity';
import type { TransactItem } from './transact';
import { db, table } from './client';
import { queryItems } from './query';
import { recordsOf } from './storage';

/** Sequence numbers per bucket. */
export const BUCKET_SIZE = 100;

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** The bucket of a sequence number. */
export function bucketOf(sequence: number): number {
  return Math.floor(sequence / BUCKET_SIZE);
}

/** Listing attributes for a record with sequence `sequence` in `partition`. */
export function listingKeys(partition: string, sequence: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: partition, gsi1sk: `${pad(bucketOf(sequence), 10)}#${pad(sequence, 14)}` };
}

/**
 * Reserves the next sequence number of a partition (one atomic counter update). A reserved
 * number whose record is never written leaves a harmless gap.
 */
export async function reserveSequence(partition: string): Promise<number> {
  const result = await db().send(
    new UpdateCommand({
      TableName: table(),
      Key: { pk: `${partition}#sequence`, sk: 'sequence' },
      UpdateExpression: 'ADD n :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes!.n);
}

/** The fields a new mode-scoped record of an offset listing starts with: its scope, its dates and its position. */
export interface ListedRecordStart {
  account_id: string;
  mode: RecordScope['mode'];
  created_ms: number;
  modified_ms: number;
  seq: number;
}

/**
 * Starts a new record of a mode-scoped offset listing: reserves its position (`reserve`, the
 * collection's `reserveSequence`), then stamps it created and modified now, in `scope`.
 *
 * @example const record = { promotion_id: id, ...fields, ...(await startListedRecord(scope, reservePromotionSequence, clock)) };
 */
export async function startListedRecord(scope: RecordScope, reserve: (scope: RecordScope) => Promise<number>, clock: { nowMs(): number }): Promise<ListedRecordStart> {
  const seq = await reserve(scope);
  const now = clock.nowMs();
  return { account_id: scope.accountId, mode: scope.mode, created_ms: now, modified_ms: now, seq };
}

/** The transaction entry that counts a record in (`+1`) or out (`-1`) of its bucket. */
export function bucketCounterWrite(partition: string, sequence: number, delta: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: { pk: `${partition}#buckets`, sk: pad(bucketOf(sequence), 10) },
      UpdateExpression: 'ADD n :delta',
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}

/** Bucket counts of a partition in bucket order. */
async function bucketCounts(partition: string): Promise<Array<{ bucket: string; n: number }>> {
  const items = await queryItems({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `${partition}#buckets` },
  });
  return items.map((item) => ({ bucket: item.sk as string, n: Math.max(0, Number(item.n ?? 0)) })).filter((b) => b.n > 0);
}

/** One page of an offset list in creation order, and the total. */
export async function readOffsetPage(
  partition: string,
  offset: number,
  limit: number,
  descending: boolean,
): Promise<{ items: Record<string, unknown>[]; total: number }> {
  // The first page (the usual read) needs no counters to find where it starts: both reads go
  // out together, one round trip.
  if (offset === 0) {
    const [buckets, items] = await Promise.all([bucketCounts(partition), queryRange(partition, undefined, limit, descending)]);
    const total = buckets.reduce((sum, bucket) => sum + bucket.n, 0);
    return { items: items.slice(0, Math.min(limit, total)), total };
  }
  const buckets = await bucketCounts(partition);
  const total = buckets.reduce((sum, bucket) => sum + bucket.n, 0);
  if (offset >= total) return { items: [], total };
  // Walk the counters (not the records) to the bucket holding the first wanted position.
  const ordered = descending ? [...buckets].reverse() : buckets;
  let before = 0;
  let index = 0;
  while (index < ordered.length && before + ordered[index]!.n <= offset) before += ordered[index++]!.n;
  const start = ordered[index]!;
  const skip = offset - before;
  const wanted = skip + Math.min(limit, total - offset);
  const items = await queryRange(partition, descending ? `${start.bucket}#~` : `${start.bucket}#`, wanted, descending);
  return { items: items.slice(skip, wanted), total };
}

/** Up to `wanted` items of the listing in order from `edge` (a bucket boundary; absent: the start). */
async function queryRange(partition: string, edge: string | undefined, wanted: number, descending: boolean): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: table(),
        IndexName: 'gsi1',
        KeyConditionExpression: edge === undefined ? 'gsi1pk = :pk' : descending ? 'gsi1pk = :pk AND gsi1sk < :edge' : 'gsi1pk = :pk AND gsi1sk >= :edge',
        ExpressionAttributeValues: { ':pk': partition, ...(edge === undefined ? {} : { ':edge': edge }) },
        ScanIndexForward: !descending,
        Limit: wanted - items.length,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < wanted);
  return items;
}

/** Every record of a listing partition in creation order (for filters and other sort orders), without storage attributes. */
export async function readWholeListing(partition: string): Promise<Record<string, unknown>[]> {
  return recordsOf(
    await queryItems({
      TableName: table(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': partition },
    }),
  );
}

/** How `readOffsetCollection` reads a page. */
export interface OffsetCollectionRead<T> {
  partition: string;
  offset: number;
  limit: number;
  descending: boolean;
  /** Whether the partition keeps bucket counters (a `#deleted` listing does not). */
  counted: boolean;
  /** Keeps matching items; absent: no filter. */
  filter?: (item: T) => boolean;
  /** Sort key of another order than creation; absent: creation order. */
  sortKey?: (item: T) => string | number;
  /** Tie-breaker. */
  idOf: (item: T) => string;
}

/**
 * One page of an offset collection and its total. The default list (creation order, no
 * filter, counted partition) is served by the bucket index; filters and other orders read
 * the whole listing and sort it in memory, so their cost grows with the collection.
 */
export async function readOffsetCollection<T>(read: OffsetCollectionRead<T>): Promise<{ items: T[]; total: number }> {
  if (read.counted && !read.filter && !read.sortKey) {
    const result = await readOffsetPage(read.partition, read.offset, read.limit, read.descending);
    return { items: recordsOf<T>(result.items), total: result.total };
  }
  let all = (await readWholeListing(read.partition)) as unknown as T[];
  if (read.filter) all = all.filter(read.filter);
  const key = read.sortKey ?? ((item: T) => (item as { seq: number }).seq);
  const direction = read.descending ? -1 : 1;
  all.sort((a, b) => {
    const [x, y, ia, ib] = [key(a), key(b), read.idOf(a), read.idOf(b)];
    return direction * (x < y ? -1 : x > y ? 1 : ia < ib ? -1 : ia > ib ? 1 : 0);
  });
  return { items: all.slice(read.offset, read.offset + read.limit), total: all.length };
}
