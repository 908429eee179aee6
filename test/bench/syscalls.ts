// System calls per request of dbrest and of the bench's floor server, counted by `strace -c` over a
// fixed wrk run of each workload (W1…W4 of cpu-runs.ts), PostgreSQL durable. A count does not move
// with a busy host's speed as req/s and CPU time do: a change that adds a write(2) or a wake-up per
// request shows here whatever else the machine runs. strace slows the server many times over, so
// only the counts mean anything, not the requests' number.
//   node dist/test/bench/syscalls.js        (env: SC_CASES=W4,W1 SC_SECONDS=5 SC_SCALE=0.1)
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/embedded/postgres.js';
import { benchDatabase, FLOOR_BIN, serveEnv, serverArgs, waitUp, workloadScripts, wrk, type Workload } from './cpu-runs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const cases = (process.env.SC_CASES ?? 'W4,W1').split(',') as Workload[];
const seconds = Number(process.env.SC_SECONDS ?? 5);
const servers = [
  { name: 'dbrest', bin: path.resolve(here, '../../../bin/dbrest.js') },
  { name: 'floor', bin: FLOOR_BIN },
];
execFileSync('strace', ['-V'], { stdio: 'ignore' }); // fails here, not midway, without strace

const db = await benchDatabase('syscalls', Number(process.env.SC_SCALE ?? 0.1), true);
try {
  const files = workloadScripts(db.size, db.dir);
  for (const s of servers) {
    const port = await freePort();
    const child = spawn(process.execPath, serverArgs(s.bin, port, db.uri), { env: serveEnv(db.uri, port, { DBREST_DB_POOL: '10' }), stdio: ['ignore', 'ignore', 'inherit'] });
    try {
      await waitUp(port);
      for (const k of cases) {
        await wrk(port, files[k], 4, 32); // warm-up: JIT, pool
        // Every thread of the server (-p takes thread ids), and any it starts (-f).
        const out = path.join(db.dir, `${s.name}-${k}.strace`);
        const tracer = spawn('strace', ['-c', '-f', '-o', out, '-p', readdirSync(`/proc/${child.pid}/task`).join(',')], { stdio: 'ignore' });
        await new Promise((r) => setTimeout(r, 1000)); // attached
        const requests = await wrk(port, files[k], seconds, 32);
        tracer.kill('SIGINT');
        await new Promise((r) => tracer.once('exit', r));
        console.log(`${s.name} ${k}: ${requests} requests`);
        for (const line of readFileSync(out, 'utf8').split('\n')) {
          // % time, seconds, usecs/call, calls, [errors], syscall
          const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:(\d+)\s+)?(\w+)$/.exec(line);
          if (m === null || Number(m[1]) / requests < 0.005) continue;
          const errors = m[2] === undefined ? '' : ` (${(Number(m[2]) / requests).toFixed(2)} failed)`;
          console.log(`  ${(Number(m[1]) / requests).toFixed(2).padStart(6)} ${m[3]}${errors}`);
        }
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
} finally {
  await db.stop();
}
