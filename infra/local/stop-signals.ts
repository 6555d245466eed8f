/**
 * How the local runtime reads SIGINT and SIGTERM (local-runtime.md): the first asks for a
 * graceful stop; a signal within `DUPLICATE_WINDOW_MS` of it is the same request delivered
 * again, and only one after that window is a second request, to quit at once.
 *
 * One request to stop often arrives more than once. Ctrl-C in a terminal, systemd and container
 * runtimes signal the whole process group, and a parent in that group may relay the same signal
 * to its child: npm forwards SIGINT and SIGTERM to its script, and tsx's command-line wrapper
 * relays them again whenever its child has not acknowledged within 30 ms (a loaded machine), then
 * kills it with SIGKILL if the relay is not acknowledged within another 30 ms. Those copies land
 * within milliseconds (a few hundred on a loaded machine); a person who wants to quit at once
 * presses Ctrl-C again after reading the "finishing" line, well after the window.
 */

/** Copies of the first signal arrive within this; a later one is a second request. */
export const DUPLICATE_WINDOW_MS = 2_000;

/** What a received signal means. */
export type SignalVerdict = 'stop' | 'duplicate' | 'force';

/**
 * The signal rule as a function of arrival times (ms, any monotonic clock): `stopSignals()`
 * answers `stop` for the first signal, `duplicate` for one within the window of the first,
 * `force` for one after it.
 */
export function stopSignals(windowMs: number = DUPLICATE_WINDOW_MS): (nowMs: number) => SignalVerdict {
  let firstMs: number | undefined;
  return (nowMs) => {
    if (firstMs === undefined) {
      firstMs = nowMs;
      return 'stop';
    }
    return nowMs - firstMs < windowMs ? 'duplicate' : 'force';
  };
}
