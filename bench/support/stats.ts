/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

export type LatencySummary = { p50: number; p90: number; p99: number; max: number };

/** The arithmetic mean (NaN when empty). */
export const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Nearest-rank percentiles of a list of milliseconds, in any order (NaN when empty). */
export function summarise(values: ArrayLike<number>): LatencySummary {
  if (values.length === 0) return { p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN };
  const sorted = Float64Array.from(values).sort();
  return { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] };
}

/** Runs task(0) … task(count - 1) with at most `concurrency` of them in flight. */
export async function runBounded(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

/** Polls `done` every intervalMs until it is true; rejects on timeout (with describe()) or when abort rejects. */
export async function waitUntil(
  done: () => boolean | Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; abort?: Promise<never>; describe: () => string | Promise<string> },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const poll = async () => {
    for (;;) {
      if (await done()) return;
      if (Date.now() > deadline) throw new Error(await options.describe());
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
    }
  };
  await (options.abort ? Promise.race([poll(), options.abort]) : poll());
}
