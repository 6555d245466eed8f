/**
 * Where shipping methods live: the entity (keyed by account, mode and client-chosen id,
 * listed in creation order through the bucketed offset index) and its versioned writes.
 */
import { atVersion, defineEntity, transact, type RecordScope } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import { bucketCounterWrite, listingKeys, readWholeListing, reserveSequence } from '../../store/offset-index';
import type { ShippingMethodRecord } from './shipping-methods';

const shippingMethods = defineEntity<ShippingMethodRecord>({ name: 'shipping method', collection: 'shipping_methods', scope: 'mode', idField: 'shipping_method_id',
  indexes: { gsi1: 'shipping methods by creation sequence (offset list)' } });

/** The key of a shipping method record. */
export function shippingMethodKey(scope: RecordScope, methodId: string): { pk: string; sk: string } {
  return shippingMethods.key(scope, methodId);
}

/** Reserves the next listing position of a new method, and the listing keys it gives the record. */
export async function reserveShippingMethodPosition(scope: RecordScope): Promise<{ seq: number; gsi1pk: string; gsi1sk: string }> {
  const partition = shippingMethods.partition(scope);
  const seq = await reserveSequence(partition);
  return { seq, ...listingKeys(partition, seq) };
}

/** Writes a new method with its bucket counter; a taken shipping_method_id answers 409 in_use. */
export async function insertShippingMethod(scope: RecordScope, record: ShippingMethodRecord): Promise<void> {
  await shippingMethods.create(record, { sequence: record.seq, scope });
}

/** Replaces `current` by `next` if nobody changed it meanwhile (else `VersionConflictError`). */
export async function saveShippingMethodRecord(current: ShippingMethodRecord, next: ShippingMethodRecord): Promise<void> {
  await shippingMethods.save(current, next);
}

/** Deletes a method and counts it out of its listing, if nobody changed it meanwhile (else `VersionConflictError`). */
export async function removeShippingMethod(current: ShippingMethodRecord): Promise<void> {
  const scope = { accountId: current.account_id, mode: current.mode };
  await transact([
    shippingMethods.deleteEntry(scope, current.shipping_method_id, {
      name: 'shipping method.delete',
      condition: atVersion(current.modified_ms),
      onConditionFailed: () => new VersionConflictError(`Shipping method ${current.shipping_method_id} changed concurrently`),
    }),
    { name: 'shipping method.bucket-counter', item: bucketCounterWrite(shippingMethods.partition(scope), current.seq, -1) },
  ]);
}

/** A shipping method by id, or undefined (strongly consistent). */
export async function findShippingMethodRecord(scope: RecordScope, methodId: string): Promise<ShippingMethodRecord | undefined> {
  return shippingMethods.find(scope, methodId);
}

/** Every shipping method of a scope in creation order. */
export async function allShippingMethods(scope: RecordScope): Promise<ShippingMethodRecord[]> {
  return (await readWholeListing(shippingMethods.partition(scope))) as unknown as ShippingMethodRecord[];
}
