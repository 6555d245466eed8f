/**
 * Where occurrences live (events.md: "something that happened in an account"): the occurrence
 * entity (mode-scoped), listed by date_created through gsi1. An occurrence is only ever written
 * in the transaction of the change it reports, so the store gives entries, never writes on its
 * own. The notifications made from it for each matching subscription are the `event` resource
 * (shared/flows/notifications/body); an occurrence's id is their `fingerprint`.
 */
import { byDate, defineEntity, IS_NEW, type RecordScope, type TransactEntry } from '../../store/entity';

/** A stored occurrence: what happened, to which resource. */
export interface OccurrenceRecord {
  event_id: string;
  account_id: string;
  mode: RecordScope['mode'];
  type: string;
  data_resource: string;
  data_id: string;
  /**
   * The resource's stored record as the change wrote it, so notifications show it "as it
   * stood when the occurrence happened" (events.md §1), whatever happens to it afterwards.
   */
  data_record: unknown;
  status: 'created';
  created_ms: number;
  modified_ms: number;
}

const occurrences = defineEntity<OccurrenceRecord>({ name: 'occurrence', collection: 'occurrences', scope: 'mode', idField: 'event_id',
  indexes: { gsi1: 'occurrences by date_created (operators, tests)' },
  indexKeys: (occurrence, partition) => ({ gsi1: byDate(partition, occurrence.created_ms, occurrence.event_id) }) });

/** The entry that records one event `eventId` about `resource` `dataId`, created at `now` (its id must be new). */
export function newEventEntry(scope: RecordScope, eventId: string, event: { type: string; resource: string; id: string; record: unknown }, now: number): TransactEntry {
  const record: OccurrenceRecord = {
    event_id: eventId,
    account_id: scope.accountId,
    mode: scope.mode,
    type: event.type,
    data_resource: event.resource,
    data_id: event.id,
    data_record: event.record,
    status: 'created',
    created_ms: now,
    modified_ms: now,
  };
  return occurrences.putEntry(record, { name: `event.${event.type}`, condition: IS_NEW });
}

/** Occurrences by id (strongly consistent; missing ones are left out). */
export async function findOccurrences(scope: RecordScope, ids: readonly string[]): Promise<OccurrenceRecord[]> {
  const found = await occurrences.findMany(scope, ids);
  return ids.flatMap((id) => found.get(id) ?? []);
}
