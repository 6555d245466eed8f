/**
 * Generic storage of declared resources: one item per record, keyed from the account, the
 * mode (for mode-scoped resources), the collection and the id. Lookups by id detect a record
 * that exists only in the other mode (400 token_type_mismatch, conventions.md §9).
 */
import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { TokenTypeMismatchError } from '../auth/errors';
import type { Mode } from '../auth/tokens';
import { ApiError, NotFoundError } from '../http/errors';
import type { ResourceDeclaration } from '../rest/declarations';
import { db, table } from './client';
import type { ItemKey } from './keys';

/** Whose data a request addresses. */
export interface RecordScope {
  accountId: string;
  mode: Mode;
}

/** The key of a declared resource's record. */
export function recordKey(declaration: Pick<ResourceDeclaration, 'collection' | 'scope'>, scope: RecordScope, id: string): ItemKey {
  const owner = declaration.scope === 'mode' ? `${scope.accountId}#${scope.mode}` : scope.accountId;
  return { pk: `${owner}#${declaration.collection}#${id}`, sk: 'record' };
}

/** The listing partition of a collection (gsi1/gsi2 `pk`). */
export function collectionPartition(declaration: Pick<ResourceDeclaration, 'collection' | 'scope'>, scope: RecordScope): string {
  const owner = declaration.scope === 'mode' ? `${scope.accountId}#${scope.mode}` : scope.accountId;
  return `${owner}#${declaration.collection}`;
}

/** Reads a record or undefined (strongly consistent). */
export async function findRecord<Stored>(declaration: ResourceDeclaration<Stored>, scope: RecordScope, id: string): Promise<Stored | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: recordKey(declaration, scope, id), ConsistentRead: true }));
  return result.Item as Stored | undefined;
}

/**
 * Reads a record by id: 404 when it exists in neither mode, 400 token_type_mismatch when it
 * exists only in the other one.
 */
export async function getRecord<Stored>(declaration: ResourceDeclaration<Stored>, scope: RecordScope, id: string): Promise<Stored> {
  const found = await findRecord(declaration, scope, id);
  if (found) return found;
  if (declaration.scope === 'mode') {
    const other: RecordScope = { ...scope, mode: scope.mode === 'live' ? 'test' : 'live' };
    const elsewhere = await db().send(
      new GetCommand({ TableName: table(), Key: recordKey(declaration, other, id), ProjectionExpression: 'pk' }),
    );
    if (elsewhere.Item) throw new TokenTypeMismatchError(`The ${declaration.name} ${id} belongs to the other mode than the access token.`);
  }
  throw new NotFoundError(`The ${declaration.name} ${id} does not exist.`, { parameter: declaration.idField });
}

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

/** A conditional write lost against a concurrent change of the same record (not an API error). */
export class VersionConflictError extends Error {
  override name = 'VersionConflictError';
}

/**
 * Runs read-modify-write `attempt` again while it loses against concurrent writers, so every
 * sent property is applied (conventions.md §15). After `attempts` losses (12: enough for a dozen writers racing on one record): 422 request_failure.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, attempts = 12): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      if (round >= attempts) {
        throw new ApiError(422, 'request_failure', 'The resource kept changing while this request applied its changes; retry.');
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * round));
    }
  }
}
