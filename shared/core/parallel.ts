/** Bounds for asynchronous work: concurrency over many items (object writes and deletions, local files), and time (`settleWithin`). */

/** Runs `work` over `items` (with each item's index), at most `limit` at a time; rejects with the first failure. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * `promise`'s value, or `fallback` when it has not settled within `ms`; the promise itself runs
 * on (nothing is cancelled), and the timer never keeps the process alive.
 *
 * @example await settleWithin(lookup(host), 2_000, []) // no addresses after 2 s
 */
export function settleWithin<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
