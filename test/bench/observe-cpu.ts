// Issue 29's overhead as CPU time per request of the dbrest process, not req/s: on a shared machine
// wall-clock throughput is noise, the CPU the server spends per answer is not. For each of the four
// combinations of metrics (an admin server) and JSON access logs (log-format=json, log-level=info),
// alternated over several rounds, it starts dbrest, warms it, reads utime+stime from
// /proc/<pid>/stat, drives a fixed wrk run of W1 (one row by a random PK) or W2 (50 rows filter +
// order + limit), reads them again and divides by the requests wrk counted. The server's stderr (the
// JSON lines) goes through a pipe read by this process, as under the bench; this process only
// looks for a newline in what it reads (a JSON run must write lines), so its reading costs little.
// OBS_BINS names other launchers (`node <script> serve`, e.g. an older build's copy) run alternated
// with this build's, each with every combination, so builds are compared round by round.
//   node dist/test/bench/observe-cpu.js            (env: OBS_ROUNDS=3 OBS_SECONDS=5 OBS_CASES=W1,W2
//                                                    OBS_SCALE=0.1 OBS_CONNECTIONS=8 OBS_WARMUP=2
//                                                    OBS_COMBOS='both off,both on'
//                                                    OBS_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p'
//                                                    OBS_BINS=/tmp/old/bin/dbrest.js,bin/dbrest.js)
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/embedded/postgres.js';
import { benchDatabase, cpuTicks, median, perRequestUs, workloadScripts, rotated, serveEnv, threadTicks, waitUp, wrk } from './cpu-runs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '../../../bin/dbrest.js');
const rounds = Number(process.env.OBS_ROUNDS ?? 3);
const seconds = Number(process.env.OBS_SECONDS ?? 5);
const connections = Number(process.env.OBS_CONNECTIONS ?? 8);
// Seconds of load before the measured run: V8 may still be compiling the request path after 2 s.
const warmup = Number(process.env.OBS_WARMUP ?? 2);
const cases = (process.env.OBS_CASES ?? 'W1,W2').split(',') as Array<'W1' | 'W2'>;

const COMBOS = [
  { name: 'both off', metrics: false, json: false },
  { name: 'metrics only', metrics: true, json: false },
  { name: 'json only', metrics: false, json: true },
  { name: 'both on', metrics: true, json: true },
] as const;
const combos = process.env.OBS_COMBOS ? COMBOS.filter((c) => process.env.OBS_COMBOS!.split(',').includes(c.name)) : COMBOS;
const nodeArgs = (process.env.OBS_NODE_ARGS ?? '').split(' ').filter(Boolean);
const bins = process.env.OBS_BINS ? process.env.OBS_BINS.split(',').map((b) => path.resolve(b)) : [bin];
// A build's label in the results: none when there is one build.
const label = (b: string): string => (bins.length === 1 ? '' : `${path.relative(process.cwd(), b) || b} `);
const runs = bins.flatMap((b) => combos.map((combo) => ({ bin: b, combo })));

const db = await benchDatabase('obs', Number(process.env.OBS_SCALE ?? 0.1));
try {
  const files = workloadScripts(db.size, db.dir);

  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const { bin, combo } of rotated(runs, round)) {
      const port = await freePort();
      const env = serveEnv(db.uri, port, {
        ...(combo.json ? { DBREST_LOG_LEVEL: 'info', DBREST_LOG_FORMAT: 'json' } : {}),
        ...(combo.metrics ? { DBREST_ADMIN_SERVER_PORT: String(await freePort()) } : {}),
      });
      const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let sawLine = false;
      child.stderr.on('data', (b: Buffer) => { if (!sawLine) sawLine = b.includes(10); });
      try {
        await waitUp(port);
        for (const k of cases) {
          await wrk(port, files[k], warmup, connections); // warm-up: JIT, caches, pool
          const before = cpuTicks(child.pid!);
          const threadsBefore = process.env.OBS_THREADS ? threadTicks(child.pid!) : null;
          const n = await wrk(port, files[k], seconds, connections);
          const perReq = perRequestUs(cpuTicks(child.pid!) - before, n);
          if (threadsBefore !== null) {
            const by = [...threadTicks(child.pid!)].map(([name, t]) => `${name} ${perRequestUs(t - (threadsBefore.get(name) ?? 0), n).toFixed(1)}`);
            console.log(`  µs CPU/request by thread: ${by.join(', ')}`);
          }
          const key = `${label(bin)}${k} ${combo.name}`;
          results.set(key, [...(results.get(key) ?? []), perReq]);
          console.log(`round ${round + 1} ${key}: ${perReq.toFixed(1)} µs CPU/request (${n} requests)`);
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      if (combo.json && !sawLine) throw new Error('JSON logs on but no line written');
    }
  }
  console.log('\nmedian µs CPU/request (cost against both off):');
  for (const b of bins) {
    for (const k of cases) {
      const of = (c: string) => results.get(`${label(b)}${k} ${c}`)!;
      const base = combos.some((c) => c.name === 'both off') ? median(of('both off')) : null;
      for (const combo of combos) {
        const m = median(of(combo.name));
        const cost = base === null || combo.name === 'both off' ? '' : `${(((m - base) / base) * 100).toFixed(1)} %`;
        console.log(`  ${label(b)}${k} ${combo.name.padEnd(12)} ${m.toFixed(1).padStart(7)}  ${cost.padStart(7)}   [${of(combo.name).map((x) => x.toFixed(0)).join(', ')}]`);
      }
    }
  }
} finally {
  await db.stop();
}
