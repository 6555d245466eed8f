/**
 * The manual retry (events.md §7.3): one attempt now, in any status, logged with trigger
 * `manual`. Success delivers the event and cancels the scheduled automatic attempt; failure
 * leaves status and schedule as they were.
 *
 * One attempt of an event at a time: the retry holds the event's due record (claiming it, or
 * creating it claimed when nothing is scheduled), exactly as an automatic run does; an event
 * whose record someone holds answers 409 in_use. The attempt's record and the due record's
 * outcome (removed on success or when nothing was scheduled, put back at its old time on
 * failure) are one transaction. If the process dies in between, the hold's short lease lapses
 * and the sweep runs the record: an automatic attempt for a `pending`/`retry` event (made
 * early by at most the lease), nothing for a `delivered`/`failed` one.
 */
import { finishEntry, holdDue, rescheduleEntry, type DueHold } from '../../../work/due-work-store';
import { InUseError, InvalidStateError } from '../../../http/errors';
import type { Platform } from '../../../platform/ports';
import type { RecordScope } from '../../../store/entity';
import { transact, writeOne, type TransactEntry } from '../../../store/transact';
import { type EventRecord, eventSaveEntry, findEvent, getEvent, openSubscription } from '../../../modules/events';
import { attemptDelivery, MANUAL_TIMEOUT_MS, type AttemptOutcome } from './attempt';
import { findSubscriptionOf, withAttempt } from './deliver-event';

/** How long a manual retry holds the event: its attempt (25 s) and the writes around it. */
export const MANUAL_HOLD_MS = 60_000;

/** The manual retry's result: the event as saved and the attempt made. */
export interface ManualRetryResult {
  event: EventRecord;
  outcome: AttemptOutcome;
}

/** The due record's outcome of a manual attempt (see the file comment). */
function releaseEntry(hold: DueHold, delivered: boolean): TransactEntry {
  if (delivered || hold.dueMs === null) return finishEntry(hold.claim);
  return rescheduleEntry(hold.claim, hold.dueMs, hold.claim.record.last_failure);
}

/**
 * Makes one manual attempt of `eventId`. Throws 404 / 400 token_type_mismatch for an unknown
 * event, 422 invalid_state when its subscription was deleted, 409 in_use while another attempt
 * of it runs; otherwise answers the saved event and the attempt (the caller maps a failure to
 * 502 / 504).
 */
export async function retryEvent(platform: Platform, scope: RecordScope, eventId: string): Promise<ManualRetryResult> {
  const seen = await getEvent(scope, eventId);
  const subscription = await findSubscriptionOf(seen);
  if (!subscription) {
    throw new InvalidStateError(`The event subscription ${seen.event_subscription_id} of this event was deleted.`, { event_id: eventId, event_subscription_id: seen.event_subscription_id });
  }
  const hold = await holdDue('event-delivery', scope, eventId, platform.clock.nowMs(), MANUAL_HOLD_MS);
  if (!hold) throw new InUseError('An attempt of this event is in progress. Retry when it has finished.', { event_id: eventId });
  let recorded = false;
  try {
    // Read again under the hold: an automatic attempt may have finished since the first read.
    const event = (await findEvent(scope, eventId)) ?? seen;
    const outcome = await attemptDelivery(platform, event, await openSubscription(subscription, platform.secrets), {
      number: event.attempts_count + 1,
      trigger: 'manual',
      timeoutMs: MANUAL_TIMEOUT_MS,
    });
    const finishedMs = platform.clock.nowMs();
    const delivered = outcome.attempt.success;
    const next: EventRecord = {
      ...withAttempt(event, outcome.attempt, outcome.request, finishedMs),
      ...(delivered ? { status: 'delivered' as const, next_attempt_ms: null, delivered_ms: finishedMs } : {}),
    };
    await transact([eventSaveEntry(event, next), releaseEntry(hold, delivered)]);
    recorded = true;
    return { event: next, outcome };
  } finally {
    // Not recorded (a fault, or the event changed meanwhile): give the schedule back at once.
    if (!recorded) await writeOne(releaseEntry(hold, false)).catch(() => undefined);
  }
}
