/**
 * Where products live: the product entity (keyed by account, mode and id, listed in creation
 * order through the bucketed offset index) and the writes that keep its listing counters
 * and events in step with the record.
 */
import { defineEntity, namedEntries, type RecordScope, type TransactEntry, type TransactItem } from '../../store/entity';
import { bucketCounterWrite, listingKeys, reserveSequence } from '../../store/offset-index';
import type { ProductRecord } from './products';

const products = defineEntity<ProductRecord>({ name: 'product', collection: 'products', scope: 'mode', idField: 'product_id',
  indexes: { gsi1: 'products by creation sequence (offset list); deleted ones under <partition>#deleted' } });

/** The key of a product record. */
export function productKey(scope: RecordScope, productId: string): { pk: string; sk: string } {
  return products.key(scope, productId);
}

/** The listing partition of the products of a scope (deleted ones sit under `<partition>#deleted`). */
export function productListing(scope: RecordScope): string {
  return products.partition(scope);
}

/** Reserves the next listing position of a new product, and the listing keys it gives the record. */
export async function reserveProductPosition(scope: RecordScope): Promise<{ seq: number; gsi1pk: string; gsi1sk: string }> {
  const partition = products.partition(scope);
  const seq = await reserveSequence(partition);
  return { seq, ...listingKeys(partition, seq) };
}

/**
 * Writes a new product with its bucket counter, events and `extra` entries (its images' product
 * sets); a taken product_id answers 409 in_use.
 */
export async function insertProduct(scope: RecordScope, record: ProductRecord, events: readonly TransactItem[], extra: readonly TransactEntry[] = []): Promise<void> {
  await products.create(record, { sequence: record.seq, scope, extra: [...namedEntries('product.events', events), ...extra] });
}

/**
 * Replaces `current` by `next` if nobody changed it meanwhile (a lost race throws
 * `VersionConflictError`), counting it out of or back into the listing when `deleted` changes.
 */
export async function saveProductRecord(current: ProductRecord, next: ProductRecord, events: readonly TransactItem[], extra: readonly TransactEntry[] = []): Promise<void> {
  const scope = { accountId: current.account_id, mode: current.mode };
  const counter =
    next.deleted !== current.deleted
      ? [{ name: 'product.bucket-counter', item: bucketCounterWrite(products.partition(scope), current.seq, next.deleted ? -1 : 1) }]
      : [];
  await products.save(current, next, [...counter, ...namedEntries('product.events', events), ...extra]);
}

/**
 * The license service each of `productIds` names now (licenses.md §3: the link is read when an
 * order is made); products without one, or gone, are absent. One batch read.
 */
export async function licenseServicesOfProducts(scope: RecordScope, productIds: readonly string[]): Promise<Map<string, string>> {
  const found = await products.findMany(scope, [...new Set(productIds)]);
  const services = new Map<string, string>();
  for (const [productId, product] of found) if (product.license_service_id) services.set(productId, product.license_service_id);
  return services;
}

/**
 * Ids of up to `max` products of a scope (soft-deleted ones included: they keep their link)
 * whose `license_service_id` is `serviceId`: what a refused license service delete names
 * (licenses.md §2.2). A Query of the listing partitions with a filter, never a Scan; its cost
 * grows with the catalog, which only a refused delete pays.
 */
export async function productIdsLinkedTo(scope: RecordScope, serviceId: string, max: number): Promise<string[]> {
  const partition = products.partition(scope);
  const ids: string[] = [];
  for (const listing of [partition, `${partition}#deleted`]) {
    if (ids.length >= max) break;
    const found = await products.query(
      'gsi1',
      {
        KeyConditionExpression: 'gsi1pk = :listing',
        FilterExpression: 'license_service_id = :service',
        ExpressionAttributeValues: { ':listing': listing, ':service': serviceId },
        ProjectionExpression: 'product_id',
      },
      max - ids.length,
    );
    ids.push(...found.map((product) => product.product_id));
  }
  return ids;
}
