/**
 * The per-account limit of concurrent invocations (functions.md §8) against the real local
 * DynamoDB emulator: counted in the table, so it holds across processes; refused at once past
 * the limit, per account and mode; a slot is given back once; a lease that ended (a process that
 * died holding it) stops counting.
 */
import { describe, expect, it } from 'vitest';
import { MAX_CONCURRENT_INVOCATIONS, takeInvocationSlot } from '../../../shared/modules/functions/invoke/concurrency';
import { ManualClock } from '../../../infra/local/manual-clock';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';

const harness = new Harness();
useEmulatedTable(harness);

describe('invocation slots', () => {
  it('refuses past the limit, per account and mode, and frees a slot once', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 28));
    const test = { accountId: 'SLOTS1', mode: 'test' as const };
    const taken = await Promise.all(Array.from({ length: 3 }, () => takeInvocationSlot(clock, test, 30_000, 3)));
    expect(taken.every(Boolean)).toBe(true);
    expect(await takeInvocationSlot(clock, test, 30_000, 3)).toBeUndefined();
    const live = await takeInvocationSlot(clock, { accountId: 'SLOTS1', mode: 'live' }, 30_000, 3);
    expect(live).toBeDefined();
    const other = await takeInvocationSlot(clock, { accountId: 'SLOTS2', mode: 'test' }, 30_000, 3);
    expect(other).toBeDefined();
    await taken[0]!();
    await taken[0]!();
    const again = await takeInvocationSlot(clock, test, 30_000, 3);
    expect(again).toBeDefined();
    expect(await takeInvocationSlot(clock, test, 30_000, 3)).toBeUndefined();
  });

  it('takes exactly the limit under a burst of concurrent takes', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 28));
    const scope = { accountId: 'BURST', mode: 'test' as const };
    const results = await Promise.all(Array.from({ length: MAX_CONCURRENT_INVOCATIONS + 20 }, () => takeInvocationSlot(clock, scope, 30_000)));
    expect(results.filter(Boolean)).toHaveLength(MAX_CONCURRENT_INVOCATIONS);
  });

  it('stops counting a slot whose lease ended (its process died holding it)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 28));
    const scope = { accountId: 'LEASE', mode: 'test' as const };
    for (let i = 0; i < 2; i++) expect(await takeInvocationSlot(clock, scope, 1_000, 2)).toBeDefined();
    expect(await takeInvocationSlot(clock, scope, 1_000, 2)).toBeUndefined();
    clock.set(clock.nowMs() + 61_001);
    expect(await takeInvocationSlot(clock, scope, 1_000, 2)).toBeDefined();
    expect(await takeInvocationSlot(clock, scope, 1_000, 2)).toBeDefined();
    expect(await takeInvocationSlot(clock, scope, 1_000, 2)).toBeUndefined();
  });
});
