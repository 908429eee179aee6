// db-prepared-statements=false's cost as CPU time per request, split between the dbrest process and
// PostgreSQL's backends (its postmaster's children), not req/s: on a shared machine wall-clock
// throughput is noise, the CPU spent per answer is not. For prepared statements on and off,
// alternated over several rounds, it starts dbrest, warms it, reads utime+stime from /proc/<pid>/stat
// of dbrest and of every child of the postmaster, drives a fixed wrk run of W1 (one row by a random
// PK) or W2 (50 rows filter + order + limit), reads them again and divides by the requests wrk
// counted. PREP_NODE_ARGS adds node flags to dbrest (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
//   node dist/test/bench/prepared-cpu.js           (env: PREP_ROUNDS=3 PREP_SECONDS=5 PREP_CASES=W1,W2
//                                                    PREP_SCALE=0.1 PREP_CONNECTIONS=8)
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/embedded/postgres.js';
import { benchDatabase, childTicks, cpuTicks, median, perRequestUs, workloadScripts, rotated, serveEnv, waitUp, wrk } from './cpu-runs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '../../../bin/dbrest.js');
const rounds = Number(process.env.PREP_ROUNDS ?? 3);
const seconds = Number(process.env.PREP_SECONDS ?? 5);
const connections = Number(process.env.PREP_CONNECTIONS ?? 8);
const cases = (process.env.PREP_CASES ?? 'W1,W2').split(',') as Array<'W1' | 'W2'>;

const COMBOS = [
  { name: 'prepared', prepared: true },
  { name: 'unprepared', prepared: false },
] as const;
const nodeArgs = (process.env.PREP_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

const db = await benchDatabase('prep', Number(process.env.PREP_SCALE ?? 0.1));
try {
  const files = workloadScripts(db.size, db.dir);

  const results = new Map<string, number[]>();
  const pgResults = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const combo of rotated(COMBOS, round)) {
      const port = await freePort();
      const env = serveEnv(db.uri, port, { DBREST_DB_PREPARED_STATEMENTS: String(combo.prepared) });
      const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      try {
        await waitUp(port);
        for (const k of cases) {
          await wrk(port, files[k], 2, connections); // warm-up: JIT, caches, pool
          const before = cpuTicks(child.pid!);
          const pgBefore = childTicks(db.postmaster);
          const n = await wrk(port, files[k], seconds, connections);
          const perReq = perRequestUs(cpuTicks(child.pid!) - before, n);
          const pgPerReq = perRequestUs(childTicks(db.postmaster) - pgBefore, n);
          const key = `${k} ${combo.name}`;
          results.set(key, [...(results.get(key) ?? []), perReq]);
          pgResults.set(key, [...(pgResults.get(key) ?? []), pgPerReq]);
          console.log(`round ${round + 1} ${key}: dbrest ${perReq.toFixed(1)} + postgres ${pgPerReq.toFixed(1)} µs CPU/request (${n} requests)`);
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
  }
  console.log('\nmedian µs CPU/request, dbrest + postgres [each round]:');
  for (const k of cases) {
    for (const combo of COMBOS) {
      const key = `${k} ${combo.name}`;
      const d = results.get(key)!;
      const p = pgResults.get(key)!;
      console.log(`  ${key.padEnd(14)} ${median(d).toFixed(0).padStart(5)} + ${median(p).toFixed(0).padStart(5)}   [${d.map((x) => x.toFixed(0)).join(', ')}] + [${p.map((x) => x.toFixed(0)).join(', ')}]`);
    }
  }
} finally {
  await db.stop();
}
