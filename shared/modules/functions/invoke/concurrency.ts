/**
 * The per-account limit of concurrent invocations (functions.md §8): at most 50 at once per
 * account and mode, across its functions, invocations by event subscriptions included. A call
 * beyond it is refused at once (429 with `Retry-After: 1`), never queued, so one merchant's
 * burst cannot starve the others. Counted in the table (../invocation-slot-store.ts), so the
 * limit holds across every process that invokes; a slot's lease outlasts the call's own limit,
 * and a process that died holding one frees it when the lease ends.
 */
import { newId } from '../../../core/ids';
import type { Clock } from '../../../platform/ports';
import type { RecordScope } from '../../../store/records';
import { releaseSlot, takeSlot } from '../invocation-slot-store';

/** Invocations one account may run at once per mode. */
export const MAX_CONCURRENT_INVOCATIONS = 50;

/** How long past a call's own time limit its slot is held when nobody gives it back. */
const LEASE_MARGIN_MS = 60_000;

/**
 * Takes a slot for a call that may last `timeoutMs` in `scope`; answers the function that gives
 * it back (once), or undefined when all are taken.
 */
export async function takeInvocationSlot(clock: Clock, scope: RecordScope, timeoutMs: number, limit = MAX_CONCURRENT_INVOCATIONS): Promise<(() => Promise<void>) | undefined> {
  const invocationId = newId();
  const now = clock.nowMs();
  if (!(await takeSlot(scope, invocationId, now + timeoutMs + LEASE_MARGIN_MS, limit, now))) return undefined;
  let released: Promise<void> | undefined;
  return () => (released ??= releaseSlot(scope, invocationId));
}
