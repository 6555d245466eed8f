/** Batch reads: many items by key in as few calls as DynamoDB allows. */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
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
export async function batchGetItems(keys: ItemKey[]): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(keys.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
  const chunks: ItemKey[][] = [];
  for (let start = 0; start < unique.length; start += BATCH_GET_MAX_KEYS) chunks.push(unique.slice(start, start + BATCH_GET_MAX_KEYS));
  await Promise.all(chunks.map((chunk) => readChunk(chunk, found)));
  return found;
}

async function readChunk(keys: ItemKey[], found: Map<string, Record<string, unknown>>): Promise<void> {
  let request = keys;
  for (let attempt = 0; request.length && attempt < 8; attempt++) {
    const result = await db().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: request } } }));
    for (const item of result.Responses?.[table()] ?? []) found.set(item.pk as string, item);
    request = (result.UnprocessedKeys?.[table()]?.Keys ?? []) as ItemKey[];
    if (request.length) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 20));
  }
  if (request.length) throw new Error('BatchGetItem left keys unprocessed after retries');
}
