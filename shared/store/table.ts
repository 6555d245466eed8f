/**
 * The single DynamoDB table, as data. The CDK stack and the local runtime both build the
 * table from this definition, so the key schema and indexes cannot drift apart.
 *
 * Key layout (see shared/store/keys.ts for the builders):
 * - `pk`/`sk`: the item's own key. Mode-scoped records start with `<account>#<mode>`,
 *   account-wide ones with `<account>`, platform-wide lookups (token hash, user id,
 *   user email, app host) with a kind prefix that maps straight to their account.
 * - `gsi1`: collection listing by `date_created` (`gsi1pk` = collection, `gsi1sk` = date#id).
 * - `gsi2`: collection listing by `date_modified`.
 * - `gsi3`: secondary lookups and due work (for example events due for retry).
 * - `ttl`: epoch seconds after which DynamoDB may delete the item; readers still check
 *   expiry themselves, because TTL deletion is lazy.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
} as const;

/** Attribute names of every key in the table and its indexes (all strings). */
export function keyAttributes(): string[] {
  return [
    tableDefinition.partitionKey,
    tableDefinition.sortKey,
    ...tableDefinition.indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
}
