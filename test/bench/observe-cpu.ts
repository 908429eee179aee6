// Issue 29's overhead as CPU time per request of the dbrest process, not req/s: on a shared machine
// wall-clock throughput is noise, the CPU the server spends per answer is not. For each of the four
// combinations of metrics (an admin server) and JSON access logs (log-format=json, log-level=info),
// alternated over several rounds, it starts dbrest, warms it, reads utime+stime from
// /proc/<pid>/stat, drives a fixed wrk run of W1 (one row by a random PK) or W2 (50 rows filter +
// order + limit), reads them again and divides by the requests wrk counted. The server's stderr (the
// JSON lines) goes through a pipe read by this process, as under the bench.
//   node dist/test/bench/observe-cpu.js            (env: OBS_ROUNDS=3 OBS_SECONDS=5 OBS_CASES=W1,W2
//                                                    OBS_SCALE=0.1 OBS_CONNECTIONS=8
//                                                    OBS_COMBOS='both off,both on'
//                                                    OBS_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p')
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
const rounds = Number(process.env.OBS_ROUNDS ?? 3);
const seconds = Number(process.env.OBS_SECONDS ?? 5);
const connections = Number(process.env.OBS_CONNECTIONS ?? 8);
const cases = (process.env.OBS_CASES ?? 'W1,W2').split(',');
const size = scaledSize(Number(process.env.OBS_SCALE ?? 0.1));
const TICK = 100; // USER_HZ: /proc times are in 1/100 s

const COMBOS = [
  { name: 'both off', metrics: false, json: false },
  { name: 'metrics only', metrics: true, json: false },
  { name: 'json only', metrics: false, json: true },
  { name: 'both on', metrics: true, json: true },
] as const;
const combos = process.env.OBS_COMBOS ? COMBOS.filter((c) => process.env.OBS_COMBOS!.split(',').includes(c.name)) : COMBOS;
const nodeArgs = (process.env.OBS_NODE_ARGS ?? '').split(' ').filter(Boolean);

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
}

/** utime+stime per thread name (main, libuv-worker, V8 workers…), for OBS_THREADS=1. */
function threadTicks(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + Number(f[11]) + Number(f[12]));
    } catch { /* the thread ended */ }
  }
  return out;
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

const tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-obs-'));
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
  for (let round = 0; round < rounds; round++) {
    // Rotated each round so no combination always runs first (or after the same one).
    const order = combos.map((_, i) => combos[(i + round) % combos.length]!);
    for (const combo of order) {
      const port = await freePort();
      const env: Record<string, string> = {
        ...process.env as Record<string, string>,
        DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: ANON_ROLE, DBREST_DB_SCHEMAS: 'public', DBREST_DB_POOL: '8',
        DBREST_SERVER_HOST: '127.0.0.1', DBREST_SERVER_PORT: String(port),
        DBREST_LOG_LEVEL: combo.json ? 'info' : 'error',
        ...(combo.json ? { DBREST_LOG_FORMAT: 'json' } : {}),
        ...(combo.metrics ? { DBREST_ADMIN_SERVER_PORT: String(await freePort()) } : {}),
      };
      const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let lines = 0;
      child.stderr.on('data', (b: Buffer) => { for (const x of b) if (x === 10) lines++; });
      try {
        await waitUp(port);
        for (const k of cases) {
          wrk(port, files[k]!, 2); // warm-up: JIT, caches, pool
          const before = cpuTicks(child.pid!);
          const threadsBefore = process.env.OBS_THREADS ? threadTicks(child.pid!) : null;
          const n = wrk(port, files[k]!, seconds);
          const perReq = ((cpuTicks(child.pid!) - before) / TICK / n) * 1e6;
          if (threadsBefore !== null) {
            const by = [...threadTicks(child.pid!)].map(([name, t]) => `${name} ${(((t - (threadsBefore.get(name) ?? 0)) / TICK / n) * 1e6).toFixed(1)}`);
            console.log(`  µs CPU/request by thread: ${by.join(', ')}`);
          }
          const key = `${k} ${combo.name}`;
          results.set(key, [...(results.get(key) ?? []), perReq]);
          console.log(`round ${round + 1} ${key}: ${perReq.toFixed(1)} µs CPU/request (${n} requests)`);
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      if (combo.json && lines === 0) throw new Error('JSON logs on but no line written');
    }
  }
  console.log('\nmedian µs CPU/request (cost against both off):');
  for (const k of cases) {
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const base = median(results.get(`${k} both off`)!);
    for (const combo of combos) {
      const m = median(results.get(`${k} ${combo.name}`)!);
      console.log(`  ${k} ${combo.name.padEnd(12)} ${m.toFixed(1).padStart(7)}  ${combo.name === 'both off' ? '' : `${(((m - base) / base) * 100).toFixed(1)} %`}   [${results.get(`${k} ${combo.name}`)!.map((x) => x.toFixed(0)).join(', ')}]`);
    }
  }
} finally {
  await db.stop();
  rmSync(tmp, { recursive: true, force: true });
}
