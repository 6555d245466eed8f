/**
 * The per-account limit of concurrent invocations (functions.md §8): at most 50 at once per
 * account and mode, across its functions, invocations by event subscriptions included. A call
 * beyond it is refused at once (429 with `Retry-After: 1`), never queued, so one merchant's
 * burst cannot starve the others.
 *
 * Counted in the process that invokes: exact for the local runtime (one process). In the cloud
 * each router instance counts its own calls; Lambda's per-function concurrency is the backstop
 * there (an account-wide count across instances is a follow-up, see the issue note).
 */

/** Invocations one account may run at once per mode. */
export const MAX_CONCURRENT_INVOCATIONS = 50;

const running = new Map<string, number>();

/**
 * Takes a slot for `accountId`/`mode`; answers the function that gives it back, or undefined
 * when all are taken.
 */
export function takeInvocationSlot(accountId: string, mode: string, limit = MAX_CONCURRENT_INVOCATIONS): (() => void) | undefined {
  const key = `${accountId}#${mode}`;
  const count = running.get(key) ?? 0;
  if (count >= limit) return undefined;
  running.set(key, count + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (running.get(key) ?? 1) - 1;
    if (left <= 0) running.delete(key);
    else running.set(key, left);
  };
}
