/**
 * The relay of fan-out work (architecture.md: "a relay that hands it to its queue after the
 * commit"). A change that records occurrences writes its fan-out work already claimed
 * (shared/commerce/events/emit.ts), and notes it here; the request pipeline, once the action
 * has answered, sends one message per noted piece to the `event-notifications` queue, whose
 * worker fans out under that claim. The request pays one queue send, not the fan-out.
 *
 * A note whose transaction failed names no record: the worker finds no claim and drops the
 * message. A send that fails, or a process that dies first, leaves the claim to lapse; the
 * sweep then runs the work.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DueMessage } from '../due-work/runner';
import { logger } from '../logging';
import type { Platform } from '../platform/ports';
import type { RecordScope } from '../store/entity';

/** The queue fan-out and delivery run on. */
export const EVENT_QUEUE = 'event-notifications';

/** How long a fan-out claim written with its change lasts before the sweep may take it. */
export const FAN_OUT_LEASE_MS = 60_000;

const noted = new AsyncLocalStorage<DueMessage[]>();

/** Notes claimed fan-out work for the relay of the request in progress (no-op outside one). */
export function noteFanOut(scope: RecordScope, ref: string, claimId: string): void {
  noted.getStore()?.push({ kind: 'event-fanout', account_id: scope.accountId, mode: scope.mode, ref, claim_id: claimId });
}

/** Runs `work` and then relays the fan-out work it wrote; answers what `work` answered. */
export async function withFanOutRelay<T>(platform: Platform, work: () => Promise<T>): Promise<T> {
  const messages: DueMessage[] = [];
  try {
    return await noted.run(messages, work);
  } finally {
    await Promise.all(
      messages.map((message) =>
        platform.queues.send(EVENT_QUEUE, JSON.stringify(message)).catch((error: unknown) =>
          logger.error('Fan-out could not be queued; the sweep will run it', { ref: message.ref, error: error as Error }),
        ),
      ),
    );
  }
}
