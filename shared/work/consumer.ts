/**
 * The worker side of queued due work: an SQS handler (Lambda event source mapping in the
 * cloud, the local poller locally) built on Powertools' batch processor, reporting partial
 * batch failures. Each message names a due record and the claim it was queued under; the
 * worker runs the kind's handler under that claim, which records the attempt and schedules the
 * next run on failure (runner.ts). The worker first takes the claim over (a conditional
 * write), so of two deliveries of one message only one runs; a message whose claim is no
 * longer current (the lease lapsed and the sweep queued it again) is dropped. A relayed
 * message that shows there is nothing to do (`DueHandler.needsNothing`: fan-out whose event
 * types no active subscription wants) is only removed under its queued claim. Only a message
 * the worker cannot read at all fails its item, so the DLQ catches poison messages alone.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Platform } from '../platform/ports';
import { claimDue, finishQueued, takeOverClaim } from './due-work-store';
import { runHere, type DueHandler, type DueMessage } from './runner';

/** Reads a message body, or throws (a poison message). */
export function parseDueMessage(body: string): DueMessage {
  const message = JSON.parse(body) as Partial<DueMessage>;
  for (const field of ['kind', 'account_id', 'mode', 'ref'] as const) {
    if (typeof message[field] !== 'string' || !message[field]) throw new Error(`Due-work message without ${field}`);
  }
  if (message.claim_id !== null && (typeof message.claim_id !== 'string' || !message.claim_id)) throw new Error('Due-work message without claim_id');
  if (message.mode !== 'live' && message.mode !== 'test') throw new Error('Due-work message with an unknown mode');
  if (message.event_types !== undefined && !(Array.isArray(message.event_types) && message.event_types.every((type) => typeof type === 'string' && type))) {
    throw new Error('Due-work message with malformed event_types');
  }
  return message as DueMessage;
}

/** The SQS handler that runs queued due work of `handlers`' kinds. */
export function dueWorkConsumer(platform: Platform, handlers: readonly DueHandler[]) {
  const byKind = new Map(handlers.map((handler) => [handler.kind as string, handler]));
  const runOne = async (record: SQSRecord): Promise<void> => {
    const message = parseDueMessage(record.body);
    const handler = byKind.get(message.kind);
    if (!handler) throw new Error(`No worker for due work of kind ${message.kind}`);
    const scope = { accountId: message.account_id, mode: message.mode };
    // Relayed work that needs nothing done is removed under the queued claim, without taking it over.
    if (message.claim_id !== null && (await handler.needsNothing?.(platform, message))) {
      await finishQueued(handler.kind, scope, message.ref, message.claim_id);
      return;
    }
    const now = platform.clock.nowMs();
    // A wake-up claims the work only if it is due and nobody holds it; a relayed message takes its claim over.
    const claim =
      message.claim_id === null
        ? await claimDue(message.kind, scope, message.ref, now, handler.leaseMs)
        : await takeOverClaim(message.kind, scope, message.ref, message.claim_id, now, handler.leaseMs);
    if (claim) await runHere(platform, handler, claim);
  };
  return async (event: SQSEvent, context?: Context) => {
    const processor = new BatchProcessor(EventType.SQS);
    // The records of a batch run side by side (Powertools' default, stated so it stays): one
    // attempt that takes its full 30 s must not hold back the other nine messages' attempts.
    // Two messages of one piece of work are still run once: the claim decides (above).
    return processPartialResponse(event, runOne, processor, { ...(context ? { context } : {}), throwOnFullBatchFailure: false, processInParallel: true });
  };
}
