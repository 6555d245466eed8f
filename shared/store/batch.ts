/** Batch reads: many items by key in as few calls as DynamoDB allows. */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client';
import type { ItemKey } from './keys';

/**
 * Reads many items by key with BatchGetItem (100 keys per call, retrying unprocessed keys).
 * Returns them by `pk`. Expansion calls this once per depth level.
 */
export async function batchGetItems(keys: ItemKey[]): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(keys.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
  for (let start = 0; start < unique.length; start += 100) {
    let request: ItemKey[] = unique.slice(start, start + 100);
    for (let attempt = 0; request.length && attempt < 8; attempt++) {
      const result = await db().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: request } } }));
      for (const item of result.Responses?.[table()] ?? []) found.set(item.pk as string, item);
      request = (result.UnprocessedKeys?.[table()]?.Keys ?? []) as ItemKey[];
      if (request.length) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 20));
    }
    if (request.length) throw new Error('BatchGetItem left keys unprocessed after retries');
  }
  return found;
}
