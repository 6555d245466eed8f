/**
 * The event resource (events.md §7): one notification of one occurrence for one subscription,
 * with its body rendered once when it was made, its status (§6.2) and its attempt log. This file
 * holds the record's shape and its REST declaration; `./event-store` the only code that knows
 * its keys and conditions.
 */
import { attemptsJson, type AttemptLogEntry } from '../../outbound/attempt';
import type { RequestErrorCode } from '../../outbound/errors';
import { declareResource } from '../../rest/declarations';
import type { RecordScope } from '../../store/entity';


/** The formats a notification body is rendered in (events.md §4). */
export type NotificationFormat = 'json' | 'xml' | 'html';

/** §6.2. */
export type EventStatus = 'pending' | 'delivered' | 'retry' | 'failed';

/** Why an attempt failed (§7.1). */
export type AttemptErrorCode = RequestErrorCode | 'gone' | 'email_rejected' | 'function_error' | 'function_not_found' | 'subscription_deleted';

/** One delivery attempt (§7.1), as stored. */
export type DeliveryAttempt = AttemptLogEntry<AttemptErrorCode>;

/** The request of the last attempt, secrets already replaced by `[redacted]` (`debug=true`). */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A stored event. */
export interface EventRecord {
  event_id: string;
  account_id: string;
  mode: RecordScope['mode'];
  type: string;
  /** The occurrence's id: shared by every notification of it. */
  fingerprint: string;
  event_subscription_id: string;
  method: 'http' | 'email';
  format: NotificationFormat;
  /** The notification's data object (always JSON). */
  data: Record<string, unknown>;
  /** The body, rendered once when the event was made and sent byte for byte on every attempt. */
  body: string;
  content_type: string;
  status: EventStatus;
  /** Automatic attempts made (the schedule counts these). */
  automatic_attempts: number;
  /** Every attempt made, automatic and manual. */
  attempts_count: number;
  /** The last 50 attempts, oldest first. */
  attempts: DeliveryAttempt[];
  last_attempt_ms: number | null;
  next_attempt_ms: number | null;
  delivered_ms: number | null;
  last_request: RecordedRequest | null;
  /**
   * The validated W3C `traceparent` of the request whose change the event reports, if it carried
   * one (kept from the fan-out's due work): every attempt sends the same trace id with a parent
   * id of its own. Never shown by the API.
   */
  traceparent?: string;
  /** Listed by date_created and, moved by every save, by date_modified (`date_type=date_modified`); removed 30 days after creation (§6.2, the store's TTL). */
  created_ms: number;
  modified_ms: number;
}

/** How many attempts an event keeps in its log. */
export const KEPT_ATTEMPTS = 50;

/** How long events are kept (§6.2). */
export const EVENT_RETENTION_MS = 30 * 24 * 3600_000;

/** The path of an event under the API root. */
export function eventPath(eventId: string): string {
  return `events/${encodeURIComponent(eventId)}`;
}

/** The event declaration (REST conventions engine). */
export const eventDeclaration = declareResource<EventRecord>({
  name: 'event',
  collection: 'events',
  idField: 'event_id',
  permission: 'events',
  scope: 'mode',
  links: { event_subscription: 'event_subscription' },
  formatted: { dates: ['date_last_delivery_attempt', 'date_next_delivery_attempt', 'date_delivered', 'date_created', 'date_modified'] },
  idOf: (stored) => stored.event_id,
  toJson(stored, context) {
    return {
      object: 'event',
      url: context.url(eventPath(stored.event_id)),
      event_id: stored.event_id,
      type: stored.type,
      fingerprint: stored.fingerprint,
      test: stored.mode === 'test',
      account_id: stored.account_id,
      status: stored.status,
      event_subscription: context.url(`event_subscriptions/${encodeURIComponent(stored.event_subscription_id)}`),
      method: stored.method,
      format: stored.format,
      data: stored.data,
      attempts_count: stored.attempts_count,
      date_last_delivery_attempt: stored.last_attempt_ms === null ? null : context.date(stored.last_attempt_ms),
      date_next_delivery_attempt: stored.next_attempt_ms === null ? null : context.date(stored.next_attempt_ms),
      date_delivered: stored.delivered_ms === null ? null : context.date(stored.delivered_ms),
      attempts: attemptsJson(stored.attempts, context),
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
    };
  },
});
