/**
 * The one worker pool of the harness: `limit` async workers take items in input
 * order until none is left (or `shouldStop` says so). Used by index builds
 * (documents, knowledge-point and relation batches, media descriptions) and by
 * the runner (questions).
 */

/** Run `worker` over items with at most `limit` in flight; stops taking items once `shouldStop()` is true. */
export async function runPool<T>(items: readonly T[], limit: number, worker: (item: T, i: number) => Promise<void>, shouldStop?: () => boolean): Promise<void> {
  let next = 0;
  const run = async () => {
    while (!shouldStop?.() && next < items.length) {
      const i = next++;
      await worker(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, run));
}

/** Map items with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, worker: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  await runPool(items, limit, async (item, i) => {
    out[i] = await worker(item, i);
  });
  return out;
}
