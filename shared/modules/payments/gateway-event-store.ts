/**
 * The Stripe webhook events an account's endpoint has taken (commerce.md §4.7: each Stripe
 * event id is handled once), one item per (account, mode, event id), written only if new and
 * removed by the table's TTL after 30 days (Stripe retries an event for three days).
 */
import { defineEntity, IS_NEW, type RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { writeOne } from '../../store/transact';

/** A taken webhook event. */
export interface GatewayEventRecord {
  event_id: string;
  account_id: string;
  mode: 'live' | 'test';
  type: string;
  created_ms: number;
  modified_ms: number;
}

const RETENTION_MS = 30 * 24 * 3600_000;

const gatewayEvents = defineEntity<GatewayEventRecord>({ name: 'gateway event', collection: 'gateway-events', scope: 'mode', idField: 'event_id',
  expiresAt: (event) => Math.floor((event.created_ms + RETENTION_MS) / 1000) });

/** Records the event once: true the first time its id is seen in `scope`, false for a replay. */
export async function takeGatewayEventOnce(scope: RecordScope, eventId: string, type: string, now: number): Promise<boolean> {
  const record: GatewayEventRecord = { event_id: eventId, account_id: scope.accountId, mode: scope.mode, type, created_ms: now, modified_ms: now };
  try {
    await writeOne(gatewayEvents.putEntry(record, { condition: IS_NEW, name: 'gateway-event.take' }));
    return true;
  } catch (error) {
    if (error instanceof TransactionRejectedError) return false;
    throw error;
  }
}
