/**
 * Where shipping methods live: the entity (keyed by account, mode and client-chosen id,
 * listed in creation order through the bucketed offset index) and its versioned writes.
 */
import { bySequence, defineEntity, type Change, type RecordScope } from '../../store/entity';
import { bucketCounterWrite, readWholeListing, reserveSequence } from '../../store/offset-index';
import type { ShippingMethodRecord } from './shipping-methods';

const shippingMethods = defineEntity<ShippingMethodRecord>({ name: 'shipping method', collection: 'shipping_methods', scope: 'mode', idField: 'shipping_method_id',
  indexes: { gsi1: 'shipping methods by creation sequence (offset list)' },
  indexKeys: (method, partition) => ({ gsi1: bySequence(partition, method.seq) }) });

/** Reserves the listing position (sequence) of a new method. */
export async function reserveShippingMethodSequence(scope: RecordScope): Promise<number> {
  return reserveSequence(shippingMethods.partition(scope));
}

/** Writes a new method with its bucket counter; a taken shipping_method_id answers 409 in_use. */
export async function insertShippingMethod(scope: RecordScope, record: ShippingMethodRecord): Promise<void> {
  await shippingMethods.create(record, { sequence: record.seq, scope });
}

/** Applies `change` to the method `read` answers, over the version read and again after a lost race; answers it as written. */
export function updateShippingMethodRecord(scope: RecordScope, methodId: string, change: Change<ShippingMethodRecord>, read: () => Promise<ShippingMethodRecord>): Promise<ShippingMethodRecord> {
  return shippingMethods.update(scope, methodId, change, { read });
}

/** Deletes the method `read` answers and counts it out of its listing, over the version read (again after a lost race). */
export async function removeShippingMethod(scope: RecordScope, methodId: string, read: () => Promise<ShippingMethodRecord>): Promise<void> {
  await shippingMethods.remove(
    scope,
    methodId,
    (current) => ({ extra: [{ name: 'shipping method.bucket-counter', item: bucketCounterWrite(shippingMethods.partition(scope), current.seq, -1) }] }),
    { read },
  );
}

/** A shipping method by id, or undefined (strongly consistent). */
export async function findShippingMethodRecord(scope: RecordScope, methodId: string): Promise<ShippingMethodRecord | undefined> {
  return shippingMethods.find(scope, methodId);
}

/** Every shipping method of a scope in creation order. */
export async function allShippingMethods(scope: RecordScope): Promise<ShippingMethodRecord[]> {
  return (await readWholeListing(shippingMethods.partition(scope))) as unknown as ShippingMethodRecord[];
}
