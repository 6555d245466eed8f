/**
 * The entity helper: what every store is built on. An entity is one kind of item in the single
 * table (carts, payments, the due-work records, a username claim...). Its definition says how
 * it is keyed and which indexes it uses, and builds a record's key, index keys and expiry; the
 * helper adds those storage attributes to every record it writes and strips them from every
 * record it reads, so records as the modules see them never carry them (storage.ts). It gives
 * the store reads, transaction entries (named, with the domain error a failed condition means),
 * creation with the listing counters, a versioned save and the versioned update (read, change,
 * conditional write, again on a lost race). Only `shared/store/` and the `*-store.ts` files
 * built on it build DynamoDB commands or index keys (test/store/store-boundary.test.ts checks that).
 *
 * Compare Powertools' idempotency persistence layer: domain-worded methods on top, one place
 * that builds the commands, a failed condition turned into one typed error.
 *
 * @example
 *   const carts = defineEntity<CartRecord>({ name: 'cart', collection: 'carts', scope: 'mode',
 *     idField: 'cart_id', indexes: { gsi1: 'carts by date_created', gsi2: 'carts by date_modified' },
 *     indexKeys: (cart) => ({ gsi1: byCreation(cart), gsi2: byModification(cart) }) });
 *   const cart = await carts.get(scope, 'C1');              // 404 / token_type_mismatch
 *   await transact([carts.updateEntry(scope, 'C1', { set: { open: false }, condition: ... }), ...]);
 *   await carts.update(scope, 'C1', (current) => ({ next: { ...current, note, modified_ms: ... } }));
 */
import { GetCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../core/access/tokens';
import { db, table } from './client';
import { ConflictRetriesExhaustedError, OtherModeError, RecordExistsError, RecordNotFoundError, TransactionRejectedError, VersionConflictError } from './errors';
import { listSortKey, type ItemKey } from './keys';
import { bucketCounterWrite, listingKeys } from './offset-index';
import { batchGetItems } from './batch';
import { queryItems } from './query';
import { indexAttributes, recordOf, type IndexKeys, type StorageAttributes } from './storage';
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

/**
 * Holds only for record types without storage attributes (the store adds those when it writes a
 * record, storage.ts): a record type that declares one makes its entity definition fail to compile.
 */
export type Unstored<R> = Extract<keyof R, keyof StorageAttributes> extends never ? unknown : { recordsCarryNoStorageAttributes: never };

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

/**
 * Where an entity's records sit in the table: the storage attributes the helper adds to every
 * record it writes. Only the entity knows them; records never carry them.
 */
export interface EntityLayout<R> {
  /** The record's own key; default `<owner>#<collection>#<id>` / `record`, from `account_id`, `mode` and the id property. */
  keyOf?(record: R): ItemKey;
  /**
   * The record's properties its key holds (a token's hash): taken from the key when the record
   * is read, and never stored as attributes of their own.
   */
  fromKey?(key: ItemKey): Partial<R>;
  /**
   * The declared indexes the record is listed in, each with its partition and sort key (left
   * out or undefined: not listed there). `partition` is the collection partition of the record's
   * owner (empty for records that name no account).
   */
  indexKeys?(record: R, partition: string): IndexKeys;
  /** Epoch seconds after which DynamoDB may delete the item (the table's TTL attribute); undefined: kept. */
  expiresAt?(record: R): number | undefined;
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
  /** The record whose index keys and expiry the item gets, when the write must not move it in its listings (default: the record itself). */
  listedAs?: unknown;
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

/**
 * What the change of a versioned update decides (`Entity.update`): the record after it, and how
 * that is written over the version read.
 */
export interface Revision<R, A = R> {
  /** The record after the change, its `modified_ms` moved on; `update` answers it unless `answer` is given. */
  next: R;
  /** `false`: nothing (more) to write: nothing changed, or the change wrote itself under a version condition of its own. Default true. */
  write?: boolean;
  /**
   * Only these attributes are written (an Update), for records others change by counters
   * meanwhile; default: the whole record (a Put). The record's index keys and expiry are set with them.
   */
  set?: Partial<R>;
  /** Required of the stored record besides the version read (an open cart, its lock as read). */
  condition?: Condition;
  /** Entries written in the same transaction (claims, counters, events). */
  extra?: readonly TransactEntry[];
  /** What `update` answers instead of `next` (a view with opened secrets, a cart item). */
  answer?: A;
}

/** A change of a versioned update: the revision of the record read. */
export type Change<R, A = R> = (current: R) => Revision<R, A> | Promise<Revision<R, A>>;

/** How a versioned update reads and writes. */
export interface UpdateOptions<R> {
  /** How each round reads the record; default `get` (404, or 400 token_type_mismatch). */
  read?: () => Promise<R>;
  /** Name of the write entry; default `<entity>.save`. */
  name?: string;
  /** Entries every revision adds (what follows from any change: a claim moving with a username). */
  extra?: (current: R, next: R) => readonly TransactEntry[];
  /** Whether any refused transaction of the write (an extra entry's item gone meanwhile) is a lost race too, read again. */
  refusalIsConflict?: boolean;
  /** Write as a transaction even when the write is alone (it then waits out concurrent transactions on the item instead of failing). */
  transaction?: boolean;
  /** Runs after the write (a cache of written records). */
  written?: (next: R) => void;
}

/** What a versioned delete requires (`Entity.remove`). */
export interface Removal {
  /** Instead of the version read: what the stored record must satisfy (its failure is a lost race unless `onConditionFailed` says otherwise). */
  condition?: Condition;
  onConditionFailed?: () => Error;
  /** Entries written in the same transaction (a listing counter, a released claim). */
  extra?: readonly TransactEntry[];
}

/** An entity of the single table: keys, reads and write entries. */
export interface Entity<R> extends EntityDefinition {
  key(scope: RecordScope, id: string): ItemKey;
  /** The listing partition of the collection (gsi1/gsi2 pk). */
  partition(scope: RecordScope): string;
  /** The item written for `record`: the record with its key, index keys and expiry. */
  itemOf(record: R): R & StorageAttributes;
  /** The record an item of this entity holds (for items the store read with a command of its own). */
  recordOf(item: Record<string, unknown>): R;
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
  /**
   * The versioned update: reads the record, lets `change` decide its revision, and writes that
   * only over the version read (`modified_ms`, plus the revision's own condition); a lost race
   * (`VersionConflictError`, from this write or from `change`) reads and decides again
   * (`retryOnConflict`). Answers the revision's `answer`, else its `next`.
   */
  update<A = R>(scope: RecordScope, id: string, change: Change<R, A>, options?: UpdateOptions<R>): Promise<A | R>;
  /**
   * One round of the versioned update: writes `revision` only over `current`'s version (a lost
   * race: `VersionConflictError`). For callers that hold the record read and retry themselves.
   */
  revise<A = R>(current: R, revision: Revision<R, A>, options?: Omit<UpdateOptions<R>, 'read'>): Promise<A | R>;
  /**
   * The versioned delete: reads the record, lets `decide` say what the delete requires
   * (undefined: nothing to delete), deletes it only over the version read (or the removal's
   * condition), and reads and decides again after a lost race.
   */
  remove(scope: RecordScope, id: string, decide: (current: R) => Removal | undefined | Promise<Removal | undefined>, options?: Pick<UpdateOptions<R>, 'read' | 'name'>): Promise<void>;
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

/** A record's place in a date listing: `<partition>`, sorted by `<time ISO>#<id>`. */
export function byDate(partition: string, epochMs: number, id: string): ItemKey {
  return { pk: partition, sk: listSortKey(epochMs, id) };
}

/** A record's place in an offset listing: `<partition>`, sorted by its creation sequence (offset-index.ts). */
export function bySequence(partition: string, sequence: number): ItemKey {
  const keys = listingKeys(partition, sequence);
  return { pk: keys.gsi1pk, sk: keys.gsi1sk };
}

/**
 * Runs read-modify-write `attempt` again while it loses against concurrent writers, so every
 * sent property is applied (conventions.md §15). After `attempts` losses (12: enough for a
 * dozen writers racing on one record): 422 request_failure.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, attempts = 12): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      if (round >= attempts) throw new ConflictRetriesExhaustedError();
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * round));
    }
  }
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
export function defineEntity<R>(definition: EntityDefinition & EntityLayout<R> & Unstored<R>, options: { register?: boolean } = {}): Entity<R> {
  for (const index of Object.keys(definition.indexes ?? {})) {
    if (!tableDefinition.indexes.some((candidate) => candidate.name === index)) throw new Error(`Entity ${definition.name}: unknown index ${index}`);
  }
  if (options.register !== false) {
    if (registry.has(definition.name)) throw new Error(`Entity ${definition.name} is defined twice`);
    registry.set(definition.name, definition);
  }
  const key = (scope: RecordScope, id: string) => recordKey(definition, scope, id);
  const idOf = (record: R) => (record as Record<string, unknown>)[definition.idField] as string;
  const scopeOf = (record: R): RecordScope => {
    const { account_id: accountId, mode } = record as { account_id?: string; mode?: RecordScope['mode'] };
    if (!accountId || (definition.scope === 'mode' && !mode)) throw new Error(`A ${definition.name} record needs account_id${definition.scope === 'mode' ? ' and mode' : ''}`);
    return { accountId, mode: mode! };
  };
  const keyOf = (record: R): ItemKey => definition.keyOf?.(record) ?? key(scopeOf(record), idOf(record));
  /** The index keys and expiry of a record, as item attributes. */
  const placementOf = (record: R): Omit<StorageAttributes, 'pk' | 'sk'> => {
    // Records that name no account (a platform-wide ledger) have no collection partition.
    const partition = (record as { account_id?: string }).account_id ? collectionPartition(definition, scopeOf(record)) : '';
    const indexKeys = definition.indexKeys?.(record, partition) ?? {};
    for (const index of Object.keys(indexKeys)) {
      if (!definition.indexes?.[index as IndexName]) throw new Error(`Entity ${definition.name} does not declare index ${index}`);
    }
    const expiresAt = definition.expiresAt?.(record);
    return { ...indexAttributes(indexKeys), ...(expiresAt === undefined ? {} : { [tableDefinition.ttlAttribute]: expiresAt }) };
  };
  /** The record an item holds: without storage attributes, with what its key holds. */
  const read = (item: Record<string, unknown>): R => {
    const record = recordOf<R>(item);
    if (definition.fromKey) Object.assign(record as object, definition.fromKey(item as unknown as ItemKey));
    return record;
  };
  const itemOf = (record: R, listedAs: R = record): R & StorageAttributes => {
    const key = keyOf(record);
    const attributes: Record<string, unknown> = { ...(record as Record<string, unknown>) };
    for (const name of Object.keys(definition.fromKey?.(key) ?? {})) delete attributes[name];
    return { ...attributes, ...key, ...placementOf(listedAs) } as R & StorageAttributes;
  };
  const lostRace = (id: string) => () => new VersionConflictError(`${definition.name} ${id} changed concurrently`);
  const versionOf = (record: R): number => {
    const version = (record as { modified_ms?: number }).modified_ms;
    if (version === undefined) throw new Error(`A ${definition.name} record needs modified_ms to be saved`);
    return version;
  };
  const entity: Entity<R> = {
    ...definition,
    key,
    partition: (scope) => collectionPartition(definition, scope),
    itemOf,
    recordOf: read,
    async find(scope, id) {
      const result = await db().send(new GetCommand({ TableName: table(), Key: key(scope, id), ConsistentRead: true }));
      return result.Item && read(result.Item);
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
      for (const item of items.values()) found.set(idOf(item as R), read(item));
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
        item: { Put: withCondition({ TableName: table(), Item: itemOf(record, options.listedAs as R | undefined) as Record<string, unknown> }, condition) },
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
      await writeAll([entity.putEntry(next, { ifVersion: versionOf(current), name: `${definition.name}.save` }), ...extra]);
    },
    async revise<A>(current: R, revision: Revision<R, A>, options: Omit<UpdateOptions<R>, 'read'> = {}): Promise<A | R> {
      const answer = 'answer' in revision ? (revision.answer as A) : revision.next;
      if (revision.write === false) return answer;
      const { next } = revision;
      const scope = scopeOf(current);
      const id = idOf(current);
      const name = options.name ?? `${definition.name}.save`;
      const condition = allOf(atVersion(versionOf(current)), revision.condition);
      const onConditionFailed = lostRace(id);
      const write = revision.set
        ? entity.updateEntry(scope, id, { name, set: { ...revision.set, ...placementOf(next) }, condition, onConditionFailed })
        : entity.putEntry(next, { name, condition, onConditionFailed });
      try {
        const entries = [write, ...(revision.extra ?? []), ...(options.extra?.(current, next) ?? [])];
        await (options.transaction ? transact(entries) : writeAll(entries));
      } catch (error) {
        if (options.refusalIsConflict && error instanceof TransactionRejectedError) throw onConditionFailed();
        throw error;
      }
      options.written?.(next);
      return answer;
    },
    async update<A>(scope: RecordScope, id: string, change: Change<R, A>, options: UpdateOptions<R> = {}): Promise<A | R> {
      const { read, ...writing } = options;
      return retryOnConflict(async () => {
        const current = read ? await read() : await entity.get(scope, id);
        return entity.revise(current, await change(current), writing);
      });
    },
    async remove(scope, id, decide, options = {}) {
      await retryOnConflict(async () => {
        const current = options.read ? await options.read() : await entity.get(scope, id);
        const removal = await decide(current);
        if (!removal) return;
        const condition = removal.condition ?? atVersion(versionOf(current));
        const onConditionFailed = removal.onConditionFailed ?? lostRace(id);
        await writeAll([entity.deleteEntry(scope, id, { name: options.name ?? `${definition.name}.delete`, condition, onConditionFailed }), ...(removal.extra ?? [])]);
      });
    },
    async query(index, input, max = Number.POSITIVE_INFINITY) {
      if (index && !definition.indexes?.[index]) throw new Error(`Entity ${definition.name} does not declare index ${index}`);
      return (await queryItems({ ...input, TableName: table(), ...(index ? { IndexName: index } : {}) }, max)).map(read);
    },
  };
  return entity;
}

export { isConditionFailure, namedEntries, transact, writeAll, writeOne, type TransactEntry, type TransactItem } from './transact';
export { TransactionRejectedError } from './errors';
