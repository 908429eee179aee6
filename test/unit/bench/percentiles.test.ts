// The bench's pooled percentiles (test/bench/percentiles.ts): a case's p99 over all its rounds'
// requests, from each round's ladder of percentiles, checked against the exact figure from the raw
// latencies.
import t from 'tap';
import { histogramQuantiles, pooledPercentile, QUANTILE_POINTS } from '../../bench/percentiles.js';

const STEP = 0.01; // ms per histogram bin, as autocannon-child.ts keeps them

/** A histogram (STEP bins) of the latencies, and its ladder. */
function ladder(latenciesMs: number[]): { requests: number; ms: number[] } {
  const counts = new Uint32Array(Math.ceil(Math.max(...latenciesMs) / STEP) + 2);
  for (const l of latenciesMs) counts[Math.round(l / STEP)]!++;
  return { requests: latenciesMs.length, ms: histogramQuantiles(counts, STEP) };
}

/** The exact p-th percentile: the smallest latency with at least p % of them at or below it. */
function exact(latenciesMs: number[], p: number): number {
  const s = [...latenciesMs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** Deterministic pseudo-random latencies (ms, 0.01 steps): mostly around `typical`, a few slow. */
function latencies(n: number, typical: number, slowShare: number, slowMs: number, seed: number): number[] {
  let x = seed;
  const next = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: n }, () => Math.round((next() < slowShare ? slowMs * (0.5 + next()) : typical * (0.5 + next())) * 100) / 100);
}

t.test('the ladder of one run gives its exact percentiles', async (t) => {
  const xs = latencies(20_000, 5, 0.02, 40, 7);
  const l = ladder(xs);
  t.equal(l.ms.length, QUANTILE_POINTS.length);
  for (const p of [0, 50, 90, 99, 99.9, 100]) t.equal(l.ms[QUANTILE_POINTS.indexOf(p)], exact(xs, p), `p${p}`);
  t.same(histogramQuantiles(new Uint32Array(10), STEP, [50, 99]), [0, 0], 'no requests: zeros');
});

t.test('rounds pooled: the p99 of all their requests, not the worst round', async (t) => {
  // Three quiet rounds and one with a slow stretch: 4 % of its requests take 30–90 ms.
  const rounds = [latencies(10_000, 4, 0.001, 20, 1), latencies(12_000, 4, 0.001, 20, 2), latencies(9_000, 5, 0.04, 60, 3), latencies(11_000, 4, 0.001, 20, 4)];
  const all = rounds.flat();
  const pooled = pooledPercentile(rounds.map(ladder), 99);
  const truth = exact(all, 99);
  const worst = Math.max(...rounds.map((r) => exact(r, 99)));
  t.ok(pooled >= truth, `never below the true p99 (${pooled} ≥ ${truth})`);
  // One ladder step at 99 % is 0.01 % of the requests: the answer is the true one or just above.
  t.ok(pooled <= exact(all, 99.01), `within one step of the ladder (${pooled} ≤ ${exact(all, 99.01)})`);
  t.ok(worst > 2 * pooled, `the worst round's p99 (${worst}) is far above the pooled one`);
  // Below 90 the ladder steps by whole percentiles: p50 errs high by at most one of them.
  const p50 = pooledPercentile(rounds.map(ladder), 50);
  t.ok(p50 >= exact(all, 50) && p50 <= exact(all, 51), `p50 too (${p50} within ${exact(all, 50)}–${exact(all, 51)})`);
});

t.test('one run pooled is that run; runs of different sizes weigh by their requests', async (t) => {
  const xs = latencies(5_000, 3, 0.01, 30, 11);
  t.equal(pooledPercentile([ladder(xs)], 99), exact(xs, 99));
  // A small slow run next to a big fast one barely moves the p99; a big slow one sets it.
  const fast = latencies(50_000, 2, 0, 0, 5);
  const slowSmall = latencies(100, 50, 0, 0, 6);
  const slowBig = latencies(50_000, 50, 0, 0, 6);
  t.equal(pooledPercentile([ladder(fast), ladder(slowSmall)], 99), exact([...fast, ...slowSmall], 99));
  t.ok(pooledPercentile([ladder(fast), ladder(slowBig)], 99) >= 25, 'half the requests slow: the p99 is a slow one');
  t.ok(Number.isNaN(pooledPercentile([], 99)), 'no runs: NaN');
});
