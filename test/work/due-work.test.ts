/**
 * The due-work mechanism against the local DynamoDB emulator: one claimer at a time, a lapsed
 * lease passes the work on, failures come back with backoff, and the confirmation email is
 * sent exactly once whatever step a process dies at (the outbox honours the de-duplication key).
 */
import { mkdtempSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { outboxEmail } from '../../infra/local/outbox';
import { claimDue, dueEntry, findDue, finishEntry, listDue, renewEntry, rescheduleEntry, retryLater, type DueKind } from '../../shared/work/due-work-store';
import { backoffMs, runNow, sweepDue, type DueHandler } from '../../shared/work/runner';
import { transact, writeOne } from '../../shared/store/transact';
import { TransactionRejectedError } from '../../shared/store/errors';
import { db, table } from '../../shared/store/client';
import { recordKey } from '../../shared/store/records';
import { Harness, useEmulatedTable } from '../local/fixtures/dynamo-harness';
import { testPlatform } from '../support/platform';
import { ManualClock } from '../../infra/local/manual-clock';

const harness = new Harness();
const scope = { accountId: 'ACCTDUE', mode: 'test' as const };
const T0 = Date.parse('2026-11-22T08:00:00Z');
const clock = new ManualClock(T0);

useEmulatedTable(harness);

describe('claims', () => {
  it('lets exactly one of many concurrent claimers hold due work', async () => {
    await writeOne(dueEntry('confirmation-email', scope, 'ONE', T0, T0));
    const claims = await Promise.all(Array.from({ length: 8 }, () => claimDue('confirmation-email', scope, 'ONE', T0 + 1, 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await findDue('confirmation-email', scope, 'ONE'))?.attempts).toBe(1);
  });

  it('does not let anyone but the relay claim work before it is due, and hides claimed work until its lease lapses', async () => {
    await writeOne(dueEntry('confirmation-email', scope, 'TWO', T0 + 300_000, T0));
    expect(await claimDue('confirmation-email', scope, 'TWO', T0, 60_000)).toBeUndefined();
    const relay = await claimDue('confirmation-email', scope, 'TWO', T0, 60_000, true);
    expect(relay).toBeDefined();
    // A second early claim (another request) is refused while the lease holds.
    expect(await claimDue('confirmation-email', scope, 'TWO', T0 + 1000, 60_000, true)).toBeUndefined();
    expect((await listDue('confirmation-email', T0 + 59_000, 100)).map((record) => record.ref)).not.toContain('TWO');
    // The relay died: once the lease lapsed the sweep sees it and can claim it.
    expect((await listDue('confirmation-email', T0 + 61_000, 100)).map((record) => record.ref)).toContain('TWO');
    const sweep = await claimDue('confirmation-email', scope, 'TWO', T0 + 61_000, 60_000);
    expect(sweep).toBeDefined();
    // The dead relay's finish no longer matches the claim: it cannot remove the sweep's work.
    await expect(writeOne(finishEntry(relay!))).rejects.toBeInstanceOf(TransactionRejectedError);
    await writeOne(finishEntry(sweep!));
    expect(await findDue('confirmation-email', scope, 'TWO')).toBeUndefined();
  });

  it('puts failed work back with backoff and counts the attempts', async () => {
    clock.set(T0 + 1_000_000);
    const start = clock.nowMs();
    await writeOne(dueEntry('payment-recovery', scope, 'FLAKY', start, start));
    let runs = 0;
    const flaky: DueHandler = {
      kind: 'payment-recovery',
      leaseMs: 60_000,
      async run(_platform, claim) {
        runs++;
        if (runs < 3) throw new Error(`failure ${runs}`);
        await writeOne(finishEntry(claim));
      },
    };
    const platform = testPlatform({ clock });
    expect(await sweepDue(platform, [flaky], start)).toBe(0);
    const afterOne = await findDue('payment-recovery', scope, 'FLAKY');
    expect(afterOne).toMatchObject({ attempts: 1, claim_id: null, last_failure: 'failure 1', next_ms: start + backoffMs(1) });
    expect(await sweepDue(platform, [flaky], start + backoffMs(1) - 1)).toBe(0);
    expect(runs).toBe(1);
    expect(await sweepDue(platform, [flaky], start + backoffMs(1))).toBe(0);
    expect(await sweepDue(platform, [flaky], start + backoffMs(1) + backoffMs(2))).toBe(1);
    expect(runs).toBe(3);
    expect(await findDue('payment-recovery', scope, 'FLAKY')).toBeUndefined();
    expect(backoffMs(1)).toBe(60_000);
    expect(backoffMs(20)).toBe(3_600_000);
  });

  it('runs work once when the relay and the sweep race for it', async () => {
    const at = clock.nowMs();
    await writeOne(dueEntry('confirmation-email', scope, 'RACE', at, at));
    const runs: string[] = [];
    const counting: DueHandler = { kind: 'confirmation-email', leaseMs: 60_000, run: async (_p, claim) => { runs.push(claim.record.ref); await transact([finishEntry(claim)]); } };
    const platform = testPlatform({ clock });
    await Promise.all([runNow(platform, counting, scope, 'RACE'), sweepDue(platform, [counting], at), runNow(platform, counting, scope, 'RACE')]);
    // (The sweep also finishes earlier tests' lapsed work; RACE itself ran once.)
    expect(runs.filter((ref) => ref === 'RACE')).toEqual(['RACE']);
    expect(await findDue('confirmation-email', scope, 'RACE')).toBeUndefined();
  });
});

describe('moving work to a later time', () => {
  const DAY_MS = 24 * 3600_000;
  /** The expiry (the table's TTL attribute, epoch seconds) the stored record carries. */
  const expiryOf = async (kind: DueKind, ref: string): Promise<number> => {
    const item = (await db().send(new GetCommand({ TableName: table(), Key: recordKey({ collection: 'due', scope: 'mode' }, scope, `${kind}:${ref}`) }))).Item;
    return item!.ttl as number;
  };
  /** 30 days past `ms`, in epoch seconds: how long due work is kept past its due time. */
  const keptPast = (ms: number) => Math.ceil(ms / 1000) + 30 * 24 * 3600;

  it('moves the expiry with the due time when claimed work is rescheduled, so work due months later is not removed first', async () => {
    const at = T0 + 10 * DAY_MS;
    await writeOne(dueEntry('event-delivery', scope, 'LATE', at, at));
    expect(await expiryOf('event-delivery', 'LATE')).toBe(keptPast(at));
    const claim = await claimDue('event-delivery', scope, 'LATE', at, 60_000);
    // A claim's lease end is when the work is due again should its claimer die: the expiry follows it too.
    expect(await expiryOf('event-delivery', 'LATE')).toBe(keptPast(at + 60_000));
    const later = at + 90 * DAY_MS;
    await writeOne(rescheduleEntry(claim!, later, 'the receiver is down'));
    expect(await findDue('event-delivery', scope, 'LATE')).toMatchObject({ next_ms: later, claim_id: null, attempts: 1, last_failure: 'the receiver is down' });
    expect(await expiryOf('event-delivery', 'LATE')).toBe(keptPast(later));
    // Found at its new time and not before.
    expect((await listDue('event-delivery', later - 1, 100)).map((record) => record.ref)).not.toContain('LATE');
    expect((await listDue('event-delivery', later, 100)).map((record) => record.ref)).toContain('LATE');
  });

  it('moves the expiry when failed work is retried later, and when renewed work starts afresh', async () => {
    const at = T0 + 20 * DAY_MS;
    await writeOne(dueEntry('subscription-renewal', scope, 'SUB', at, at));
    const first = await claimDue('subscription-renewal', scope, 'SUB', at, 60_000);
    const retryAt = at + 45 * DAY_MS;
    await retryLater(first!, retryAt, 'the gateway is down');
    expect(await expiryOf('subscription-renewal', 'SUB')).toBe(keptPast(retryAt));

    const second = await claimDue('subscription-renewal', scope, 'SUB', retryAt, 60_000);
    expect(second!.record.attempts).toBe(2);
    const nextBilling = retryAt + 365 * DAY_MS;
    await writeOne(renewEntry(second!, nextBilling, retryAt + 1));
    expect(await findDue('subscription-renewal', scope, 'SUB')).toMatchObject({ next_ms: nextBilling, claim_id: null, attempts: 0, last_failure: null, created_ms: retryAt + 1 });
    expect(await expiryOf('subscription-renewal', 'SUB')).toBe(keptPast(nextBilling));
    // A renewal written under a claim that is no longer current is refused.
    await expect(writeOne(renewEntry(first!, nextBilling, retryAt))).rejects.toBeInstanceOf(TransactionRejectedError);
  });
});

describe('the local outbox de-duplication key', () => {
  const message = { to: 'ada@example.test', subject: 'Your order', html: '<p>x</p>', text: 'x', kind: 'order_confirmation', orderId: 'O1', dedupKey: 'order_confirmation:A:test:O1' };

  it('sends a key once and answers the same message id again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cartwheel-outbox-'));
    const email = outboxEmail({ dir, from: 'shop@example.test', clock: clock });
    const first = await email.send(message);
    const again = await Promise.all([email.send(message), email.send(message)]);
    expect(again).toEqual([first, first]);
    expect(readdirSync(dir).filter((name) => name.endsWith('.json'))).toEqual([`${first}.json`]);
    // Messages without a key are all sent.
    await email.send({ ...message, dedupKey: undefined });
    expect(readdirSync(dir).filter((name) => name.endsWith('.json'))).toHaveLength(2);
  });

  it('finishes a message whose sender died after claiming the key, under the claimed id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cartwheel-outbox-'));
    mkdirSync(join(dir, 'dedup'), { recursive: true });
    writeFileSync(join(dir, 'dedup', createHash('sha256').update(message.dedupKey).digest('hex')), '20261122080000000-DIEDHALFWAY');
    const email = outboxEmail({ dir, from: 'shop@example.test', clock: clock });
    expect(await email.send(message)).toBe('20261122080000000-DIEDHALFWAY');
    expect(readdirSync(dir).filter((name) => name.endsWith('.json'))).toEqual(['20261122080000000-DIEDHALFWAY.json']);
  });
});
