/**
 * Generic reads of declared resources by id (what the REST engine needs for any resource).
 * Keys and errors come from the entity helper
 * (entity.ts), so a declared resource and its store always agree on where a record lives.
 */
import { batchGetItems as batchGetStoredItems, type BatchGetOptions } from './batch';
import { defineEntity, type Entity, type EntityDefinition, type RecordScope } from './entity';
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

/** Where the records of a declared resource live (a REST declaration has these fields among others). */
export type RecordLocation = Pick<EntityDefinition, 'name' | 'collection' | 'scope' | 'idField'>;

/** A location that names its records' type the way a REST declaration does (`idOf(stored)`). */
export type StoredAt<Stored> = RecordLocation & { idOf(stored: Stored): string };

const byDeclaration = new WeakMap<object, Entity<unknown>>();

/** The entity view of a declaration (keys, find, get), made once per declaration. */
function entityOf<Stored>(declaration: RecordLocation): Entity<Stored> {
  let entity = byDeclaration.get(declaration);
  if (!entity) {
    entity = anonymousEntity(declaration);
    byDeclaration.set(declaration, entity);
  }
  return entity as Entity<Stored>;
}

function anonymousEntity(declaration: RecordLocation): Entity<unknown> {
  return defineEntity({ name: declaration.name, collection: declaration.collection, scope: declaration.scope, idField: declaration.idField }, { register: false });
}

/** Reads a record or undefined (strongly consistent). */
export async function findRecord<Stored>(declaration: StoredAt<Stored>, scope: RecordScope, id: string): Promise<Stored | undefined> {
  return entityOf<Stored>(declaration).find(scope, id);
}

/**
 * Reads a record by id: 404 when it exists in neither mode, 400 token_type_mismatch when it
 * exists only in the other one.
 */
export async function getRecord<Stored>(declaration: StoredAt<Stored>, scope: RecordScope, id: string): Promise<Stored> {
  return entityOf<Stored>(declaration).get(scope, id);
}
