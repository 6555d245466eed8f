/**
 * Running due work: at once by the process that caused it (the relay), or later by the sweep
 * (a scheduled job) for whatever a crashed process never finished. Every run is claimed first
 * (one runner at a time, a lease that lapses if the runner dies), and the handler's final
 * write removes the record in the same transaction as the work's own record (for example the
 * order's `confirmation_email: sent`). A run that fails is put back with backoff.
 *
 * Kinds whose work goes through a queue (event delivery, license requests) name it
 * (`queue`): the relay and the sweep then hand the claimed record to that queue, and the
 * queue's worker (consumer.ts, on Powertools' batch processor) runs it under the same claim.
 * Receives are not attempts: the attempt count and next run live on the record.
 */
import { noteQueued, withRelay } from './relay';
import { recordDueWorkLag } from '../core/metrics';
import { logger } from '../core/logging';
import type { Platform } from '../platform/ports';
import type { RecordScope } from '../store/entity';
import { claimDue, listDue, retryLater, type DueClaim, type DueKind } from './due-work-store';

/** What a kind of due work does. */
export interface DueHandler {
  kind: DueKind;
  /** How long a claim lasts: longer than one run can take (for a queued kind, than the queue's delivery). */
  leaseMs: number;
  /** The work queue (shared/app/queues.ts) that runs this kind; absent: the relay and sweep run it here. */
  queue?: string;
  /**
   * Does the work. Its final write must include `finishEntry(claim)` (or otherwise remove the
   * record); a throw puts the work back for a later run.
   */
  run(platform: Platform, claim: DueClaim, known?: unknown): Promise<void>;
  /**
   * For a relayed message (one with its claim): answers true when what the message says shows
   * there is nothing to do, checked without taking the claim over; the worker then only removes
   * the record under the queued claim (one write instead of a claim, the reads and a removal).
   * The answer must be one the run itself would reach from the same state.
   */
  needsNothing?(platform: Platform, message: DueMessage): Promise<boolean>;
}

/** Wait before run `attempt + 1`: 1, 2, 4 ... minutes, at most an hour. */
export function backoffMs(attempts: number): number {
  return Math.min(60 * 60_000, 60_000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * What a queued kind's message carries: which record, under which claim. A message without a
 * claim (`claim_id: null`) is a wake-up sent with a delay for work due then: the worker claims
 * the record only if it is due and unclaimed, so the sweep and the wake-up never both run it.
 */
export interface DueMessage {
  kind: DueKind;
  account_id: string;
  mode: RecordScope['mode'];
  ref: string;
  claim_id: string | null;
  /** Fan-out work: the types of the occurrences it names (see `DueHandler.needsNothing`). */
  event_types?: string[];
}

/** Hands claimed work to its kind's queue; answers true once it is on the queue. */
async function enqueueClaimed(platform: Platform, handler: DueHandler, claim: DueClaim): Promise<boolean> {
  const { record } = claim;
  const message: DueMessage = { kind: record.kind, account_id: record.account_id, mode: record.mode, ref: record.ref, claim_id: claim.claimId };
  // Inside a request, the relay sends it with the request's other queued work once it answered.
  if (noteQueued(handler.queue!, message)) return true;
  try {
    await platform.queues.send(handler.queue!, JSON.stringify(message));
    return true;
  } catch (error) {
    // The lease lapses and the sweep hands it over again.
    logger.error('Due work could not be queued; the sweep will retry', { kind: handler.kind, ref: record.ref, error: error as Error });
    return false;
  }
}

/**
 * Runs claimed work (with what the caller already read, if any), or queues it for a queued
 * kind; answers whether it finished (or was queued).
 */
export async function runClaimed(platform: Platform, handler: DueHandler, claim: DueClaim, known?: unknown): Promise<boolean> {
  if (handler.queue) return enqueueClaimed(platform, handler, claim);
  return runHere(platform, handler, claim, known);
}

/** Runs claimed work in this process; a failure puts it back with backoff. */
export async function runHere(platform: Platform, handler: DueHandler, claim: DueClaim, known?: unknown): Promise<boolean> {
  try {
    // A unit of work: what the run writes for a queue is relayed when it ends (./relay.ts).
    await withRelay(platform, () => handler.run(platform, claim, known));
    return true;
  } catch (error) {
    logger.error('Due work failed; it will run again', { kind: handler.kind, ref: claim.record.ref, attempts: claim.record.attempts, error: error as Error });
    await retryLater(claim, platform.clock.nowMs() + backoffMs(claim.record.attempts), (error as Error).message ?? String(error)).catch((retryError: unknown) =>
      logger.error('Due work could not be put back; its lease will lapse', { kind: handler.kind, ref: claim.record.ref, error: retryError as Error }),
    );
    return false;
  }
}

/**
 * The relay: the process that just committed the work runs it at once, before it is due,
 * handing over what it already holds (`known`, for example the order it just wrote) so the
 * handler need not read it again. If someone else holds the work, or it is done, nothing happens.
 */
export async function runNow(platform: Platform, handler: DueHandler, scope: RecordScope, ref: string, known?: unknown): Promise<boolean> {
  const claim = await claimDue(handler.kind, scope, ref, platform.clock.nowMs(), handler.leaseMs, true);
  return claim ? runClaimed(platform, handler, claim, known) : false;
}

/** The sweep: runs every due record of the handlers' kinds (at most `limit` per kind); answers how many finished. */
export async function sweepDue(platform: Platform, handlers: readonly DueHandler[], now = platform.clock.nowMs(), limit = 200): Promise<number> {
  let finished = 0;
  // How far behind the oldest due record is: one figure per sweep (0 when nothing waits), so a
  // sweep that stops running leaves the metric missing, which its alarm treats as breaching.
  let lagMs = 0;
  for (const handler of handlers) {
    for (const record of await listDue(handler.kind, now, limit)) {
      lagMs = Math.max(lagMs, now - record.next_ms);
      const scope = { accountId: record.account_id, mode: record.mode };
      const claim = await claimDue(handler.kind, scope, record.ref, now, handler.leaseMs);
      if (claim && (await runClaimed(platform, handler, claim))) finished++;
    }
  }
  recordDueWorkLag(lagMs);
  return finished;
}

/** The longest delay SQS gives a message (15 minutes). */
const MAX_MESSAGE_DELAY_MS = 900_000;

/**
 * Sends a delayed wake-up for queued work due again in `waitMs`, when that is within SQS's
 * 15-minute message delay (the 1, 5 and 15-minute waits of the retry schedule), so those runs
 * happen on time. Longer waits are the sweep's (every minute: inside their ±10 % jitter band);
 * so is a wake-up that fails to send.
 */
export async function wakeUpAt(platform: Platform, handler: DueHandler, scope: RecordScope, ref: string, waitMs: number): Promise<void> {
  if (!handler.queue || waitMs > MAX_MESSAGE_DELAY_MS) return;
  const message: DueMessage = { kind: handler.kind, account_id: scope.accountId, mode: scope.mode, ref, claim_id: null };
  await platform.queues
    .send(handler.queue, JSON.stringify(message), { delaySeconds: Math.max(0, Math.ceil(waitMs / 1000)) })
    .catch((error: unknown) => logger.error('The next run could not be queued; the sweep will run it', { kind: handler.kind, ref, error: error as Error }));
}
