/**
 * Where events (notifications) live: the event entity (mode-scoped), listed by date_created
 * through gsi1 (the cursor list of `GET /events`) and by date_modified through gsi2, and
 * removed by the table's TTL 30 days after creation. An event is created once per occurrence and
 * subscription (its id is derived from both, so a repeated fan-out finds it taken) and then
 * changed only by attempts, each a versioned save.
 */
import { byDate, defineEntity, type RecordScope, type TransactEntry } from '../../store/entity';
import { equalityFilter } from '../../store/query';
import { EVENT_RETENTION_MS, type EventRecord } from './event-records';

const events = defineEntity<EventRecord>({ name: 'event', collection: 'events', scope: 'mode', idField: 'event_id',
  indexes: { gsi1: 'events by date_created (cursor list)', gsi2: 'events by date_modified (cursor list, date_type=date_modified)' },
  indexKeys: (event, partition) => ({ gsi1: byDate(partition, event.created_ms, event.event_id), gsi2: byDate(partition, event.modified_ms, event.event_id) }),
  expiresAt: (event) => Math.floor((event.created_ms + EVENT_RETENTION_MS) / 1000) });

/** What a new event is: the record (the store adds its keys, list positions and expiry). */
export type NewEvent = EventRecord;

/**
 * The entry that creates an event; refused (by `onTaken`'s error) when it exists, which is how
 * a repeated fan-out of the same occurrence learns it already made this one.
 */
export function newEventEntry(event: NewEvent, onTaken: () => Error): TransactEntry {
  return events.putEntry(event, { ifNew: true, name: 'event.create', onConditionFailed: onTaken });
}

/** An event by id, or undefined (strongly consistent). */
export async function findEvent(scope: RecordScope, eventId: string): Promise<EventRecord | undefined> {
  return events.find(scope, eventId);
}

/** An event by id; 404, or 400 token_type_mismatch when it exists in the other mode. */
export async function getEvent(scope: RecordScope, eventId: string): Promise<EventRecord> {
  return events.get(scope, eventId);
}

/** The entry that replaces `current` by `next` if nobody changed it meanwhile (an attempt's record). */
export function eventSaveEntry(current: EventRecord, next: EventRecord): TransactEntry {
  return events.putEntry(next, { ifVersion: current.modified_ms, name: 'event.save' });
}

/** The ids of a subscription's `pending` and `retry` events (what its delete ends). */
export async function openEventIdsOf(scope: RecordScope, subscriptionId: string): Promise<string[]> {
  const found = await events.query('gsi1', {
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: 'event_subscription_id = :subscription AND (#status = :pending OR #status = :retry)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': events.partition(scope), ':subscription': subscriptionId, ':pending': 'pending', ':retry': 'retry' },
    ProjectionExpression: 'event_id',
  });
  return found.map((event) => event.event_id);
}

/** What `GET /events` may filter on (§7.2), each an exact match. */
export interface EventFilters {
  status?: string;
  type?: string;
  event_subscription_id?: string;
  fingerprint?: string;
}

/**
 * Where the cursor list of a scope's events reads (shared/rest/cursor-list.ts `CursorSource`):
 * the listing partition, reads by id, and the filters as one FilterExpression.
 */
export function eventListSource(scope: RecordScope, filters: EventFilters) {
  const filter = equalityFilter({ ...filters });
  return {
    partition: events.partition(scope),
    idOf: (item: Record<string, unknown>) => item.event_id as string,
    find: async (id: string) => (await events.find(scope, id)) as unknown as Record<string, unknown> | undefined,
    ...(filter ? { filter } : {}),
  };
}
