/** Batch reads and writes: many items by key in as few calls as DynamoDB allows. */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client';
import type { ItemKey } from './keys';

/** Keys one BatchGetItem call takes at most. */
const BATCH_GET_MAX_KEYS = 100;

/**
 * Reads many items by key with BatchGetItem, retrying unprocessed keys. Returns them by `pk`.
 * Expansion calls this once per depth level; a level of more than 100 distinct keys (a list
 * page whose orders hold many lines) is split into 100-key calls sent side by side, so it
 * still costs one round trip.
 */
export async function batchGetItems(keys: ItemKey[], options: BatchGetOptions = {}): Promise<Map<string, Record<string, unknown>>> {
  return new Map((await batchGetList(keys, options)).map((item) => [item.pk as string, item]));
}

/** How a batch read reads: `consistent` for strongly consistent reads (as GetItem's ConsistentRead). */
export interface BatchGetOptions {
  consistent?: boolean;
}

/** Reads many items by key like `batchGetItems`, answering them as a list (for keys that share a `pk`). */
export async function batchGetList(keys: readonly ItemKey[], options: BatchGetOptions = {}): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const unique = [...new Map(keys.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
  const chunks: ItemKey[][] = [];
  for (let start = 0; start < unique.length; start += BATCH_GET_MAX_KEYS) chunks.push(unique.slice(start, start + BATCH_GET_MAX_KEYS));
  await Promise.all(chunks.map((chunk) => readChunk(chunk, found, options.consistent === true)));
  return found;
}

async function readChunk(keys: ItemKey[], found: Record<string, unknown>[], consistent: boolean): Promise<void> {
  let request = keys;
  for (let attempt = 0; request.length && attempt < 8; attempt++) {
    const result = await db().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: request, ...(consistent ? { ConsistentRead: true } : {}) } } }));
    found.push(...(result.Responses?.[table()] ?? []));
    request = (result.UnprocessedKeys?.[table()]?.Keys ?? []) as ItemKey[];
    if (request.length) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 20));
  }
  if (request.length) throw new Error('BatchGetItem left keys unprocessed after retries');
}

/** Requests one BatchWriteItem call takes at most. */
export const BATCH_WRITE_MAX_ITEMS = 25;

/** One write of a batch: put an item, or delete one by key. Batch writes carry no conditions. */
export type BatchWrite = { put: Record<string, unknown> } | { delete: ItemKey };

/**
 * Writes many items with BatchWriteItem in chunks of 25 (sent one after the other, so a
 * failure leaves a known prefix written), retrying unprocessed ones with backoff. No
 * conditions: for items nobody else writes (a writer's own reserved range, cleanups).
 */
export async function batchWriteItems(writes: readonly BatchWrite[]): Promise<void> {
  for (let start = 0; start < writes.length; start += BATCH_WRITE_MAX_ITEMS) {
    let request = writes
      .slice(start, start + BATCH_WRITE_MAX_ITEMS)
      .map((write) => ('put' in write ? { PutRequest: { Item: write.put } } : { DeleteRequest: { Key: write.delete } }));
    for (let attempt = 0; request.length; attempt++) {
      if (attempt >= 8) throw new Error('BatchWriteItem left items unprocessed after retries');
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [table()]: request } }));
      request = (result.UnprocessedItems?.[table()] ?? []) as typeof request;
      if (request.length) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 20));
    }
  }
}
