// Latency percentiles over a case's rounds together. A case runs in several rounds per server, and
// each load-generator run reports only its own distribution; the case's p99 is the p99 of all its
// requests, not the worst round's (one slow stretch in one round would decide it: on a 2-core
// machine either server has one now and then). So each run reports its latency at a fixed ladder
// of percentiles (QUANTILE_POINTS), and the rounds are merged here. Pure.

/** The percentiles each run reports: every whole one below 90, then 90.00 to 100 in 0.01 steps. */
export const QUANTILE_POINTS: ReadonlyArray<number> = [
  ...Array.from({ length: 90 }, (_, i) => i),
  ...Array.from({ length: 1001 }, (_, i) => Math.round((90 + i * 0.01) * 100) / 100),
];

/** The latency a ladder (latencies at QUANTILE_POINTS) gives for percentile `p`, one of its points. */
export const ladderAt = (ladder: ReadonlyArray<number>, p: number): number => ladder[QUANTILE_POINTS.indexOf(p)]!;

/** One run's latencies (ms) at QUANTILE_POINTS, with how many requests they describe. */
export interface RunQuantiles {
  readonly requests: number;
  readonly ms: ReadonlyArray<number>;
}

/**
 * The latencies at `points` (percentiles, ascending) of a histogram of `counts[i]` requests that
 * took i × stepMs, in one pass. The latency at p is the smallest whose requests with it and below
 * are at least p % of all (p = 0: the smallest recorded). Empty histogram: all 0.
 */
export function histogramQuantiles(counts: ArrayLike<number>, stepMs: number, points: ReadonlyArray<number> = QUANTILE_POINTS): number[] {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i]!;
  const out = new Array<number>(points.length).fill(0);
  if (total === 0) return out;
  let seen = 0;
  let bin = -1;
  for (let k = 0; k < points.length; k++) {
    const rank = Math.max(1, Math.ceil((points[k]! / 100) * total));
    while (seen < rank && bin < counts.length - 1) seen += counts[++bin]!;
    out[k] = Math.round(bin * stepMs * 1000) / 1000;
  }
  return out;
}

/**
 * The p-th percentile (ms) of all requests of the runs together. Each run's share of requests at or
 * below a latency x is read off its ladder as the highest point whose latency is at most x (a
 * lower bound, so the result errs high, by at most one step of the ladder); the answer is the
 * smallest latency any run reported at which the runs' shares, weighted by their requests, reach p.
 */
export function pooledPercentile(runs: ReadonlyArray<RunQuantiles>, p: number, points: ReadonlyArray<number> = QUANTILE_POINTS): number {
  const used = runs.filter((r) => r.requests > 0 && r.ms.length === points.length);
  if (used.length === 0) return NaN;
  const total = used.reduce((a, r) => a + r.requests, 0);
  const share = (r: RunQuantiles, x: number): number => {
    // The ladder's latencies rise with its points: the last point at or below x, by bisection.
    let lo = -1;
    let hi = r.ms.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (r.ms[mid]! <= x) lo = mid;
      else hi = mid - 1;
    }
    return lo < 0 ? 0 : points[lo]! / 100;
  };
  const candidates = [...new Set(used.flatMap((r) => r.ms))].sort((a, b) => a - b);
  // The pooled share rises with x: bisect for the first candidate where it reaches p.
  let lo = 0;
  let hi = candidates.length - 1;
  const reaches = (x: number) => used.reduce((a, r) => a + r.requests * share(r, x), 0) / total >= p / 100 - 1e-12;
  if (!reaches(candidates[hi]!)) return candidates[hi]!;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (reaches(candidates[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return candidates[lo]!;
}
