/**
 * Where event subscriptions live: the entity (keyed by account, mode and generated id, listed in
 * creation order through the bucketed offset index) and its versioned writes. The secret
 * properties arrive here already sealed (`secrets_sealed`); the store never sees them in clear.
 */
import { bySequence, defineEntity, type Change, type RecordScope } from '../../../store/entity';
import { bucketCounterWrite, readWholeListing, reserveSequence } from '../../../store/offset-index';
import type { EventSubscriptionRecord } from './event-subscriptions';

const subscriptions = defineEntity<EventSubscriptionRecord>({ name: 'event subscription', collection: 'event_subscriptions', scope: 'mode', idField: 'event_subscription_id',
  indexes: { gsi1: 'event subscriptions by creation sequence (offset list)' },
  indexKeys: (subscription, partition) => ({ gsi1: bySequence(partition, subscription.seq) }) });

/** The key of an event subscription record. */
export function eventSubscriptionKey(scope: RecordScope, subscriptionId: string): { pk: string; sk: string } {
  return subscriptions.key(scope, subscriptionId);
}

/** The listing partition of a scope's subscriptions (what the offset list reads). */
export function eventSubscriptionPartition(scope: RecordScope): string {
  return subscriptions.partition(scope);
}

/** Reserves the listing position (sequence) of a new subscription. */
export async function reserveEventSubscriptionSequence(scope: RecordScope): Promise<number> {
  return reserveSequence(subscriptions.partition(scope));
}

/** Writes a new subscription with its bucket counter (the id is generated, so it is new). */
export async function insertEventSubscription(scope: RecordScope, record: EventSubscriptionRecord): Promise<void> {
  await subscriptions.create(record, { sequence: record.seq, scope });
}

/** Applies `change` to a subscription over the version read, again after a lost race; answers what the change answers. */
export function updateEventSubscriptionRecord<A>(scope: RecordScope, subscriptionId: string, change: Change<EventSubscriptionRecord, A>): Promise<A | EventSubscriptionRecord> {
  return subscriptions.update(scope, subscriptionId, change);
}

/** Deletes a subscription and counts it out of its listing, over the version read (again after a lost race). */
export async function removeEventSubscription(scope: RecordScope, subscriptionId: string): Promise<void> {
  await subscriptions.remove(scope, subscriptionId, (current) => ({
    extra: [{ name: 'event subscription.bucket-counter', item: bucketCounterWrite(subscriptions.partition(scope), current.seq, -1) }],
  }));
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
