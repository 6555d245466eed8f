/**
 * Queued due work: the relay and the sweep hand claimed records to the kind's queue, and the
 * batch-processor worker runs them under the queued claim; a stale claim's message is dropped,
 * a failure is rescheduled on the record (not redelivered), and only a poison message fails
 * its batch item.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseDueMessage, dueWorkConsumer } from '../../shared/work/consumer';
import { claimDue, dueEntry, findDue, finishEntry, type DueKind } from '../../shared/work/due-work-store';
import { runNow, sweepDue, type DueHandler } from '../../shared/work/runner';
import { writeOne } from '../../shared/store/transact';
import { Harness, useEmulatedTable } from '../local/fixtures/dynamo-harness';
import { testPlatform } from '../support/platform';
import { ManualClock } from '../../infra/local/manual-clock';

const harness = new Harness();
const T0 = Date.parse('2026-11-23T09:00:00Z');
const clock = new ManualClock(T0);
useEmulatedTable(harness);

const scope = { accountId: 'ACCTQ', mode: 'live' as const };
// A queued kind of its own, so the platform's kinds are untouched.
const KIND = 'queued-test' as DueKind;
const sqsEvent = (bodies: string[]): SQSEvent => ({ Records: bodies.map((body, index) => ({ messageId: `m${index}`, body }) as SQSEvent['Records'][number]) });

function queuedHandler(outcomes: Array<'ok' | 'fail'>, ran: string[]): DueHandler {
  return {
    kind: KIND,
    leaseMs: 60_000,
    queue: 'event-notifications',
    async run(_platform, claim) {
      ran.push(claim.record.ref);
      if (outcomes.shift() === 'fail') throw new Error('receiver down');
      await writeOne(finishEntry(claim));
    },
  };
}

describe('queued due work', () => {
  it('is queued by the relay with its claim, and the worker runs it once under that claim', async () => {
    const platform = testPlatform({ clock });
    const ran: string[] = [];
    const handler = queuedHandler(['ok'], ran);
    await writeOne(dueEntry(KIND, scope, 'Q1', T0 + 60_000, T0));
    expect(await runNow(platform, handler, scope, 'Q1')).toBe(true);
    expect(platform.queued).toHaveLength(1);
    expect(platform.queued[0]!.queue).toBe('event-notifications');
    expect(parseDueMessage(platform.queued[0]!.body)).toMatchObject({ kind: KIND, account_id: 'ACCTQ', mode: 'live', ref: 'Q1' });
    expect(ran).toEqual([]);
    const consume = dueWorkConsumer(platform, [handler]);
    // Delivered twice (at-least-once): runs once.
    const result = await consume(sqsEvent([platform.queued[0]!.body, platform.queued[0]!.body]));
    expect(result.batchItemFailures).toEqual([]);
    expect(ran).toEqual(['Q1']);
    expect(await findDue(KIND, scope, 'Q1')).toBeUndefined();
  });

  it('drops a message whose claim was passed on, and reschedules a failure on the record instead of failing the message', async () => {
    const platform = testPlatform({ clock });
    const ran: string[] = [];
    const handler = queuedHandler(['fail', 'ok'], ran);
    clock.set(T0 + 10 * 60_000);
    const now = T0 + 10 * 60_000;
    await writeOne(dueEntry(KIND, scope, 'Q2', now, now));
    const stale = await claimDue(KIND, scope, 'Q2', now, 60_000);
    const staleMessage = JSON.stringify({ kind: KIND, account_id: 'ACCTQ', mode: 'live', ref: 'Q2', claim_id: stale!.claimId });
    // The lease lapsed; the sweep claims and queues it again.
    expect(await sweepDue(platform, [handler], now + 61_000)).toBe(1);
    const fresh = platform.queued.at(-1)!.body;
    const consume = dueWorkConsumer(platform, [handler]);
    expect((await consume(sqsEvent([staleMessage]))).batchItemFailures).toEqual([]);
    expect(ran).toEqual([]);
    expect((await consume(sqsEvent([fresh]))).batchItemFailures).toEqual([]);
    expect(ran).toEqual(['Q2']);
    expect(await findDue(KIND, scope, 'Q2')).toMatchObject({ claim_id: null, last_failure: 'receiver down', attempts: 2 });
  });

  it('fails only the items it cannot read (poison messages go to the DLQ)', async () => {
    const platform = testPlatform({ clock });
    const consume = dueWorkConsumer(platform, [queuedHandler([], [])]);
    const result = await consume(sqsEvent(['{not json', JSON.stringify({ kind: KIND, account_id: 'A', mode: 'prod', ref: 'R', claim_id: 'C' }), JSON.stringify({ kind: 'unknown', account_id: 'A', mode: 'live', ref: 'R', claim_id: 'C' })]));
    expect(result.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(['m0', 'm1', 'm2']);
    expect(() => parseDueMessage(JSON.stringify({ kind: KIND }))).toThrow(/without account_id/);
  });

  it('runs a wake-up (no claim) only when its work is due and unclaimed', async () => {
    const platform = testPlatform({ clock });
    const ran: string[] = [];
    const handler = queuedHandler(['ok', 'ok'], ran);
    const now = T0 + 30 * 60_000;
    clock.set(now);
    const wakeUp = (ref: string) => JSON.stringify({ kind: KIND, account_id: 'ACCTQ', mode: 'live', ref, claim_id: null });
    const consume = dueWorkConsumer(platform, [handler]);
    // Not due yet: nothing runs, and the message is not failed (the sweep or a later wake-up runs it).
    await writeOne(dueEntry(KIND, scope, 'W1', now + 60_000, now));
    expect((await consume(sqsEvent([wakeUp('W1')]))).batchItemFailures).toEqual([]);
    expect(ran).toEqual([]);
    // Held by a claim: nothing runs either.
    await writeOne(dueEntry(KIND, scope, 'W2', now, now));
    expect(await claimDue(KIND, scope, 'W2', now, 60_000)).toBeDefined();
    expect((await consume(sqsEvent([wakeUp('W2')]))).batchItemFailures).toEqual([]);
    expect(ran).toEqual([]);
    // Due and free: it runs once, however often the wake-up arrives.
    clock.set(now + 60_000);
    expect((await consume(sqsEvent([wakeUp('W1'), wakeUp('W1')]))).batchItemFailures).toEqual([]);
    expect(ran).toEqual(['W1']);
    expect(await findDue(KIND, scope, 'W1')).toBeUndefined();
    // A claim id that is neither a string nor null is a poison message.
    expect(() => parseDueMessage(JSON.stringify({ kind: KIND, account_id: 'A', mode: 'live', ref: 'R', claim_id: 5 }))).toThrow(/without claim_id/);
  });
  it('runs the messages of a batch side by side: one that never ends holds back none of the other nine', async () => {
    const platform = testPlatform({ clock });
    const now = T0 + 60 * 60_000;
    clock.set(now);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const handler: DueHandler = {
      kind: KIND,
      leaseMs: 60_000,
      queue: 'license-requests',
      async run(_platform, claim) {
        started.push(claim.record.ref);
        // A license script that does not answer (until the test lets it).
        if (claim.record.ref === 'P0') await released;
        await writeOne(finishEntry(claim));
      },
    };
    const refs = Array.from({ length: 10 }, (_, n) => `P${n}`);
    for (const ref of refs) await writeOne(dueEntry(KIND, scope, ref, now, now));
    const wakeUp = (ref: string) => JSON.stringify({ kind: KIND, account_id: 'ACCTQ', mode: 'live', ref, claim_id: null });
    const consume = dueWorkConsumer(platform, [handler]);
    const batch = consume(sqsEvent(refs.map(wakeUp)));
    const by = Date.now() + 10_000;
    const othersDone = async () => (await Promise.all(refs.slice(1).map((ref) => findDue(KIND, scope, ref)))).every((record) => record === undefined);
    while (!(await othersDone()) && Date.now() < by) await new Promise((resolve) => setTimeout(resolve, 10));
    // The nine finished while P0's run is still in flight.
    expect(await othersDone()).toBe(true);
    expect(started.sort()).toEqual([...refs].sort());
    expect(await findDue(KIND, scope, 'P0')).toMatchObject({ claim_id: expect.any(String) });
    release();
    expect((await batch).batchItemFailures).toEqual([]);
    expect(await findDue(KIND, scope, 'P0')).toBeUndefined();
  });
});
