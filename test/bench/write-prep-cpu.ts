// CPU per W4 request in process (handleRequest: parse, negotiate, plan or memo, the transaction's
// round trip through pg, the response spec), for one or more dbrest builds: no HTTP server, no wrk,
// so the load of a shared machine changes how much CPU a request takes less than in read-cpu-ab,
// where a starved server gathers more requests per batch. PostgreSQL's CPU is in its own processes
// and not counted. Each build (a directory holding dist/) starts its own server against one
// embedded PostgreSQL with the bench's dataset; rounds alternate the builds' order.
//   node dist/test/bench/write-prep-cpu.js /tmp/before /work/h-w4
//   (env: PREP_ROUNDS=6 PREP_N=5000 PREP_CONCURRENCY=1: requests in flight at once, each awaited)
import path from 'node:path';
import { benchDatabase, inProcessRounds, startBuild } from './cpu-runs.js';

const roots = process.argv.slice(2).map((r) => path.resolve(r));
const rounds = Number(process.env.PREP_ROUNDS ?? 6);
const n = Number(process.env.PREP_N ?? 5000);
const concurrency = Number(process.env.PREP_CONCURRENCY ?? 1);

/** run.ts's W4 request as the HTTP server hands it over. */
const BODY = Buffer.from(JSON.stringify({ first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com', country: 'Norway' }));
const INPUT = {
  method: 'POST',
  url: '/customers',
  headers: { host: '127.0.0.1:3000', 'content-type': 'application/json', accept: 'application/json', prefer: 'return=minimal', 'content-length': String(BODY.length) },
  body: BODY,
};

type Handle = (input: object, app: unknown) => Promise<{ response: { status: number } }>;

const db = await benchDatabase('wprep', 0.1);
try {
  const builds = [];
  for (const root of roots) {
    const b = await startBuild(root, db.uri);
    const handleRequest = (await b.mod('http/handle.js')).handleRequest as unknown as Handle;
    /** `count` requests, `concurrency` at a time; every answer must be a 201. */
    const run = async (count: number): Promise<void> => {
      let left = count;
      const lane = async () => {
        while (left-- > 0) {
          const h = await handleRequest(INPUT, b.server.app);
          if (h.response.status !== 201) throw new Error(`${root}: W4 answered ${h.response.status}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, lane));
    };
    builds.push({ root, server: b.server, run });
  }
  // Each round warms first: V8 compiles the path for a while (read-cpu-ab.ts, AB_WARMUP).
  await inProcessRounds(builds, { rounds, n, warm: n, unit: 'W4 request', digits: 1 }, (b, count) => b.run(count));
} finally {
  await db.stop();
}
