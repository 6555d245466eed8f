/**
 * Where events (notifications) live: the event entity (mode-scoped), listed by date_created
 * through gsi1 (the cursor list of `GET /events`). An event is created once per occurrence and
 * subscription (its id is derived from both, so a repeated fan-out finds it taken) and then
 * changed only by attempts, each a versioned save.
 */
import { defineEntity, type RecordScope, type TransactEntry } from '../../store/entity';
import { listSortKey } from '../../store/keys';
import { equalityFilter } from '../../store/query';
import { EVENT_RETENTION_MS, type EventRecord } from './event-records';

const events = defineEntity<EventRecord>({ name: 'event', collection: 'events', scope: 'mode', idField: 'event_id',
  indexes: { gsi1: 'events by date_created (cursor list)', gsi2: 'events by date_modified (cursor list, date_type=date_modified)' } });

/** What an event needs besides its keys and list position. */
export type NewEvent = Omit<EventRecord, 'pk' | 'sk' | 'gsi1pk' | 'gsi1sk' | 'gsi2pk' | 'gsi2sk' | 'ttl'>;

/** The listing partition of a scope's events (what the cursor list reads). */
export function eventPartition(scope: RecordScope): string {
  return events.partition(scope);
}

/**
 * The entry that creates an event; refused (by `onTaken`'s error) when it exists, which is how
 * a repeated fan-out of the same occurrence learns it already made this one.
 */
export function newEventEntry(event: NewEvent, onTaken: () => Error): TransactEntry {
  const scope = { accountId: event.account_id, mode: event.mode };
  const record: EventRecord = {
    ...event,
    ...events.key(scope, event.event_id),
    gsi1pk: events.partition(scope),
    gsi1sk: listSortKey(event.created_ms, event.event_id),
    gsi2pk: events.partition(scope),
    gsi2sk: listSortKey(event.modified_ms, event.event_id),
    ttl: Math.floor((event.created_ms + EVENT_RETENTION_MS) / 1000),
  };
  return events.putEntry(record, { ifNew: true, name: 'event.create', onConditionFailed: onTaken });
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
  const listed: EventRecord = { ...next, gsi2pk: events.partition({ accountId: next.account_id, mode: next.mode }), gsi2sk: listSortKey(next.modified_ms, next.event_id) };
  return events.putEntry(listed, { ifVersion: current.modified_ms, name: 'event.save' });
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
