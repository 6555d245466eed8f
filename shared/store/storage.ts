/**
 * Storage attributes: what the store keeps on an item beside the record itself (its key, its
 * index keys, its expiry). Records as the modules see them never carry these: an entity adds
 * them when it writes a record (from the entity's own key and index-key builders) and every
 * read strips them. The store remembers, for each record it read, where it found it, so a
 * cursor list can continue from a record's exact position in an index.
 */
import type { ItemKey } from './keys';
import { tableDefinition, type IndexName } from './table';

type TableIndex = (typeof tableDefinition.indexes)[number];

/** The key attributes of the table's indexes (`gsi1pk`, `gsi1sk`, ...). */
export type IndexAttributes = { [I in TableIndex as I['partitionKey'] | I['sortKey']]?: string };

/** Everything the store adds to a record when it writes it. */
export type StorageAttributes = ItemKey & IndexAttributes & { ttl?: number };

/** Where a record is listed: for each index, its partition (`pk`) and sort key (`sk`). */
export type IndexKeys = Partial<Record<IndexName, ItemKey | undefined>>;

/** Names of every storage attribute: the table key, each index's key and the TTL attribute. */
export const STORAGE_ATTRIBUTES: readonly string[] = [
  tableDefinition.partitionKey,
  tableDefinition.sortKey,
  ...tableDefinition.indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  tableDefinition.ttlAttribute,
];
const storageAttributes = new Set(STORAGE_ATTRIBUTES);

/** The item attributes of `keys` (`{ gsi1: { pk, sk } }` becomes `{ gsi1pk, gsi1sk }`); unlisted indexes add nothing. */
export function indexAttributes(keys: IndexKeys): IndexAttributes {
  const attributes: Record<string, string> = {};
  for (const index of tableDefinition.indexes) {
    const key = keys[index.name];
    if (!key) continue;
    attributes[index.partitionKey] = key.pk;
    attributes[index.sortKey] = key.sk;
  }
  return attributes;
}

const placements = new WeakMap<object, Partial<StorageAttributes>>();

/**
 * The record an item holds: the item without its storage attributes. The store remembers
 * where it found the record (`positionIn`).
 */
export function recordOf<R>(item: Record<string, unknown>): R {
  // One pass without intermediate arrays: this runs for every record of every list read.
  const record: Record<string, unknown> = {};
  let placement: Record<string, unknown> | undefined;
  for (const name in item) {
    if (storageAttributes.has(name)) (placement ??= {})[name] = item[name];
    else record[name] = item[name];
  }
  if (placement) placements.set(record, placement);
  return record as R;
}

/** `recordOf` for each item. */
export function recordsOf<R>(items: readonly Record<string, unknown>[]): R[] {
  return items.map((item) => recordOf<R>(item));
}

/**
 * The sort key a record read by the store had in `index` (a cursor list's position), or
 * undefined when the store did not read this very object or it was not listed there.
 */
export function positionIn(record: object, index: IndexName): string | undefined {
  const definition = tableDefinition.indexes.find((candidate) => candidate.name === index)!;
  return placements.get(record)?.[definition.sortKey as keyof IndexAttributes] as string | undefined;
}
