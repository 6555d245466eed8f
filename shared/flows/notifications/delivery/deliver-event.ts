/**
 * Automatic delivery of events (events.md §6): due work of kind `event-delivery` (one record
 * per event, ref = event id) run by the `event-notifications` queue's worker. Each run makes one
 * attempt under the due record's claim, then writes in ONE transaction the event's new state
 * (attempt log, status, next attempt time) and the due record's outcome: removed when nothing
 * more is scheduled (delivered, 410, schedule over, subscription deleted), or moved to the next
 * attempt's time. A process that dies anywhere before that transaction leaves the record
 * claimed; its lease lapses and the sweep queues it again (the attempt is made again: delivery
 * is at least once). The wait between attempts is carried by the due record's time, which the
 * sweep (every minute) hands to the queue when due; no SQS delay or visibility is used for it.
 *
 * Creating events (fan-out) writes `scheduleEventDelivery(event).entry` in the transaction that
 * creates the event and calls `.relay(platform)` after it commits.
 */
import { dueEntry, finishEntry, rescheduleEntry, type DueClaim } from '../../../work/due-work-store';
import { runNow, wakeUpAt, type DueHandler } from '../../../work/runner';
import { logger } from '../../../core/logging';
import type { Platform } from '../../../platform/ports';
import { RecordNotFoundError, TransactionRejectedError } from '../../../store/errors';
import type { RecordScope } from '../../../store/entity';
import { transact, writeOne, type TransactEntry } from '../../../store/transact';
import { KEPT_ATTEMPTS, type DeliveryAttempt, type EventRecord, type EventStatus, type RecordedRequest, eventSaveEntry, findEvent, openSubscription, readEventSubscription, type EventSubscriptionRecord } from '../../../modules/events';
import { attemptDelivery, AUTOMATIC_TIMEOUT_MS, subscriptionDeletedAttempt } from './attempt';
import { nextAttemptAt } from './schedule';

/** The queue that runs event deliveries (shared/app/queues.ts). */
export const EVENT_DELIVERY_QUEUE = 'event-notifications';

/**
 * How long a claim on an event's delivery lasts: the time in the queue plus one attempt (30 s).
 * A claim that lapses (the worker died, or the queue was slow) is queued again by the sweep.
 */
export const EVENT_DELIVERY_LEASE_MS = 5 * 60_000;

/** The scope of an event. */
export function eventScope(event: Pick<EventRecord, 'account_id' | 'mode'>): RecordScope {
  return { accountId: event.account_id, mode: event.mode };
}

/** The subscription of an event, or undefined when it was deleted. */
export async function findSubscriptionOf(event: EventRecord): Promise<EventSubscriptionRecord | undefined> {
  try {
    return await readEventSubscription(eventScope(event), event.event_subscription_id);
  } catch (error) {
    if (error instanceof RecordNotFoundError) return undefined;
    throw error;
  }
}

/** What one attempt changes on the event: the log (last 50), the counts, the dates and the request. */
export function withAttempt(event: EventRecord, attempt: DeliveryAttempt, request: RecordedRequest | null, nowMs: number): EventRecord {
  return {
    ...event,
    attempts: [...event.attempts, attempt].slice(-KEPT_ATTEMPTS),
    attempts_count: event.attempts_count + 1,
    last_attempt_ms: attempt.date_ms,
    last_request: request ?? event.last_request,
    // The save is versioned by modified_ms: it must move even within one millisecond.
    modified_ms: Math.max(nowMs, event.modified_ms + 1),
  };
}

/** The state after an automatic attempt (§6.2) and when the next one is due (null: none). */
export function afterAutomaticAttempt(event: EventRecord, attempt: DeliveryAttempt, nowMs: number, random: () => number): { status: EventStatus; nextMs: number | null } {
  if (attempt.success) return { status: 'delivered', nextMs: null };
  if (attempt.error?.code === 'gone' || attempt.error?.code === 'subscription_deleted') return { status: 'failed', nextMs: null };
  const nextMs = nextAttemptAt(event.automatic_attempts + 1, nowMs, random);
  return nextMs === null ? { status: 'failed', nextMs: null } : { status: 'retry', nextMs };
}

/** A claim another run took over meanwhile (the lease lapsed): that run records its own attempt. */
function ignoreLostClaim(event: Pick<EventRecord, 'event_id'>) {
  return (error: unknown): void => {
    if (!(error instanceof TransactionRejectedError)) throw error;
    logger.warn('Event delivery outcome not recorded: the claim or the event changed meanwhile; the attempt will be made again', { eventId: event.event_id });
  };
}

/** The worker's options (tests fix the jitter). */
export interface EventDeliveryOptions {
  /** A number in [0, 1) for the schedule's jitter; `Math.random` by default. */
  random?: () => number;
}

/** The due handler of event deliveries, with its options. */
export function eventDeliveryHandler(options: EventDeliveryOptions = {}): DueHandler {
  const random = options.random ?? Math.random;
  return {
    kind: 'event-delivery',
    leaseMs: EVENT_DELIVERY_LEASE_MS,
    queue: EVENT_DELIVERY_QUEUE,
    run: (platform, claim, known) => deliverClaimed(platform, claim, known, random),
  };
}

/** Event delivery as due work (queue `event-notifications`). */
export const eventDeliveryWork: DueHandler = eventDeliveryHandler();

/** One automatic attempt of the claimed event, and its outcome written with the due record's. */
async function deliverClaimed(platform: Platform, claim: DueClaim, known: unknown, random: () => number): Promise<void> {
  const scope: RecordScope = { accountId: claim.record.account_id, mode: claim.record.mode };
  const held = known as EventRecord | undefined;
  const event = held?.event_id === claim.record.ref ? held : await findEvent(scope, claim.record.ref);
  if (!event || event.status === 'delivered' || event.status === 'failed') {
    // Nothing is scheduled (gone after 30 days, or ended by a manual retry or a lapsed hold): done.
    await writeOne(finishEntry(claim)).catch(ignoreLostClaim({ event_id: claim.record.ref }));
    return;
  }
  const subscription = await findSubscriptionOf(event);
  let next: EventRecord;
  let attempt: DeliveryAttempt;
  if (!subscription) {
    attempt = subscriptionDeletedAttempt(event, event.attempts_count + 1, 'automatic', platform.clock.nowMs());
    next = withAttempt(event, attempt, null, platform.clock.nowMs());
  } else {
    const outcome = await attemptDelivery(platform, event, await openSubscription(subscription, platform.secrets), {
      number: event.attempts_count + 1,
      trigger: 'automatic',
      timeoutMs: AUTOMATIC_TIMEOUT_MS,
    });
    attempt = outcome.attempt;
    next = withAttempt(event, attempt, outcome.request, platform.clock.nowMs());
  }
  const finishedMs = platform.clock.nowMs();
  const { status, nextMs } = afterAutomaticAttempt(event, attempt, finishedMs, random);
  next = {
    ...next,
    status,
    automatic_attempts: subscription ? event.automatic_attempts + 1 : event.automatic_attempts,
    next_attempt_ms: nextMs,
    delivered_ms: attempt.success ? finishedMs : event.delivered_ms,
  };
  const due: TransactEntry = nextMs === null ? finishEntry(claim) : rescheduleEntry(claim, nextMs, attempt.error?.message ?? null);
  await transact([eventSaveEntry(event, next), due]).catch(ignoreLostClaim(event));
  if (nextMs !== null) await wakeUpAt(platform, eventDeliveryWork, scope, event.event_id, nextMs - finishedMs);
}

/** What the fan-out writes and does to deliver a new event (see `scheduleEventDelivery`). */
export interface ScheduledDelivery {
  /** The due record, to write in the same transaction as `newEventEntry(event, ...)`. */
  entry: TransactEntry;
  /** After the commit: queues the first attempt at once (the relay); the sweep does it if this never runs. */
  relay(platform: Platform): Promise<boolean>;
}

/**
 * Makes a new event's first attempt due now (§6.1: as soon as the event exists).
 *
 * @example
 *   const delivery = scheduleEventDelivery(event);
 *   await transact([newEventEntry(event, onTaken), delivery.entry]);
 *   await delivery.relay(platform);
 */
export function scheduleEventDelivery(event: Pick<EventRecord, 'account_id' | 'mode' | 'event_id' | 'created_ms'>): ScheduledDelivery {
  const scope = eventScope(event);
  return {
    entry: dueEntry('event-delivery', scope, event.event_id, event.created_ms, event.created_ms),
    relay: (platform) => runNow(platform, eventDeliveryWork, scope, event.event_id),
  };
}
