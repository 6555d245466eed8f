/**
 * Where products live: the product entity (keyed by account, mode and id, listed in creation
 * order through the bucketed offset index) and the writes that keep its listing counters
 * and events in step with the record.
 */
import { bySequence, defineEntity, namedEntries, type RecordScope, type Revision, type TransactEntry, type TransactItem } from '../../store/entity';
import { bucketCounterWrite, reserveSequence } from '../../store/offset-index';
import type { ProductRecord } from './products';

/** Where deleted products are listed: apart, uncounted. */
const deletedListing = (partition: string) => `${partition}#deleted`;

const products = defineEntity<ProductRecord>({ name: 'product', collection: 'products', scope: 'mode', idField: 'product_id',
  indexes: { gsi1: 'products by creation sequence (offset list); deleted ones under <partition>#deleted' },
  indexKeys: (product, partition) => ({ gsi1: bySequence(product.deleted ? deletedListing(partition) : partition, product.seq) }) });

/** The listing partition of the products of a scope, or of its deleted ones (not counted). */
export function productListing(scope: RecordScope, deleted = false): string {
  return deleted ? deletedListing(products.partition(scope)) : products.partition(scope);
}

/** Reserves the listing position (sequence) of a new product. */
export async function reserveProductSequence(scope: RecordScope): Promise<number> {
  return reserveSequence(products.partition(scope));
}

/**
 * Writes a new product with its bucket counter, events and `extra` entries (its images' product
 * sets); a taken product_id answers 409 in_use.
 */
export async function insertProduct(scope: RecordScope, record: ProductRecord, events: readonly TransactItem[], extra: readonly TransactEntry[] = []): Promise<void> {
  await products.create(record, { sequence: record.seq, scope, extra: [...namedEntries('product.events', events), ...extra] });
}

/** What a change of a product writes: the product after it, its events, and entries of others (its images, license links). */
export interface ProductRevision {
  next: ProductRecord;
  events: readonly TransactItem[];
  extra?: readonly TransactEntry[];
}

/** A product revision as the store writes it: counted out of or back into the listing when `deleted` changes. */
function storedRevision(current: ProductRecord, { next, events, extra = [] }: ProductRevision): Revision<ProductRecord> {
  const scope = { accountId: current.account_id, mode: current.mode };
  const counter =
    next.deleted !== current.deleted
      ? [{ name: 'product.bucket-counter', item: bucketCounterWrite(products.partition(scope), current.seq, next.deleted ? -1 : 1) }]
      : [];
  return { next, extra: [...counter, ...namedEntries('product.events', events), ...extra] };
}

/** Writes `revision` if nobody changed the product since `current` was read (a lost race throws `VersionConflictError`). */
export async function reviseProduct(current: ProductRecord, revision: ProductRevision): Promise<ProductRecord> {
  return products.revise(current, storedRevision(current, revision));
}

/**
 * Applies `change` to the product `read` answers (default: by id) over the version read, again
 * after a lost race; `undefined` from `change` writes nothing. Answers the product as it is now.
 */
export async function updateProduct(
  scope: RecordScope,
  productId: string,
  change: (current: ProductRecord) => Promise<ProductRevision | undefined>,
  read?: () => Promise<ProductRecord>,
): Promise<ProductRecord> {
  return products.update(
    scope,
    productId,
    async (current) => {
      const revision = await change(current);
      return revision ? storedRevision(current, revision) : { next: current, write: false };
    },
    read ? { read } : {},
  );
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
