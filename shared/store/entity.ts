/**
 * The entity helper: what every store is built on. An entity is one kind of item in the single
 * table (carts, payments, the due-work records, a username claim...). Its definition says how
 * it is keyed and which indexes it uses; the helper then gives the store reads, transaction
 * entries (named, with the domain error a failed condition means), creation with the listing
 * counters and a versioned save. Only `shared/store/` and the `*-store.ts` files built on it
 * build DynamoDB commands (test/store/store-boundary.test.ts checks that).
 *
 * Compare Powertools' idempotency persistence layer: domain-worded methods on top, one place
 * that builds the commands, a failed condition turned into one typed error.
 *
 * @example
 *   const carts = defineEntity<CartRecord>({ name: 'cart', collection: 'carts', scope: 'mode',
 *     idField: 'cart_id', indexes: { gsi1: 'carts by date_created', gsi2: 'carts by date_modified' } });
 *   const cart = await carts.get(scope, 'C1');              // 404 / token_type_mismatch
 *   await transact([carts.updateEntry(scope, 'C1', { set: { open: false }, condition: ... }), ...]);
 */
import { GetCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../core/access/tokens';
import { db, table } from './client';
import { OtherModeError, RecordExistsError, RecordNotFoundError, VersionConflictError } from './errors';
import type { ItemKey } from './keys';
import { bucketCounterWrite } from './offset-index';
import { batchGetItems } from './batch';
import { queryItems } from './query';
import { tableDefinition, type IndexName } from './table';
import { transact, writeAll, type TransactEntry } from './transact';

/** Whose data a request addresses. */
export interface RecordScope {
  accountId: string;
  mode: Mode;
}

/** A condition with its own placeholders (merged with the write's). */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** What a store says about its entity. */
export interface EntityDefinition {
  /** Readable name, also the API `object` where there is one (`cart`). */
  name: string;
  /** Collection segment of the key (`carts`). */
  collection: string;
  /** `mode`: keyed from (account, mode); `account`: shared by both modes. */
  scope: 'mode' | 'account';
  /** The id property (`cart_id`), named in 404s and 409s. */
  idField: string;
  /**
   * Each index this entity writes keys for or queries, and for what. table.ts documents the
   * same, and test/store/indexes.test.ts checks the two agree.
   */
  indexes?: Partial<Record<IndexName, string>>;
}

/** Options of a Put entry. */
export interface PutOptions {
  /** Entry name; default `<entity>.put`. */
  name?: string;
  /** Only if no item has this key yet (a taken id throws `RecordExistsError` unless mapped). */
  ifNew?: boolean;
  /** Only if the stored record still has this `modified_ms` (a lost race: `VersionConflictError`). */
  ifVersion?: number;
  condition?: Condition;
  onConditionFailed?: () => Error;
}

/** An update in plain terms; placeholders are generated. */
export interface UpdateSpec {
  name?: string;
  set?: Record<string, unknown>;
  /** Top-level or dotted paths to remove. */
  remove?: string[];
  /** Numeric attributes to add to (counters). */
  add?: Record<string, number>;
  condition?: Condition;
  onConditionFailed?: () => Error;
}

/** An entity of the single table: keys, reads and write entries. */
export interface Entity<R> extends EntityDefinition {
  key(scope: RecordScope, id: string): ItemKey;
  /** The listing partition of the collection (gsi1/gsi2 pk). */
  partition(scope: RecordScope): string;
  /** The record or undefined (strongly consistent). */
  find(scope: RecordScope, id: string): Promise<R | undefined>;
  /** The record; `RecordNotFoundError` (404) or `OtherModeError` (400 token_type_mismatch). */
  get(scope: RecordScope, id: string): Promise<R>;
  /** Many records by id in one batch read (missing ones are absent). */
  findMany(scope: RecordScope, ids: readonly string[]): Promise<Map<string, R>>;
  putEntry(record: R, options?: PutOptions): TransactEntry;
  updateEntry(scope: RecordScope, id: string, update: UpdateSpec): TransactEntry;
  deleteEntry(scope: RecordScope, id: string, options?: { name?: string; condition?: Condition; onConditionFailed?: () => Error }): TransactEntry;
  /**
   * Creates a record that must not exist yet, with its listing bucket counter when it has a
   * `sequence` (offset lists), and `extra` entries in the same transaction.
   */
  create(record: R, options?: { sequence?: number; scope?: RecordScope; extra?: TransactEntry[] }): Promise<void>;
  /** Replaces `current` by `next` if nobody changed it meanwhile (`modified_ms`), with `extra` entries. */
  save(current: R, next: R, extra?: TransactEntry[]): Promise<void>;
  /** Queries one of the entity's declared indexes (or the table when `index` is undefined). */
  query(index: IndexName | undefined, input: Omit<QueryCommandInput, 'TableName' | 'IndexName'>, max?: number): Promise<R[]>;
}

const registry = new Map<string, EntityDefinition>();

/** Every entity defined so far (for the index-use test). */
export function definedEntities(): EntityDefinition[] {
  return [...registry.values()];
}

/** Owner prefix of a scope: `<account>#<mode>` or `<account>`. */
function ownerOf(definition: Pick<EntityDefinition, 'scope'>, scope: RecordScope): string {
  return definition.scope === 'mode' ? `${scope.accountId}#${scope.mode}` : scope.accountId;
}

/** The key of a record: `<owner>#<collection>#<id>` / `record`. */
export function recordKey(definition: Pick<EntityDefinition, 'collection' | 'scope'>, scope: RecordScope, id: string): ItemKey {
  return { pk: `${ownerOf(definition, scope)}#${definition.collection}#${id}`, sk: 'record' };
}

/** The listing partition of a collection (gsi1/gsi2 `pk`). */
export function collectionPartition(definition: Pick<EntityDefinition, 'collection' | 'scope'>, scope: RecordScope): string {
  return `${ownerOf(definition, scope)}#${definition.collection}`;
}

/** Joins conditions with AND, merging their placeholders. */
export function allOf(...conditions: Array<Condition | undefined>): Condition | undefined {
  const present = conditions.filter((condition): condition is Condition => condition !== undefined);
  if (!present.length) return undefined;
  return {
    expression: present.map((condition) => (present.length > 1 ? `(${condition.expression})` : condition.expression)).join(' AND '),
    names: Object.assign({}, ...present.map((condition) => condition.names ?? {})),
    values: Object.assign({}, ...present.map((condition) => condition.values ?? {})),
  };
}

/** `attribute_not_exists(pk)`: the item must be new. */
export const IS_NEW: Condition = { expression: 'attribute_not_exists(pk)' };
/** `attribute_exists(pk)`: the item must exist. */
export const EXISTS: Condition = { expression: 'attribute_exists(pk)' };
/** The stored `modified_ms` equals `version`. */
export function atVersion(version: number): Condition {
  return { expression: 'modified_ms = :expected_version', values: { ':expected_version': version } };
}

function withCondition<T extends object>(input: T, condition: Condition | undefined, names: Record<string, string> = {}, values: Record<string, unknown> = {}): T {
  const allNames = { ...names, ...(condition?.names ?? {}) };
  const allValues = { ...values, ...(condition?.values ?? {}) };
  return {
    ...input,
    ...(condition ? { ConditionExpression: condition.expression } : {}),
    ...(Object.keys(allNames).length ? { ExpressionAttributeNames: allNames } : {}),
    ...(Object.keys(allValues).length ? { ExpressionAttributeValues: allValues } : {}),
  };
}

/** Builds the UpdateExpression of an `UpdateSpec` with generated placeholders (`#u0`, `:u0`). */
export function updateExpression(spec: UpdateSpec): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  let counter = 0;
  const path = (dotted: string) =>
    dotted
      .split('.')
      .map((segment) => {
        const placeholder = `#u${counter++}`;
        names[placeholder] = segment;
        return placeholder;
      })
      .join('.');
  const value = (raw: unknown) => {
    const placeholder = `:u${counter++}`;
    values[placeholder] = raw;
    return placeholder;
  };
  const clauses: string[] = [];
  const sets = Object.entries(spec.set ?? {}).map(([name, raw]) => `${path(name)} = ${value(raw)}`);
  if (sets.length) clauses.push(`SET ${sets.join(', ')}`);
  if (spec.remove?.length) clauses.push(`REMOVE ${spec.remove.map(path).join(', ')}`);
  const adds = Object.entries(spec.add ?? {}).map(([name, raw]) => `${path(name)} ${value(raw)}`);
  if (adds.length) clauses.push(`ADD ${adds.join(', ')}`);
  if (!clauses.length) throw new Error('An update needs set, remove or add');
  return { expression: clauses.join(' '), names, values };
}

/**
 * Defines an entity of the single table. `register: false` is for the generic by-id reads of
 * declared resources (records.ts), whose stores register the entity themselves.
 */
export function defineEntity<R>(definition: EntityDefinition, options: { register?: boolean } = {}): Entity<R> {
  for (const index of Object.keys(definition.indexes ?? {})) {
    if (!tableDefinition.indexes.some((candidate) => candidate.name === index)) throw new Error(`Entity ${definition.name}: unknown index ${index}`);
  }
  if (options.register !== false) {
    if (registry.has(definition.name)) throw new Error(`Entity ${definition.name} is defined twice`);
    registry.set(definition.name, definition);
  }
  const key = (scope: RecordScope, id: string) => recordKey(definition, scope, id);
  const idOf = (record: R) => (record as Record<string, unknown>)[definition.idField] as string;
  const keyOf = (record: R): ItemKey => {
    const { pk, sk } = record as unknown as ItemKey;
    if (!pk || !sk) throw new Error(`A ${definition.name} record needs pk and sk`);
    return { pk, sk };
  };
  const entity: Entity<R> = {
    ...definition,
    key,
    partition: (scope) => collectionPartition(definition, scope),
    async find(scope, id) {
      const result = await db().send(new GetCommand({ TableName: table(), Key: key(scope, id), ConsistentRead: true }));
      return result.Item as R | undefined;
    },
    async get(scope, id) {
      const found = await entity.find(scope, id);
      if (found) return found;
      if (definition.scope === 'mode') {
        const other: RecordScope = { ...scope, mode: scope.mode === 'live' ? 'test' : 'live' };
        const elsewhere = await db().send(new GetCommand({ TableName: table(), Key: key(other, id), ProjectionExpression: 'pk' }));
        if (elsewhere.Item) throw new OtherModeError(definition.name, id);
      }
      throw new RecordNotFoundError(definition.name, id, definition.idField);
    },
    async findMany(scope, ids) {
      const items = await batchGetItems(ids.map((id) => key(scope, id)));
      const found = new Map<string, R>();
      for (const item of items.values()) found.set(idOf(item as R), item as R);
      return found;
    },
    putEntry(record, options = {}) {
      const condition = allOf(options.ifNew ? IS_NEW : undefined, options.ifVersion !== undefined ? atVersion(options.ifVersion) : undefined, options.condition);
      const id = idOf(record);
      const onConditionFailed =
        options.onConditionFailed ??
        (options.ifNew && !options.condition ? () => new RecordExistsError(definition.name, id, definition.idField) : undefined) ??
        (options.ifVersion !== undefined && !options.condition ? () => new VersionConflictError(`${definition.name} ${id} changed concurrently`) : undefined);
      return {
        name: options.name ?? `${definition.name}.put`,
        item: { Put: withCondition({ TableName: table(), Item: record as Record<string, unknown> }, condition) },
        ...(onConditionFailed ? { onConditionFailed } : {}),
      };
    },
    updateEntry(scope, id, update) {
      const built = updateExpression(update);
      return {
        name: update.name ?? `${definition.name}.update`,
        item: { Update: withCondition({ TableName: table(), Key: key(scope, id), UpdateExpression: built.expression }, update.condition, built.names, built.values) },
        ...(update.onConditionFailed ? { onConditionFailed: update.onConditionFailed } : {}),
      };
    },
    deleteEntry(scope, id, options = {}) {
      return {
        name: options.name ?? `${definition.name}.delete`,
        item: { Delete: withCondition({ TableName: table(), Key: key(scope, id) }, options.condition) },
        ...(options.onConditionFailed ? { onConditionFailed: options.onConditionFailed } : {}),
      };
    },
    async create(record, options = {}) {
      const entries = [entity.putEntry(record, { ifNew: true, name: `${definition.name}.create` })];
      if (options.sequence !== undefined) {
        if (!options.scope) throw new Error(`Creating a listed ${definition.name} needs its scope`);
        entries.push({ name: `${definition.name}.bucket-counter`, item: bucketCounterWrite(entity.partition(options.scope), options.sequence, 1) });
      }
      await writeAll([...entries, ...(options.extra ?? [])]);
    },
    async save(current, next, extra = []) {
      keyOf(next);
      const version = (current as { modified_ms?: number }).modified_ms;
      if (version === undefined) throw new Error(`A ${definition.name} record needs modified_ms to be saved`);
      await writeAll([entity.putEntry(next, { ifVersion: version, name: `${definition.name}.save` }), ...extra]);
    },
    async query(index, input, max = Number.POSITIVE_INFINITY) {
      if (index && !definition.indexes?.[index]) throw new Error(`Entity ${definition.name} does not declare index ${index}`);
      return (await queryItems({ ...input, TableName: table(), ...(index ? { IndexName: index } : {}) }, max)) as R[];
    },
  };
  return entity;
}

export { isConditionFailure, namedEntries, transact, writeAll, writeOne, type TransactEntry, type TransactItem } from './transact';
export { TransactionRejectedError } from './errors';
