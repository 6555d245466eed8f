/**
 * Where event subscriptions live: the entity (keyed by account, mode and generated id, listed in
 * creation order through the bucketed offset index) and its versioned writes. The secret
 * properties arrive here already sealed (`secrets_sealed`); the store never sees them in clear.
 */
import { atVersion, defineEntity, transact, type RecordScope } from '../../../store/entity';
import { VersionConflictError } from '../../../store/errors';
import { bucketCounterWrite, listingKeys, readWholeListing, reserveSequence } from '../../../store/offset-index';
import type { EventSubscriptionRecord } from './event-subscriptions';

const subscriptions = defineEntity<EventSubscriptionRecord>({ name: 'event subscription', collection: 'event_subscriptions', scope: 'mode', idField: 'event_subscription_id',
  indexes: { gsi1: 'event subscriptions by creation sequence (offset list)' } });

/** The key of an event subscription record. */
export function eventSubscriptionKey(scope: RecordScope, subscriptionId: string): { pk: string; sk: string } {
  return subscriptions.key(scope, subscriptionId);
}

/** The listing partition of a scope's subscriptions (what the offset list reads). */
export function eventSubscriptionPartition(scope: RecordScope): string {
  return subscriptions.partition(scope);
}

/** Reserves the next listing position of a new subscription, and the listing keys it gives the record. */
export async function reserveEventSubscriptionPosition(scope: RecordScope): Promise<{ seq: number; gsi1pk: string; gsi1sk: string }> {
  const partition = subscriptions.partition(scope);
  const seq = await reserveSequence(partition);
  return { seq, ...listingKeys(partition, seq) };
}

/** Writes a new subscription with its bucket counter (the id is generated, so it is new). */
export async function insertEventSubscription(scope: RecordScope, record: EventSubscriptionRecord): Promise<void> {
  await subscriptions.create(record, { sequence: record.seq, scope });
}

/** Replaces `current` by `next` if nobody changed it meanwhile (else `VersionConflictError`). */
export async function saveEventSubscriptionRecord(current: EventSubscriptionRecord, next: EventSubscriptionRecord): Promise<void> {
  await subscriptions.save(current, next);
}

/** Deletes a subscription and counts it out of its listing, if nobody changed it meanwhile (else `VersionConflictError`). */
export async function removeEventSubscription(current: EventSubscriptionRecord): Promise<void> {
  const scope = { accountId: current.account_id, mode: current.mode };
  await transact([
    subscriptions.deleteEntry(scope, current.event_subscription_id, {
      name: 'event subscription.delete',
      condition: atVersion(current.modified_ms),
      onConditionFailed: () => new VersionConflictError(`Event subscription ${current.event_subscription_id} changed concurrently`),
    }),
    { name: 'event subscription.bucket-counter', item: bucketCounterWrite(subscriptions.partition(scope), current.seq, -1) },
  ]);
}

/** A subscription by id; 404, or 400 token_type_mismatch when it exists in the other mode. */
export async function getEventSubscriptionRecord(scope: RecordScope, subscriptionId: string): Promise<EventSubscriptionRecord> {
  return subscriptions.get(scope, subscriptionId);
}

/** A subscription by id, or undefined (strongly consistent). */
export async function findEventSubscriptionRecord(scope: RecordScope, subscriptionId: string): Promise<EventSubscriptionRecord | undefined> {
  return subscriptions.find(scope, subscriptionId);
}

/** Every subscription of a scope in creation order (subscriptions per account are few: a handful to dozens). */
export async function allEventSubscriptions(scope: RecordScope): Promise<EventSubscriptionRecord[]> {
  return (await readWholeListing(subscriptions.partition(scope))) as unknown as EventSubscriptionRecord[];
}
