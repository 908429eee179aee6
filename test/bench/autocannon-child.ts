// The bench's default load generator, run as a child process so that it does not share the bench's
// (or a server's) event loop: autocannon with the run described by the JSON in argv[2]; it prints
// one JSON line with the figures and exits. SIGTERM stops the run early (figures so far).
import autocannon, { type Request } from 'autocannon';
import { histogramQuantiles, ladderAt } from './percentiles.js';

interface Spec {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly timeoutS: number;
  readonly requests: ReadonlyArray<Request>;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;

// autocannon's own latency histogram keeps whole milliseconds: a p99 of 6 ms stands for anything
// from 6.00 to 6.99, too coarse to compare two servers whose p99s are a few ms. So 2xx latencies
// (the ones autocannon counts) are also kept here, in 10 µs steps up to the timeout.
const STEP_MS = 0.01;
const latencies = new Uint32Array(Math.ceil((spec.timeoutS * 1000) / STEP_MS) + 1);
let recorded = 0;
const record = (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number): void => {
  if (statusCode < 200 || statusCode > 299) return;
  latencies[Math.min(latencies.length - 1, Math.round(responseTimeMs / STEP_MS))]!++;
  recorded++;
};
const instance = autocannon(
  { url: spec.url, connections: spec.connections, duration: spec.seconds, timeout: spec.timeoutS, requests: spec.requests },
  (err, r) => {
    if (err) {
      process.stderr.write(`autocannon: ${err.message}\n`);
      process.exit(1);
    }
    const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
    // Our 10 µs ladder when any 2xx was kept; autocannon's whole milliseconds otherwise.
    const ladder = recorded > 0 ? histogramQuantiles(latencies, STEP_MS) : undefined;
    const at = (p: number, fallback: number) => (ladder ? ladderAt(ladder, p) : fallback);
    process.stdout.write(
      JSON.stringify({
        requests: r.requests.total,
        seconds: r.duration,
        p50Ms: at(50, r.latency.p50),
        p99Ms: at(99, r.latency.p99),
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        statusCodes,
        quantilesMs: ladder,
      }) + '\n',
    );
    process.exit(0);
  },
);
instance.on('response', record);
process.once('SIGTERM', () => instance.stop());
