/**
 * Where the running invocations of an account and mode are counted (functions.md §8): one item
 * per account and mode holding a map of invocation id → lease end (epoch ms), so the limit holds
 * across every process that invokes (each router Lambda instance serves one request at a time,
 * so a count kept in memory would count nothing). A slot is taken by a conditional update (the
 * map has fewer than `max` entries) and given back by removing its entry; a process that dies
 * holding one leaves an entry whose lease ends, and the next refusal prunes expired entries and
 * tries again.
 */
import { defineEntity, type RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { isConditionFailure, writeOne } from '../../store/transact';

/** The slots of one account and mode. */
interface InvocationSlots {
  account_id: string;
  mode: 'live' | 'test';
  /** Always `running`: one item per scope. */
  slots_id: string;
  /** Invocation id → lease end (epoch ms). */
  slots: Record<string, number>;
}

const SLOTS_ID = 'running';

const slotSets = defineEntity<InvocationSlots>({ name: 'function invocation slots', collection: 'function_slots', scope: 'mode', idField: 'slots_id' });

/** Whether a write was refused by its condition. */
const refused = (error: unknown) => error instanceof TransactionRejectedError || isConditionFailure(error);

/**
 * Takes a slot `invocationId` leased until `leaseEndMs` if fewer than `max` are held (expired
 * leases do not count); answers whether it was taken.
 */
export async function takeSlot(scope: RecordScope, invocationId: string, leaseEndMs: number, max: number, nowMs: number): Promise<boolean> {
  for (let round = 0; round < 4; round++) {
    try {
      await writeOne(
        slotSets.updateEntry(scope, SLOTS_ID, {
          name: 'function invocation slots.take',
          set: { [`slots.${invocationId}`]: leaseEndMs },
          condition: { expression: 'attribute_exists(slots) AND size(slots) < :max', values: { ':max': max } },
        }),
      );
      return true;
    } catch (error) {
      if (!refused(error)) throw error;
    }
    const current = await slotSets.find(scope, SLOTS_ID);
    if (!current) {
      try {
        await writeOne(slotSets.putEntry({ account_id: scope.accountId, mode: scope.mode, slots_id: SLOTS_ID, slots: { [invocationId]: leaseEndMs } }, { name: 'function invocation slots.first', ifNew: true, onConditionFailed: () => new TransactionRejectedError(['function invocation slots.first'], true) }));
        return true;
      } catch (error) {
        if (!refused(error)) throw error;
        continue;
      }
    }
    const expired = Object.entries(current.slots).filter(([, end]) => end <= nowMs).map(([id]) => id);
    // The item appeared (or slots were given back) since the refusal: try again.
    if (Object.keys(current.slots).length < max) continue;
    if (expired.length === 0) return false;
    // Leases of processes that died: removed, then the take is tried again.
    await writeOne(slotSets.updateEntry(scope, SLOTS_ID, { name: 'function invocation slots.prune', remove: expired.map((id) => `slots.${id}`) }));
  }
  return false;
}

/** Gives a slot back (nothing to give back is fine). */
export async function releaseSlot(scope: RecordScope, invocationId: string): Promise<void> {
  await writeOne(slotSets.updateEntry(scope, SLOTS_ID, { name: 'function invocation slots.release', remove: [`slots.${invocationId}`], condition: { expression: 'attribute_exists(slots)' } })).catch((error: unknown) => {
    if (!refused(error)) throw error;
  });
}
