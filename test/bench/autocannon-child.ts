// The bench's default load generator, run as a child process so that it does not share the bench's
// (or a server's) event loop: autocannon with the run described by the JSON in argv[2]; it prints
// one JSON line with the figures and exits. SIGTERM stops the run early (figures so far).
import autocannon, { type Request } from 'autocannon';

interface Spec {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly timeoutS: number;
  readonly requests: ReadonlyArray<Request>;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
const instance = autocannon(
  { url: spec.url, connections: spec.connections, duration: spec.seconds, timeout: spec.timeoutS, requests: spec.requests },
  (err, r) => {
    if (err) {
      process.stderr.write(`autocannon: ${err.message}\n`);
      process.exit(1);
    }
    const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
    process.stdout.write(
      JSON.stringify({
        requests: r.requests.total,
        seconds: r.duration,
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        statusCodes,
      }) + '\n',
    );
    process.exit(0);
  },
);
process.once('SIGTERM', () => instance.stop());
