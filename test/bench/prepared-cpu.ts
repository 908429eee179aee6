// db-prepared-statements=false's cost as CPU time per request, split between the dbrest process and
// PostgreSQL's backends (its postmaster's children), not req/s: on a shared machine wall-clock
// throughput is noise, the CPU spent per answer is not. For prepared statements on and off,
// alternated over several rounds, it starts dbrest, warms it, reads utime+stime from /proc/<pid>/stat
// of dbrest and of every child of the postmaster, drives a fixed wrk run of W1 (one row by a random
// PK) or W2 (50 rows filter + order + limit), reads them again and divides by the requests wrk
// counted. PREP_NODE_ARGS adds node flags to dbrest (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
//   node dist/test/bench/prepared-cpu.js           (env: PREP_ROUNDS=3 PREP_SECONDS=5 PREP_CASES=W1,W2
//                                                    PREP_SCALE=0.1 PREP_CONNECTIONS=8)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../../src/embedded/postgres.js';
import { ANON_ROLE, datasetSql, scaledSize } from './dataset.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '../../../bin/dbrest.js');
const rounds = Number(process.env.PREP_ROUNDS ?? 3);
const seconds = Number(process.env.PREP_SECONDS ?? 5);
const connections = Number(process.env.PREP_CONNECTIONS ?? 8);
const cases = (process.env.PREP_CASES ?? 'W1,W2').split(',');
const size = scaledSize(Number(process.env.PREP_SCALE ?? 0.1));
const TICK = 100; // USER_HZ: /proc times are in 1/100 s

const COMBOS = [
  { name: 'prepared', prepared: true },
  { name: 'unprepared', prepared: false },
] as const;
const nodeArgs = (process.env.PREP_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
}

/** utime+stime of every process whose parent is `ppid` (PostgreSQL's backends and helpers). */
function childTicks(ppid: number): number {
  let sum = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) === ppid) sum += Number(f[11]) + Number(f[12]);
    } catch { /* gone meanwhile */ }
  }
  return sum;
}

async function waitUp(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try { if ((await fetch(`http://127.0.0.1:${port}/`)).status < 500) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('dbrest did not answer');
}

function wrk(port: number, script: string, secs: number): number {
  const r = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${secs}s`, '-s', script, `http://127.0.0.1:${port}`], { encoding: 'utf8' });
  const m = /(\d+) requests in/.exec(r.stdout);
  if (!m) throw new Error(`wrk: ${r.stdout}${r.stderr}`);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(r.stdout);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} failed answers`);
  return Number(m[1]);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-prep-'));
const db = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata'), durable: false });
try {
  const c = new pg.Client({ connectionString: db.uri });
  await c.connect();
  await c.query(datasetSql(size));
  await c.end();
  const scripts: Record<string, string> = {
    W1: `request = function() return wrk.format("GET", "/tracks?id=eq." .. math.random(1, ${size.tracks}), {["Accept"]="application/json"}) end`,
    W2: `request = function() return wrk.format("GET", "/tracks?album_id=lte.${Math.floor(size.albums / 2)}&order=id.desc&limit=50", {["Accept"]="application/json"}) end`,
  };
  const files: Record<string, string> = {};
  for (const [k, s] of Object.entries(scripts)) writeFileSync((files[k] = path.join(tmp, `${k}.lua`)), s);

  const results = new Map<string, number[]>();
  const pgResults = new Map<string, number[]>();
  const postmaster = Number(readFileSync(path.join(tmp, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);
  for (let round = 0; round < rounds; round++) {
    // Rotated each round so no combination always runs first (or after the same one).
    const order = COMBOS.map((_, i) => COMBOS[(i + round) % COMBOS.length]!);
    for (const combo of order) {
      const port = await freePort();
      const env: Record<string, string> = {
        ...process.env as Record<string, string>,
        DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: ANON_ROLE, DBREST_DB_SCHEMAS: 'public', DBREST_DB_POOL: '8',
        DBREST_SERVER_HOST: '127.0.0.1', DBREST_SERVER_PORT: String(port),
        DBREST_LOG_LEVEL: 'error', DBREST_DB_PREPARED_STATEMENTS: String(combo.prepared),
      };
      const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      try {
        await waitUp(port);
        for (const k of cases) {
          wrk(port, files[k]!, 2); // warm-up: JIT, caches, pool
          const before = cpuTicks(child.pid!);
          const pgBefore = childTicks(postmaster);
          const n = wrk(port, files[k]!, seconds);
          const perReq = ((cpuTicks(child.pid!) - before) / TICK / n) * 1e6;
          const pgPerReq = ((childTicks(postmaster) - pgBefore) / TICK / n) * 1e6;
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
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
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
  rmSync(tmp, { recursive: true, force: true });
}
