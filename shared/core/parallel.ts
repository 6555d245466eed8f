/** Bounded concurrency for I/O over many items (object writes and deletions, local files). */

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
