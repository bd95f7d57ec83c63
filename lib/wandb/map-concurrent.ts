/** Bounded-concurrency map with fail-fast: the first error aborts the rest, and all settle before it is thrown. */

/** Throws `invalid concurrency: <v>` unless a positive integer. */
export function checkConcurrency(concurrency: number): number {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`invalid concurrency: ${concurrency}`);
  return concurrency;
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight, results in input order. On the first
 * failure the signal passed to `fn` aborts, no new item starts, and after every started call has
 * settled the first error is thrown (so callers can clean up knowing nothing still writes).
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number, signal: AbortSignal) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  checkConcurrency(limit);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal!.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", onAbort, { once: true });
  const results: R[] = new Array(items.length);
  let next = 0;
  let firstError: { error: unknown } | null = null;
  const worker = async () => {
    while (firstError === null && !controller.signal.aborted && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index], index, controller.signal);
      } catch (e) {
        if (firstError === null) firstError = { error: e };
        controller.abort(e);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  if (firstError !== null) throw (firstError as { error: unknown }).error;
  if (controller.signal.aborted) throw controller.signal.reason;
  return results;
}
