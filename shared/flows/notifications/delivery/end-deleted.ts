/**
 * Ending the events of a deleted subscription (events.md §2.2): its `pending` and `retry`
 * events become `failed` with an attempt `subscription_deleted`, at delete time.
 *
 * The pass runs after the subscription's delete has committed and reuses the delivery worker
 * on each event: it claims the event's due record early (as the relay does) and runs the
 * automatic attempt in this process, which finds the subscription gone and writes the failure
 * and the due record's removal in one transaction. It is best effort and needs no record of its
 * own to be crash-safe: an event it does not reach (the process died, its time ran out, or an
 * attempt of the event was in flight and held the claim) keeps its due record, and the worker
 * fails it the same way at its next scheduled attempt.
 */
import { claimDue } from '../../../work/due-work-store';
import { runHere } from '../../../work/runner';
import { logger } from '../../../core/logging';
import type { Platform } from '../../../platform/ports';
import type { RecordScope } from '../../../store/entity';
import { openEventIdsOf } from '../../../modules/events';
import { EVENT_DELIVERY_LEASE_MS, eventDeliveryWork } from './deliver-event';

/** How long the pass may run inside the DELETE request (the API answers within 30 s). */
export const END_EVENTS_BUDGET_MS = 15_000;

/** How many events are ended at once. */
const CONCURRENCY = 8;

/**
 * Fails the open events of the deleted subscription `subscriptionId` now; answers how many it
 * ended. Call only after the delete committed (the worker fails an event only when the
 * subscription is gone).
 */
export async function endEventsOfDeletedSubscription(platform: Platform, scope: RecordScope, subscriptionId: string, budgetMs = END_EVENTS_BUDGET_MS): Promise<number> {
  const deadline = Date.now() + budgetMs;
  const pending = await openEventIdsOf(scope, subscriptionId);
  let ended = 0;
  const worker = async () => {
    for (let eventId = pending.shift(); eventId !== undefined && Date.now() < deadline; eventId = pending.shift()) {
      // Early: a retry scheduled hours away is ended now; a record another run holds is left to it.
      const claim = await claimDue('event-delivery', scope, eventId, platform.clock.nowMs(), EVENT_DELIVERY_LEASE_MS, true);
      if (claim && (await runHere(platform, eventDeliveryWork, claim))) ended++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (pending.length) logger.warn('Events of a deleted subscription left to the worker', { subscriptionId, left: pending.length });
  return ended;
}
