// Cold start on big catalogs (issue 13 item 5): for each size, a database of `n` tables and n-1
// foreign keys (catalog-schema.ts's shape), then `node bin/dbrest.js serve` as a child process, timed
// from spawn to its first 200 on a table, with the schema cache's own load time from its log line.
// Besides wall-clock times (noisy on a shared machine) it reports CPU time, which load does not
// change much: dbrest's own up to its first 200 and, with the embedded PostgreSQL, the backends' (all
// the connections of the run, read from the postmaster's reaped-children times once dbrest exited).
//   node dist/test/bench/cold-start.js [sizes…]        (default 1000 5000 20000 50000)
// Not part of `npm test`. Uses its own throwaway embedded PostgreSQL (fsync off), or with
// COLD_DB_URI an existing server, where the `cold_<n>` databases are kept and reused (making 50,000
// tables takes minutes; COLD_PG_PID, its postmaster pid, adds its CPU). COLD_RUNS runs per size (default 3).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../../src/embedded/postgres.js';
import { generateBigSchemaSql } from './catalog-schema.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const runs = Number(process.env.COLD_RUNS ?? 3);

function get(port: number, p: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
  });
}

/** CPU ms of a process (`children`: of its reaped children) from /proc; null off Linux. */
function cpuMs(pid: number | null | undefined, children = false): number | null {
  if (!pid) return null;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const [u, s] = children ? [f[13], f[14]] : [f[11], f[12]];
    return ((Number(u) + Number(s)) * 1000) / 100; // clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

interface ColdRun {
  firstOkMs: number;
  dbrestCpuMs: number | null;
  pgCpuMs: number | null;
  cacheLine: string;
}

async function coldStart(uri: string, probe: string, postmaster: number | null): Promise<ColdRun> {
  const port = await freePort();
  const env = { ...process.env, NO_COLOR: '1', DBREST_DB_URI: uri, DBREST_DB_ANON_ROLE: 'postgres', DBREST_SERVER_PORT: String(port), DBREST_LOG_LEVEL: 'info', DBREST_SERVER_HOST: '127.0.0.1' };
  const pg0 = cpuMs(postmaster, true);
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.resolve('bin/dbrest.js'), 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  let firstOkMs = -1;
  while (performance.now() - t0 < 120_000) {
    if ((await get(port, probe)) === 200) {
      firstOkMs = performance.now() - t0;
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const dbrestCpuMs = cpuMs(child.pid);
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  await new Promise((r) => setTimeout(r, 300)); // its backends exit and are reaped
  const pg1 = cpuMs(postmaster, true);
  const pgCpuMs = pg0 === null || pg1 === null ? null : pg1 - pg0;
  return { firstOkMs, dbrestCpuMs, pgCpuMs, cacheLine: /schema cache loaded: .*/.exec(out)?.[0] ?? out.slice(0, 300) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const ms = (x: number | null): string => (x === null ? '?' : x.toFixed(0));

const external = process.env.COLD_DB_URI ?? null;
const tmp = external ? null : mkdtempSync(path.join(os.tmpdir(), 'dbrest-cold-'));
const db = tmp ? await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata'), durable: false }) : null;
const serverUri = external ?? db!.uri;
try {
  const admin = new pg.Client({ connectionString: serverUri });
  admin.on('error', () => undefined);
  await admin.connect();
  const summary: string[] = [];
  for (const n of sizes.length ? sizes : [1000, 5000, 20000, 50000]) {
    const name = `cold_${n}`;
    const u = new URL(serverUri);
    u.pathname = '/' + name;
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rows.length > 0;
    if (!exists) {
      await admin.query(`CREATE DATABASE ${name}`);
      const c = new pg.Client({ connectionString: u.toString() });
      await c.connect();
      const t0 = performance.now();
      // In batches: one transaction creating 50,000 tables runs out of lock slots.
      const statements = generateBigSchemaSql(n, n - 1).split(';\n').filter((x) => x.trim() !== '');
      for (let i = 0; i < statements.length; i += 500) await c.query(statements.slice(i, i + 500).join(';\n') + ';');
      await c.query('ANALYZE');
      await c.end();
      console.log(`${n} tables / ${n - 1} FKs: catalog made in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } else {
      console.log(`${n} tables / ${n - 1} FKs: reusing ${name}`);
    }
    const runsOf: ColdRun[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await coldStart(u.toString(), `/bench_t${String(1).padStart(4, '0')}?limit=1`, db?.pid() ?? (Number(process.env.COLD_PG_PID) || null));
      runsOf.push(r);
      console.log(`  run ${i + 1}: first 200 after ${r.firstOkMs.toFixed(0)} ms (CPU: dbrest ${ms(r.dbrestCpuMs)} ms, PostgreSQL ${ms(r.pgCpuMs)} ms); ${r.cacheLine}`);
    }
    const cpu = (k: 'dbrestCpuMs' | 'pgCpuMs') => (runsOf.every((r) => r[k] !== null) ? ms(median(runsOf.map((r) => r[k]!))) : '?');
    summary.push(`${String(n).padStart(6)} tables: first 200 median ${median(runsOf.map((r) => r.firstOkMs)).toFixed(0)} ms (min ${Math.min(...runsOf.map((r) => r.firstOkMs)).toFixed(0)}); CPU median dbrest ${cpu('dbrestCpuMs')} ms, PostgreSQL ${cpu('pgCpuMs')} ms`);
  }
  await admin.end();
  console.log(summary.join('\n'));
} finally {
  await db?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
