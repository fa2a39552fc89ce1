/** Small statistics shared by the benchmarks. */

/** The p-quantile (0..1) of already sorted numbers, nearest-rank. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** p50 and p99 of unsorted samples. */
export function summarize(samples: readonly number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

/** Milliseconds `work` took. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** A target line: `PASS  name  (detail)` or `MISS …`. */
export function verdict(ok: boolean, name: string, detail: string): string {
  return `  ${ok ? 'PASS' : 'MISS'}  ${name}  (${detail})`;
}
