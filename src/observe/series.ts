// A labelled histogram kept in plain numbers, for the per-request metrics. prom-client's labelled
// child still builds a label object, validates it and hashes it into a string on every observe()
// and inc() (its Histogram and Counter look the series up by that hash each time); here a caller
// resolves a Series once per label tuple and keeps it, so an observation is a bucket scan and three
// additions. The registry reads the series at scrape time through prom-client's metric interface
// (get() → name, help, type, values; `le` first, as prom-client's own), so the exposition,
// getMetricsAsJSON and the cluster aggregation are prom-client's own.
import type client from 'prom-client';

export interface Series {
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket, not cumulative; the last is +Inf's. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

interface MetricValue {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName?: string;
}

/** What a prom-client Registry reads of a metric: enough for metrics(), getMetricsAsJSON and aggregation. */
interface RegistrableMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram' | 'counter';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' }>;
  reset(): void;
}

export class SeriesHistogram {
  private readonly all: Series[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: client.Registry,
  ) {
    register(registry, this.metric('histogram', name, help, () => this.histogramValues()));
  }

  /** A new series for one label tuple; the caller keeps it (one per tuple). */
  series(labels: Readonly<Record<string, string>>): Series {
    const s: Series = { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
    this.all.push(s);
    return s;
  }

  observe(s: Series, value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  /** A counter of the same series' observations (requests counted where they are timed). */
  countsAs(name: string, help: string, registry: client.Registry): void {
    register(registry, this.metric('counter', name, help, () => this.all.map((s) => ({ labels: { ...s.labels }, value: s.count }))));
  }

  private histogramValues(): MetricValue[] {
    const out: MetricValue[] = [];
    for (const s of this.all) {
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += s.counts[i]!;
        out.push({ labels: { le: this.bounds[i]!, ...s.labels }, value: acc, metricName: `${this.name}_bucket` });
      }
      out.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` });
      out.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      out.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return out;
  }

  private metric(type: 'histogram' | 'counter', name: string, help: string, values: () => MetricValue[]): RegistrableMetric {
    const all = this.all;
    return {
      name, help, type, aggregator: 'sum',
      get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
      reset() {
        for (const s of all) {
          s.counts.fill(0);
          s.sum = 0;
          s.count = 0;
        }
      },
    };
  }
}

function register(registry: client.Registry, m: RegistrableMetric): void {
  registry.registerMetric(m as unknown as client.Metric);
}
