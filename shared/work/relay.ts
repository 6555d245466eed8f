/**
 * The relay: a unit of work that hands the claimed queued work it wrote to its queues after the
 * commit (architecture.md: "a relay that hands it to its queue after the commit"): fan-out work,
 * the order confirmation email, license requests. Every runner opens one around what it runs:
 * the HTTP dispatch around an action, the queue consumer and the sweep around each piece of due
 * work (work/runner.ts `runHere`). A change that records occurrences writes its fan-out work
 * already claimed (shared/modules/events/emit.ts) and notes it here; once the unit ends, one
 * message per noted piece goes to the `event-notifications` queue, whose worker fans out under
 * that claim. The request pays one queue send, not the fan-out, and work the sweep recovers
 * (a paid order whose process died) is relayed at once instead of waiting out its claim.
 *
 * A note whose transaction failed names no record: the worker finds no claim and drops the
 * message. A send that fails, or a process that dies first, leaves the claim to lapse; the
 * sweep then runs the work.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DueMessage } from './runner';
import { logger } from '../core/logging';
import type { Platform } from '../platform/ports';
import type { RecordScope } from '../store/entity';

/** The queue fan-out and delivery run on. */
export const EVENT_QUEUE = 'event-notifications';

/** How long a fan-out claim written with its change lasts before the sweep may take it. */
export const FAN_OUT_LEASE_MS = 60_000;

/** A claimed piece of work waiting for the relay: its queue and message. */
interface NotedWork {
  queue: string;
  message: DueMessage;
}

const noted = new AsyncLocalStorage<NotedWork[]>();

/** Notes claimed fan-out work for the relay of the unit of work in progress (no-op outside one). */
export function noteFanOut(scope: RecordScope, ref: string, claimId: string, types: readonly string[]): void {
  noteQueued(EVENT_QUEUE, { kind: 'event-fanout', account_id: scope.accountId, mode: scope.mode, ref, claim_id: claimId, event_types: [...new Set(types)] });
}

/**
 * Notes claimed work of any queued kind for the relay, which sends it together with the rest
 * once the unit of work ends; answers false outside one (the caller sends it itself).
 */
export function noteQueued(queue: string, message: DueMessage): boolean {
  const store = noted.getStore();
  if (!store) return false;
  store.push({ queue, message });
  return true;
}

/** Sends `messages` to `queue` (one message alone, several as a batch); what fails is logged and left to the sweep. */
async function relay(platform: Platform, queue: string, messages: readonly DueMessage[]): Promise<void> {
  const lost = (message: DueMessage, error: unknown) =>
    logger.error('Due work could not be queued; the sweep will run it', { kind: message.kind, ref: message.ref, error: error as Error });
  if (messages.length === 1) {
    await platform.queues.send(queue, JSON.stringify(messages[0])).catch((error: unknown) => lost(messages[0]!, error));
    return;
  }
  const bodies = messages.map((message) => JSON.stringify(message));
  const failed = new Set(await platform.queues.sendBatch(queue, bodies).catch(() => bodies));
  for (const [index, message] of messages.entries()) if (failed.has(bodies[index]!)) lost(message, new Error(`Not accepted by ${queue}`));
}

/** Runs `work` as a unit of work and then relays the queued work it wrote; answers what `work` answered. */
export async function withRelay<T>(platform: Platform, work: () => Promise<T>): Promise<T> {
  const pieces: NotedWork[] = [];
  try {
    return await noted.run(pieces, work);
  } finally {
    // One batch per queue, all at once: one queue round trip for the request, however much it wrote.
    const byQueue = new Map<string, DueMessage[]>();
    for (const { queue, message } of pieces) byQueue.set(queue, [...(byQueue.get(queue) ?? []), message]);
    await Promise.all([...byQueue].map(([queue, messages]) => relay(platform, queue, messages)));
  }
}
