/**
 * Event emission (events.md §7, commerce.md §14): every event is a record written in the same
 * transaction as the change it reports, so an event exists exactly when its change does.
 * Delivery to subscriptions is a later capability; these records are what it will deliver.
 */
import type { TransactItem } from '../../auth/auths';
import { newId } from '../../ids';
import { table } from '../../store/client';
import { listSortKey } from '../../store/keys';
import type { RecordScope } from '../../store/records';

/** What an event is about: its type and the resource its `data` is. */
export interface EventSpec {
  type: string;
  resource: string;
  id: string;
}

/** The transaction entries that record `events` (one Put each). */
export function eventWrites(scope: RecordScope, events: readonly EventSpec[], now: number): TransactItem[] {
  const partition = `${scope.accountId}#${scope.mode}#events`;
  return events.map((event) => {
    const eventId = newId();
    return {
      Put: {
        TableName: table(),
        Item: {
          pk: `${partition}#${eventId}`,
          sk: 'record',
          event_id: eventId,
          account_id: scope.accountId,
          mode: scope.mode,
          type: event.type,
          data_resource: event.resource,
          data_id: event.id,
          status: 'created',
          created_ms: now,
          modified_ms: now,
          gsi1pk: partition,
          gsi1sk: listSortKey(now, eventId),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  });
}
