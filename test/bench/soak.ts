// `npm run soak` (not part of CI): a mixed workload against a dbrest child process on a throwaway
// embedded PostgreSQL loaded with the bench dataset (test/bench/dataset.ts), for a set time. It
// reports req/s, answers by status, latency percentiles and the server's RSS over time (from
// /proc/<pid>/status), and checks that RSS ends flat: the median of the last three samples at most
// 10 % above the median of the first three after warm-up (medians, because a sample taken while a
// large export is in memory is a momentary peak). The slope over the measured samples is printed too.
// It also checks that no answer was a 5xx, no request failed on the connection (except the
// clients that hang up on purpose), and that no dbrest backend is left busy once the load stops.
//
// Settings (environment):
//   SOAK_SECONDS          total load time (default 600), warm-up included
//   SOAK_WARMUP_SECONDS   first part not counted for RSS and latency (default 20 % of it, at most 60)
//   SOAK_SAMPLE_SECONDS   RSS / req/s sampling interval (default 10)
//   SOAK_CONNECTIONS      concurrent clients (default 16)
//   SOAK_SCALE            dataset size multiplier (default 1: 200k tracks)
//   SOAK_EXPORT_ROWS      rows of a large export (default 10000)
//   SOAK_ONLY             comma list of request kinds to run (e.g. `rpc,insert`; default all)
//   SOAK_DBREST_BIN       script started as `node <script> serve` (default bin/dbrest.js)
//
// Exit code 0 on PASS, 1 on FAIL or error. Everything started is stopped, the cluster removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';
import { freePort, startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/embedded/postgres.js';
import { exitCleanup } from './cleanup.js';
import { ANON_ROLE, datasetSteps, scaledSize } from './dataset.js';
import { envNumber } from './env.js';

const here = path.dirname(fileURLToPath(import.meta.url)); // dist/test/bench
const root = path.resolve(here, '..', '..', '..');


const seconds = Math.round(envNumber('SOAK_SECONDS', 600, 10));
const cfg = {
  seconds,
  warmup: Math.round(envNumber('SOAK_WARMUP_SECONDS', Math.min(60, seconds * 0.2), 0)),
  sample: envNumber('SOAK_SAMPLE_SECONDS', 10, 1),
  connections: Math.round(envNumber('SOAK_CONNECTIONS', 16, 1)),
  scale: envNumber('SOAK_SCALE', 1, 0.001),
  exportRows: Math.round(envNumber('SOAK_EXPORT_ROWS', 10_000, 1)),
  dbrestBin: path.resolve(root, process.env.SOAK_DBREST_BIN || path.join('bin', 'dbrest.js')),
};
if (cfg.warmup >= cfg.seconds) throw new Error('SOAK_WARMUP_SECONDS must be less than SOAK_SECONDS');
const size = scaledSize(cfg.scale);
const RSS_LIMIT = 0.1;

const log = (line = '') => process.stdout.write(line + '\n');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

// ---------------------------------------------------------------------------------------------
// cleanup on every exit path

const { add: onExit, run: cleanup } = exitCleanup(log);

function startServer(port: number, uri: string): { proc: ChildProcess; tail: () => string; stop: () => Promise<void> } {
  const proc = spawn(process.execPath, [cfg.dbrestBin, 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      DBREST_DB_URI: uri,
      DBREST_DB_ANON_ROLE: ANON_ROLE,
      DBREST_DB_SCHEMAS: 'public',
      DBREST_SERVER_HOST: '127.0.0.1',
      DBREST_SERVER_PORT: String(port),
      DBREST_LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (c: Buffer) => (out = (out + c.toString()).slice(-8000));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    if (!(await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]))) {
      proc.kill('SIGKILL');
      await exited;
    }
  };
  onExit(stop);
  return { proc, tail: () => out.trim(), stop };
}

function rssKb(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// the workload

interface Op {
  readonly name: string;
  readonly weight: number;
  /** One request; resolves with its status, or 'aborted' for a client that hung up on purpose. */
  run(): Promise<number | 'aborted'>;
}

const rand = (n: number) => 1 + Math.floor(Math.random() * n);

function operations(base: string, port: number, agent: Agent): Op[] {
  const call = async (method: string, p: string, headers: Record<string, string> = {}, body?: string): Promise<number> => {
    const res = await request(base + p, { method: method as 'GET', headers, body, dispatcher: agent, headersTimeout: 60_000, bodyTimeout: 60_000 });
    await res.body.dump({ limit: Infinity });
    return res.statusCode;
  };
  const json = { accept: 'application/json' };
  const post = { 'content-type': 'application/json', accept: 'application/json' };
  // A client that asks for a large answer and goes away: after the first bytes, or before any.
  const hangUp = (): Promise<'aborted'> =>
    new Promise((resolve) => {
      const early = Math.random() < 0.5;
      const req = http.request({ host: '127.0.0.1', port, path: `/tracks?limit=${cfg.exportRows}`, agent: false, headers: json }, (res) => {
        res.on('error', () => undefined); // the abort we cause
        res.once('data', () => req.destroy());
        res.once('end', () => resolve('aborted')); // answered before we could hang up
      });
      req.once('error', () => resolve('aborted'));
      req.once('close', () => resolve('aborted'));
      if (early) setTimeout(() => req.destroy(), Math.random() * 20);
      req.end();
    });
  return [
    { name: 'read by PK', weight: 30, run: () => call('GET', `/tracks?id=eq.${rand(size.tracks)}`, json) },
    { name: 'read 50 rows', weight: 12, run: () => call('GET', `/tracks?album_id=lte.${rand(size.albums)}&order=id.desc&limit=50`, json) },
    { name: 'embed', weight: 12, run: () => call('GET', `/albums?select=id,title,tracks(id,name)&id=gt.${rand(size.albums - 10)}&order=id&limit=10`, json) },
    {
      name: 'insert',
      weight: 12,
      run: () =>
        call('POST', '/customers', { ...post, prefer: 'return=minimal' }, JSON.stringify({ first_name: 'Soak', last_name: 'Test', email: 'soak@example.com', country: 'Norway' })),
    },
    { name: 'rpc', weight: 12, run: () => call('POST', '/rpc/add_them', post, JSON.stringify({ a: rand(100), b: rand(100) })) },
    {
      name: 'large export',
      weight: 2,
      run: () => call('GET', `/tracks?id=gt.${rand(size.tracks / 2)}&order=id&limit=${cfg.exportRows}`, Math.random() < 0.5 ? json : { accept: 'text/csv' }),
    },
    { name: 'disconnecting client', weight: 2, run: hangUp },
  ];
}

function pick(ops: Op[], total: number): Op {
  let r = Math.random() * total;
  for (const op of ops) if ((r -= op.weight) < 0) return op;
  return ops[ops.length - 1]!;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  log(`dbrest soak — ${os.cpus().length} CPU(s), node ${process.version}; ${cfg.seconds} s (${cfg.warmup} s warm-up), ${cfg.connections} clients, RSS every ${cfg.sample} s`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-soak-'));
  onExit(() => rmSync(tmp, { recursive: true, force: true }));
  log('starting embedded PostgreSQL…');
  const db: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata') });
  onExit(() => db.stop());

  log(`loading dataset (tracks ${size.tracks}, albums ${size.albums}, customers ${size.customers})…`);
  const admin = new pg.Client({ connectionString: db.uri });
  await admin.connect();
  await admin.query('CREATE DATABASE dbrest_soak');
  await admin.end();
  const u = new URL(db.uri);
  u.pathname = '/dbrest_soak';
  const uri = u.toString();
  const loader = new pg.Client({ connectionString: uri });
  await loader.connect();
  for (const step of datasetSteps(size)) await loader.query(step.sql);
  await loader.query('VACUUM ANALYZE');
  await loader.end();

  const port = await freePort();
  const server = startServer(port, uri);
  const pid = server.proc.pid!;
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (server.proc.exitCode !== null) throw new Error(`dbrest exited: ${server.tail()}`);
    try {
      const r = await request(base + '/', {});
      await r.body.dump();
      break;
    } catch {
      if (i > 150) throw new Error('dbrest did not answer within 30 s');
      await sleep(200);
    }
  }
  log(`dbrest pid ${pid} on ${base}; RSS at start ${round((rssKb(pid) ?? 0) / 1024)} MB\n`);

  const agent = new Agent({ connections: cfg.connections });
  onExit(() => agent.close());
  const only = (process.env.SOAK_ONLY ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  const ops = operations(base, port, agent).filter((o) => only.length === 0 || only.includes(o.name));
  if (ops.length === 0) throw new Error(`SOAK_ONLY matches no request kind`);
  const totalWeight = ops.reduce((a, o) => a + o.weight, 0);

  // Counters: since start, and since the last sample.
  const byStatus = new Map<string, number>();
  const byOp = new Map<string, number>();
  let latencies = new Float64Array(1 << 16);
  let nLat = 0;
  let windowLat: number[] = [];
  let windowCount = 0;
  let measuring = false;
  const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

  const t0 = performance.now();
  const end = t0 + cfg.seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const op = pick(ops, totalWeight);
      const start = performance.now();
      let outcome: string;
      try {
        const r = await op.run();
        outcome = String(r);
      } catch (e) {
        outcome = `error: ${(e as { code?: string }).code ?? (e as Error).message}`;
      }
      const ms = performance.now() - start;
      count(byOp, op.name);
      windowCount++;
      if (outcome !== 'aborted') windowLat.push(ms);
      if (!measuring) continue;
      count(byStatus, outcome);
      if (outcome === 'aborted') continue;
      if (nLat === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[nLat++] = ms;
    }
  };

  const samples: Array<{ t: number; rssMb: number; rps: number; p99: number }> = [];
  log(`${'t (s)'.padStart(6)} ${'RSS MB'.padStart(8)} ${'req/s'.padStart(8)} ${'p99 ms'.padStart(8)}`);
  const sampler = (async () => {
    let last = performance.now();
    while (performance.now() < end) {
      await sleep(Math.min(cfg.sample * 1000, Math.max(0, end - performance.now())));
      const now = performance.now();
      const t = (now - t0) / 1000;
      const rss = rssKb(pid);
      const lat = Float64Array.from(windowLat).sort();
      const s = { t: round(t, 0), rssMb: rss === null ? NaN : round(rss / 1024), rps: round(windowCount / ((now - last) / 1000), 0), p99: round(percentile(lat, 99)) };
      windowLat = [];
      windowCount = 0;
      last = now;
      samples.push(s);
      const warm = t >= cfg.warmup;
      log(`${String(s.t).padStart(6)} ${String(s.rssMb).padStart(8)} ${String(s.rps).padStart(8)} ${String(s.p99).padStart(8)}${warm ? '' : '  (warm-up)'}`);
      if (server.proc.exitCode !== null) throw new Error(`dbrest exited during the soak: ${server.tail()}`);
    }
  })();
  const warmTimer = setTimeout(() => (measuring = true), cfg.warmup * 1000);
  const measureFrom = performance.now() + cfg.warmup * 1000;
  await Promise.all([sampler, ...Array.from({ length: cfg.connections }, worker)]);
  clearTimeout(warmTimer);
  const measuredS = (performance.now() - measureFrom) / 1000;

  // After the load: no dbrest backend may still be working (cancelled or finished, none stuck).
  await sleep(1000);
  const check = new pg.Client({ connectionString: uri });
  await check.connect();
  const busy = Number(
    (await check.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'dbrest' AND state <> 'idle' AND pid <> pg_backend_pid()`)).rows[0]?.n ?? 0,
  );
  await check.end();

  // Report.
  const sorted = latencies.subarray(0, nLat).sort();
  const measured = [...byStatus.values()].reduce((a, b) => a + b, 0);
  const after = samples.filter((s) => s.t >= cfg.warmup && Number.isFinite(s.rssMb));
  const baseRss = median(after.slice(0, 3).map((s) => s.rssMb));
  const endRss = median(after.slice(-3).map((s) => s.rssMb));
  // Least-squares slope of RSS over the measured samples, MB per minute.
  const mt = after.reduce((a, s) => a + s.t, 0) / after.length;
  const mr = after.reduce((a, s) => a + s.rssMb, 0) / after.length;
  const slope = (after.reduce((a, s) => a + (s.t - mt) * (s.rssMb - mr), 0) / after.reduce((a, s) => a + (s.t - mt) ** 2, 0)) * 60;
  const growth = (endRss - baseRss) / baseRss;
  const statuses = [...byStatus.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const fiveXx = statuses.filter(([k]) => /^5\d\d$/.test(k)).reduce((a, [, n]) => a + n, 0);
  const failed = statuses.filter(([k]) => k.startsWith('error')).reduce((a, [, n]) => a + n, 0);

  log('');
  log(`measured ${round(measuredS, 0)} s after ${cfg.warmup} s warm-up: ${measured} requests, ${round(measured / measuredS, 0)} req/s`);
  log(`latency (hang-ups excluded): p50 ${round(percentile(sorted, 50))} ms, p99 ${round(percentile(sorted, 99))} ms, max ${round(percentile(sorted, 100))} ms`);
  log(`answers by status: ${statuses.map(([k, n]) => `${k}: ${n}`).join(', ')}`);
  log(`requests by kind (whole run): ${[...byOp.entries()].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  log(
    `RSS: ${samples[0]?.rssMb ?? '?'} MB at the first sample; after warm-up ${baseRss} MB, at the end ${endRss} MB (medians of 3 samples): ${growth >= 0 ? '+' : ''}${round(growth * 100)} %; slope ${round(slope, 2)} MB/min; range ${Math.min(...after.map((s) => s.rssMb))}–${Math.max(...after.map((s) => s.rssMb))} MB`,
  );
  log(`dbrest backends still busy 1 s after the load: ${busy}`);
  const problems: string[] = [];
  if (!(growth <= RSS_LIMIT)) problems.push(`RSS grew ${round(growth * 100)} % (limit ${RSS_LIMIT * 100} %)`);
  if (fiveXx > 0) problems.push(`${fiveXx} answers were 5xx`);
  if (failed > 0) problems.push(`${failed} requests failed on the connection`);
  if (busy > 0) problems.push(`${busy} backends left busy`);
  if (measured === 0) problems.push('no request measured');
  if (after.length < 6) problems.push(`only ${after.length} RSS samples after warm-up (need 6: raise SOAK_SECONDS or lower SOAK_SAMPLE_SECONDS)`);
  log(problems.length === 0 ? 'PASS' : `FAIL: ${problems.join('; ')}`);
  return problems.length === 0 ? 0 : 1;
}

main()
  .catch((e: Error) => {
    log(`soak failed: ${e.stack ?? e.message}`);
    return 1;
  })
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  });
