/**
 * Event emission (events.md §7, commerce.md §14): every event is a record written in the same
 * transaction as the change it reports, so an event exists exactly when its change does.
 * Delivery to subscriptions is a later capability; these records are what it will deliver.
 */
import type { TransactItem } from '../identity';
import { eventTypeEntry, type EventResource, type EventType } from './catalog';
import { newId } from '../../core/ids';
import type { RecordScope } from '../../store/records';
import { dueEntry } from '../../work/due-work-store';
import { FAN_OUT_LEASE_MS, noteFanOut } from '../../work/relay';
import type { TransactEntry } from '../../store/transact';
import { newEventEntry } from './occurrence-store';

/**
 * What an event is about: a catalog type and the resource its `data` is, which the catalog
 * fixes per type (`{ type: 'payment:completed', resource: 'order' }` fails the compiler).
 * `EventSpec` alone is the union over every type.
 */
export type EventSpec<T extends EventType = EventType> = T extends EventType ? { type: T; resource: EventResource<T>; id: string; record: unknown } : never;

/** A spec whose type was widened to `string` before it reached `eventWrites` (checked at run time). */
interface WidenedEventSpec {
  type: string;
  resource: string;
  id: string;
  /** The resource's stored record as this change writes it (what notifications show). */
  record: unknown;
}

/**
 * The specs `eventWrites` accepts: catalog specs, checked by the compiler; a list whose types
 * were already widened to `string` (a variable declared without `EventSpec[]`) is let through
 * and checked against the catalog when written. Prefer annotating such lists `EventSpec[]`.
 */
type CheckedSpecs<Specs extends readonly WidenedEventSpec[]> = string extends Specs[number]['type'] ? Specs : readonly EventSpec[];

/**
 * The transaction items that record `events` as occurrences (one Put each, built by the
 * occurrence store), then one due-work item that fans them out to the matching subscriptions
 * (shared/flows/notifications/fan-out.ts) after the commit: the change, its occurrences and the work that
 * delivers them are written together, so a crash right after the commit loses nothing.
 */
export function eventWrites<const Specs extends readonly WidenedEventSpec[]>(scope: RecordScope, events: CheckedSpecs<Specs>, now: number): TransactItem[] {
  for (const event of events) {
    const entry = eventTypeEntry(event.type);
    if (!entry) throw new Error(`Unknown event type ${event.type}`);
    if (entry.resource !== event.resource) throw new Error(`Event ${event.type} carries a ${entry.resource}, not a ${event.resource}`);
  }
  if (!events.length) return [];
  const ids = events.map(() => newId());
  return [...events.map((event, index) => newEventEntry(scope, ids[index]!, event, now).item), fanOutEntry(scope, ids, now, events.map((event) => event.type)).item];
}

/**
 * The due work that fans the occurrences `ids` (of `types`) out (its ref lists them,
 * comma-separated), written claimed so the request's relay can queue it at once
 * (../../events/fan-out-relay); the message names the types, so a worker that finds no
 * subscription for any of them finishes without reading the occurrences.
 */
export function fanOutEntry(scope: RecordScope, ids: readonly string[], now: number, types: readonly string[]): TransactEntry {
  const ref = ids.join(',');
  const claimId = newId();
  noteFanOut(scope, ref, claimId, types);
  return dueEntry('event-fanout', scope, ref, now + FAN_OUT_LEASE_MS, now, claimId);
}

/** The same as `eventWrites`, as named transaction entries (`event.<type>`, then `due.event-fanout`). */
export function eventEntries(scope: RecordScope, events: readonly EventSpec[], now: number): TransactEntry[] {
  return eventWrites(scope, events, now).map((item, index) => ({ name: index < events.length ? `event.${events[index]!.type}` : 'due.event-fanout', item }));
}
