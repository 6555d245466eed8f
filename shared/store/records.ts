/**
 * Generic reads of declared resources by id (what the REST engine needs for any resource).
 * Keys and errors come from the entity helper
 * (entity.ts), so a declared resource and its store always agree on where a record lives.
 */
import type { ResourceDeclaration } from '../rest/declarations';
import { batchGetItems as batchGetStoredItems, type BatchGetOptions } from './batch';
import { defineEntity, type Entity, type RecordScope } from './entity';
import type { ItemKey } from './keys';
import { recordOf } from './storage';

/**
 * Reads records of any declared resources by key in as few BatchGetItem calls as DynamoDB
 * allows (one per 100 keys, side by side); answers them by their key's `pk`, without storage attributes.
 */
export async function batchGetItems(keys: ItemKey[], options: BatchGetOptions = {}): Promise<Map<string, Record<string, unknown>>> {
  const found = await batchGetStoredItems(keys, options);
  return new Map([...found].map(([pk, item]) => [pk, recordOf<Record<string, unknown>>(item)]));
}
export { collectionPartition, recordKey, retryOnConflict, type RecordScope } from './entity';
export { VersionConflictError } from './errors';

const byDeclaration = new WeakMap<object, Entity<unknown>>();

/** The entity view of a declaration (keys, find, get), made once per declaration. */
function entityOf<Stored>(declaration: Pick<ResourceDeclaration<Stored>, 'name' | 'collection' | 'scope' | 'idField'>): Entity<Stored> {
  let entity = byDeclaration.get(declaration);
  if (!entity) {
    entity = anonymousEntity(declaration);
    byDeclaration.set(declaration, entity);
  }
  return entity as Entity<Stored>;
}

function anonymousEntity(declaration: Pick<ResourceDeclaration, 'name' | 'collection' | 'scope' | 'idField'>): Entity<unknown> {
  return defineEntity({ name: declaration.name, collection: declaration.collection, scope: declaration.scope, idField: declaration.idField }, { register: false });
}

/** Reads a record or undefined (strongly consistent). */
export async function findRecord<Stored>(declaration: ResourceDeclaration<Stored>, scope: RecordScope, id: string): Promise<Stored | undefined> {
  return entityOf<Stored>(declaration).find(scope, id);
}

/**
 * Reads a record by id: 404 when it exists in neither mode, 400 token_type_mismatch when it
 * exists only in the other one.
 */
export async function getRecord<Stored>(declaration: ResourceDeclaration<Stored>, scope: RecordScope, id: string): Promise<Stored> {
  return entityOf<Stored>(declaration).get(scope, id);
}
