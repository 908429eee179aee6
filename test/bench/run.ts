// `npm run bench`: dbrest against the floor (test/bench/floor-server.ts) on the workloads of the
// performance spec, on a throwaway embedded PostgreSQL loaded with test/bench/dataset.ts.
//
// Everything runs on this machine over 127.0.0.1; every load run is bounded in time, every other
// request in count; every process started here is stopped at the end (also on error, SIGINT,
// SIGTERM or the watchdog) and the temporary cluster is removed.
//
// Settings (environment):
//   BENCH_SECONDS          measured load time per server and case (default 10)
//   BENCH_ROUNDS           rounds it is split into, run ABBA-alternating with the floor (default 4)
//   BENCH_WARMUP_SECONDS   unmeasured run per server before each case (default 15; 0 for none). Long
//                          enough for V8 to have optimized the case's code: from a fresh start on
//                          W3, dbrest's CPU per request fell from ~900 µs (first 5 s) to ~400 only
//                          after ~45 s (TurboFan still compiling ~60 µs a request at 5–11 s), the
//                          floor's, with far less code, from ~600 to ~350 within 15 s; a 3 s warm-up
//                          measured the JIT's start more than either server's steady state.
//   BENCH_CONNECTIONS      concurrent connections of the load generator (default 32)
//   BENCH_POOL             database pool size of both servers (default 10)
//   BENCH_SCALE            dataset size multiplier (default 1: 200k tracks)
//   BENCH_W6_REQUESTS      sequential big-response requests per server (default 3)
//   BENCH_W6_ROWS          rows of the W6 response (default 100000; at most the tracks, see BENCH_SCALE)
//   BENCH_W7_RUNS          schema-cache loads timed (default 3)
//   BENCH_W7_TABLES / BENCH_W7_FKS   size of the big catalog (default 1000 / 2000)
//   BENCH_OBSERVE          on: dbrest runs with metrics (an admin server), log-format=json and
//                          log-level=info (a JSON access line per request); off (default) without.
//                          The lines go through a pipe this process reads, as a log shipper reading
//                          dbrest's stderr would; it keeps only the last 8,000 bytes (for a failure)
//   BENCH_CASES            comma list of cases to run, e.g. W1,W3,W7,M1,C2,P1 (default all but
//                          W1X2 and W2X2, which run only when named: W1 and W2 on a dbrest with
//                          server-workers=1 vs one with server-workers=2, each worker with BENCH_POOL)
//                          and W1U and W2U, also only when named: W1 and W2 on a dbrest with
//                          db-prepared-statements=true vs one with false;
//                          and W1B and W2B, also only when named: W1 and W2 on a dbrest straight to
//                          PostgreSQL vs one whose db-uri goes through PgBouncer (Debian's
//                          /usr/sbin/pgbouncer, transaction mode, default_pool_size BENCH_POOL), both
//                          with db-prepared-statements=false (which transaction pooling needs) and
//                          db-channel-uri direct. Every pair case reports CPU per request of the
//                          server and of PostgreSQL (its postmaster's children), and for W1B/W2B
//                          PgBouncer's own beside them, from /proc/<pid>/stat utime+stime; the
//                          CPU ratio is (server + PostgreSQL) of side b ÷ side a; beside it, the
//                          context switches of PostgreSQL's backends per request (/proc/<pid>/status)
//                          W1O and W2O, also only when named: W1 and W2 on a fresh dbrest with
//                          metrics and JSON access logs off vs one with both on (an admin server,
//                          log-format=json, log-level=info), issue 29's overhead, in alternating rounds
//   BENCH_OBSERVE_CONTROL=1  W1O and W2O's side b is off too: the A/A control, what the method
//                          measures between two fresh dbrests configured alike
//   BENCH_CONTENT_PAGES    generated pages of the content API cases P1–P5 (default 100000)
//   BENCH_KEEP_LOGS=1      print the servers' output tails at the end
//   BENCH_DBREST_BIN       script started as `node <script> serve` (default bin/dbrest.js)
//   BENCH_FSYNC            on (default) or off: the benched PostgreSQL keeps its default durable
//                          settings (fsync on, synchronous_commit on), as users run it; `off` turns
//                          fsync off (commits then cost no WAL flush: figures say nothing of a
//                          durable database, and the output says which was used)
//   BENCH_GENERATOR        wrk or autocannon (default: wrk when on PATH); it always runs in a
//                          process of its own (test/bench/loadgen.ts)
//
// Results: a table on stdout and .dbrest/bench-results.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { freePort, startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/embedded/postgres.js';
import { ANON_ROLE, datasetSteps, scaledSize, type DatasetSize } from './dataset.js';
import { chooseGenerator, runGenerator, stopGenerator, type GenResult } from './loadgen.js';
import { exitCleanup } from './cleanup.js';
import { envNumber } from './env.js';
import { pooledPercentile } from './percentiles.js';
import { P99_TARGET, ratioText, roundRatios, targetCheck, type CaseFigures } from './targets.js';
import { findPgBouncer, startPgBouncer } from '../helpers/pgbouncer.js';
import { FLOOR_BIN, serverArgs } from './cpu-runs.js';

const here = path.dirname(fileURLToPath(import.meta.url)); // dist/test/bench
const root = path.resolve(here, '..', '..', '..');

// ---------------------------------------------------------------------------------------------
// settings


const cfg = {
  seconds: Math.round(envNumber('BENCH_SECONDS', 10, 1)),
  warmup: Math.round(envNumber('BENCH_WARMUP_SECONDS', 15, 0)),
  // Rounds of at least one second each.
  rounds: Math.min(Math.round(envNumber('BENCH_ROUNDS', 4, 1)), Math.max(1, Math.round(envNumber('BENCH_SECONDS', 10, 1)))),
  connections: Math.round(envNumber('BENCH_CONNECTIONS', 32, 1)),
  pool: Math.round(envNumber('BENCH_POOL', 10, 1)),
  scale: envNumber('BENCH_SCALE', 1, 0.001),
  w6Requests: Math.round(envNumber('BENCH_W6_REQUESTS', 3, 1)),
  w7Runs: Math.round(envNumber('BENCH_W7_RUNS', 3, 1)),
  w7Tables: Math.round(envNumber('BENCH_W7_TABLES', 1000, 1)),
  w7Fks: Math.round(envNumber('BENCH_W7_FKS', 2000, 0)),
  contentPages: Math.round(envNumber('BENCH_CONTENT_PAGES', 100000, 10)),
  cases: (process.env.BENCH_CASES ?? '')
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean),
  keepLogs: process.env.BENCH_KEEP_LOGS === '1',
  // W1O/W2O's A/A control: side b off too.
  observeControl: process.env.BENCH_OBSERVE_CONTROL === '1',
  // Users run PostgreSQL durable; only an explicit BENCH_FSYNC=off measures without the WAL flush.
  durable: (process.env.BENCH_FSYNC ?? 'on').toLowerCase() !== 'off',
  dbrestBin: path.resolve(root, process.env.BENCH_DBREST_BIN || path.join('bin', 'dbrest.js')),
};
const size: DatasetSize = scaledSize(cfg.scale);
const wanted = (id: string) => cfg.cases.length === 0 || cfg.cases.includes(id);
/** Cases that run only when BENCH_CASES names them. */
const named = (id: string) => cfg.cases.includes(id);

const log = (line = '') => process.stdout.write(line + '\n');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;
const mb = (kb: number) => round(kb / 1024, 1);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

// ---------------------------------------------------------------------------------------------
// cleanup on every exit path (cleanup.ts)

const { add: onExit, run: cleanup, abort } = exitCleanup(log, stopGenerator);

// ---------------------------------------------------------------------------------------------
// child processes

interface Child {
  readonly name: string;
  readonly proc: ChildProcess;
  readonly pid: number | undefined;
  /** Null while running; the exit code (or signal name) once it has exited. */
  exit(): string | null;
  tail(): string;
  stop(): Promise<void>;
}

const TAIL_BYTES = 8000;

function startChild(name: string, args: string[], env: Record<string, string>): Child {
  const proc = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // The output's last TAIL_BYTES, kept as the chunks read and decoded only when asked for: with
  // BENCH_OBSERVE=on a dbrest writes a JSON line per request, and decoding and concatenating every
  // chunk took this process's CPU from the same cores as the server's.
  const chunks: Buffer[] = [];
  let kept = 0;
  let exit: string | null = null;
  const keep = (c: Buffer) => {
    chunks.push(c);
    kept += c.length;
    while (chunks.length > 1 && kept - chunks[0]!.length >= TAIL_BYTES) kept -= chunks.shift()!.length;
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    proc.once('exit', (code, signal) => {
      exit = signal ?? String(code);
      resolve();
    });
    proc.once('error', (e) => {
      exit = `spawn error: ${e.message}`;
      resolve();
    });
  });
  const child: Child = {
    name,
    proc,
    pid: proc.pid,
    exit: () => exit,
    tail: () => Buffer.concat(chunks).subarray(-TAIL_BYTES).toString().trim(),
    async stop() {
      if (exit !== null) return;
      proc.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
      if (!done) {
        proc.kill('SIGKILL');
        await exited;
      }
    },
  };
  onExit(() => child.stop());
  return child;
}

// ---------------------------------------------------------------------------------------------
// plain HTTP, for probes and the big response

interface HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

interface HttpResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer | null;
  readonly bytes: number;
  /** Time to the first body byte (or the end, for an empty body) and to the last byte. */
  readonly ttfbMs: number;
  readonly totalMs: number;
}

function request(port: number, req: HttpRequest, timeoutMs: number, keepBody = true): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const r = http.request(
      { host: '127.0.0.1', port, method: req.method, path: req.path, headers: req.headers, agent: false, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        let ttfb = -1;
        res.on('data', (c: Buffer) => {
          if (ttfb < 0) ttfb = performance.now() - t0;
          bytes += c.length;
          if (keepBody) chunks.push(c);
        });
        res.on('end', () => {
          const totalMs = performance.now() - t0;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: keepBody ? Buffer.concat(chunks) : null, bytes, ttfbMs: ttfb < 0 ? totalMs : ttfb, totalMs });
        });
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

/** Resolves with the status of the first answer to GET /, or a reason it never came. */
async function waitAnswering(port: number, child: Child, timeoutMs: number): Promise<{ status: number } | { reason: string }> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const exit = child.exit();
    if (exit !== null) return { reason: `exited (${exit}) before answering${child.tail() ? ':\n' + indent(child.tail()) : ''}` };
    try {
      const r = await request(port, { method: 'GET', path: '/' }, 1000);
      return { status: r.status };
    } catch (e) {
      last = (e as Error).message;
    }
    await sleep(200);
  }
  return { reason: `no answer on port ${port} within ${timeoutMs / 1000} s (${last})` };
}

const indent = (s: string) =>
  s
    .split('\n')
    .slice(-15)
    .map((l) => '    ' + l)
    .join('\n');

/** /proc/<pid>/status fields in kB (Linux only; empty elsewhere). */
function procStatus(pid: number | undefined): { rssKb?: number; hwmKb?: number } {
  if (pid === undefined) return {};
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => {
      const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
      return m ? Number(m[1]) : undefined;
    };
    return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
  } catch {
    return {};
  }
}

/** Reset the peak RSS (VmHWM) of a process to its current RSS (Linux ≥ 4.0). */
function resetPeak(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** JSON equality up to the order of array elements (embedded children come in no set order). */
function sameJson(a: Buffer | null, b: Buffer | null): boolean | null {
  if (a === null || b === null) return null;
  if (a.length === 0 || b.length === 0) return a.length === b.length;
  try {
    return isDeepStrictEqual(canonical(JSON.parse(a.toString('utf8'))), canonical(JSON.parse(b.toString('utf8'))));
  } catch {
    return false;
  }
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) {
    return v
      .map(canonical)
      .map((x) => [JSON.stringify(x), x] as const)
      .sort((p, q) => (p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : 0))
      .map((p) => p[1]);
  }
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, canonical(x)]));
  }
  return v;
}

const snippet = (b: Buffer | null) => (b ? b.toString('utf8', 0, Math.min(b.length, 300)).replace(/\s+/g, ' ') : '');

// ---------------------------------------------------------------------------------------------
// load cases (W1–W5)

interface LoadCase {
  readonly id: string;
  readonly title: string;
  /** Cycled through by every connection; the first is also the probe. */
  readonly requests: ReadonlyArray<HttpRequest>;
  /** Concurrent connections for this case (default BENCH_CONNECTIONS). */
  readonly connections?: number;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** The benched database's durability, as the output states it. */
function durabilityText(): string {
  return cfg.durable
    ? 'durable (default settings: fsync on, synchronous_commit on)'
    : 'NOT durable (BENCH_FSYNC=off: fsync off, commits cost no WAL flush)';
}

/** `count` keys spread over 1..max in a fixed pseudo-random order (the same on every run). */
function spreadKeys(count: number, max: number): number[] {
  return Array.from({ length: count }, (_, k) => 1 + ((k * 7919 + 104_729) % max));
}

const ALBUM_COLUMNS = 'id,artist_id,title,released';
const TRACK_COLUMNS = 'id,album_id,name,composer,milliseconds,bytes,unit_price';

function loadCases(): LoadCase[] {
  const albumMax = Math.max(1, Math.round(size.albums / 40)); // 2.5% of the tracks match
  const accept = { accept: 'application/json' };
  return [
    {
      id: 'W1',
      title: 'one row by a random PK',
      // Keys all over the table, as users' lookups are: not a few hot rows.
      requests: spreadKeys(1024, size.tracks).map((id) => ({ method: 'GET', path: `/tracks?id=eq.${id}`, headers: accept })),
    },
    {
      id: 'W2',
      title: '50 rows filter+order+limit',
      requests: [{ method: 'GET', path: `/tracks?album_id=lte.${albumMax}&order=id.desc&limit=50`, headers: accept }],
    },
    {
      id: 'W3',
      title: 'filter, to-many embed, no limit',
      // The commonest PostgREST read: a filter on a random key and no limit (10 albums × 10 tracks).
      requests: spreadKeys(512, size.artists).map((artist) => ({
        method: 'GET',
        path: `/albums?select=${ALBUM_COLUMNS},tracks(${TRACK_COLUMNS})&artist_id=eq.${artist}&order=id`,
        headers: accept,
      })),
    },
    {
      id: 'W3L',
      title: '10 parents + children, limit',
      requests: [{ method: 'GET', path: '/albums?select=id,title,tracks(id,name)&limit=10&order=id', headers: accept }],
    },
    {
      id: 'W4',
      title: 'insert, return=minimal',
      requests: [
        {
          method: 'POST',
          path: '/customers',
          headers: { ...JSON_HEADERS, prefer: 'return=minimal' },
          body: JSON.stringify({ first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com', country: 'Norway' }),
        },
      ],
    },
    {
      id: 'W5',
      title: 'scalar RPC',
      requests: [{ method: 'POST', path: '/rpc/add_them', headers: JSON_HEADERS, body: JSON.stringify({ a: 1, b: 2 }) }],
    },
  ];
}

/** One measured load-generator run: the generator's figures, with CPU per request beside them. */
interface RunFigures extends GenResult {
  /** CPU microseconds per request: the server process, and all PostgreSQL backends together. */
  readonly serverCpuUs: number | null;
  readonly pgCpuUs: number | null;
  /** PgBouncer's CPU µs per request, for a server whose db-uri goes through it; null otherwise. */
  readonly poolerCpuUs: number | null;
  /** Context switches of PostgreSQL's backends per request: how often they slept and woke. */
  readonly pgSwitches: number | null;
  /**
   * This bench process's own CPU µs per request during the round: mostly reading the server's
   * output pipe (a JSON line per request with log-format=json, as a log shipper would). It takes
   * the same 2 cores as the server and PostgreSQL, so it shows in req/s but not in their CPU.
   */
  readonly benchCpuUs: number;
  readonly reqPerSec: number;
}

/** The rounds of one server on one case, combined. */
interface LoadFigures {
  /** All requests of all rounds ÷ their total duration. */
  readonly reqPerSec: number;
  /**
   * p50 and p99 of all requests of the rounds together (percentiles.ts); where a run reported no
   * percentile ladder, the median round's p50 and the worst round's p99.
   */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The worst round's p99, for the record: one slow stretch in one round shows here. */
  readonly worstRoundP99Ms: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodes: Record<string, number>;
  readonly rounds: ReadonlyArray<RunFigures>;
  /** Median CPU µs per request over the rounds (null when /proc is not readable). */
  readonly serverCpuUs: number | null;
  readonly pgCpuUs: number | null;
  readonly poolerCpuUs: number | null;
  readonly pgSwitches: number | null;
  readonly benchCpuUs: number | null;
}

interface Side {
  /** 'ok', or why there is no figure ('n/a'). */
  readonly outcome: 'ok' | 'n/a';
  readonly probeStatus?: number;
  readonly note?: string;
  readonly figures?: LoadFigures;
}

interface LoadCaseResult {
  readonly id: string;
  readonly title: string;
  readonly request: string;
  readonly floor: Side;
  readonly dbrest: Side;
  /** dbrest req/s ÷ floor req/s, or null when either side has no figure. */
  readonly ratio: number | null;
  /** The same ratio per round (targets.ts roundRatios); empty when either side has no figure. */
  readonly roundRatios: number[];
  /** Whether both probes returned the same JSON (null when not comparable). */
  readonly sameBody: boolean | null;
}

const generator = chooseGenerator();

// CPU accounting from /proc: steadier than req/s on a shared machine, and it says which side
// (Node or PostgreSQL) a difference comes from.
const serverPids = new Map<number, number>(); // port → pid
/** port → pid of the PgBouncer that server's db-uri goes through (W1B, W2B). */
const poolerPids = new Map<number, number>();
let postmasterPid: number | null = null;
const TICKS_PER_SECOND = 100;

/** utime + stime; with `reaped`, also the time of its children that have exited (cutime + cstime). */
function cpuTicks(pid: number, reaped = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(fields[11]) + Number(fields[12]);
    return reaped ? own + Number(fields[13]) + Number(fields[14]) : own;
  } catch {
    return 0;
  }
}

/** A process and its children: PostgreSQL's backends, a dbrest primary's server-workers. */
function treeTicks(root: number): number {
  // Children that exit during a round (a pool closing idle connections) take their CPU time out
  // of the sum of the live ones; the parent's reaped-children time puts it back.
  let total = cpuTicks(root, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === root) total += cpuTicks(Number(entry));
    } catch {
      /* gone */
    }
  }
  return total;
}

const postgresTicks = (): number => (postmasterPid === null ? 0 : treeTicks(postmasterPid));

/**
 * Context switches (voluntary and not) of the postmaster's children: a backend that gets several
 * transactions per wake-up (dbrest pipelines them on one connection) switches less per request.
 * Children that exit during a round take theirs with them (no reaped total as for CPU time).
 */
function postgresSwitches(): number {
  if (postmasterPid === null) return 0;
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== postmasterPid) continue;
      for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)) total += Number(m[1]);
    } catch {
      /* gone */
    }
  }
  return total;
}

async function measureRound(port: number, c: LoadCase, seconds: number): Promise<RunFigures> {
  const pid = serverPids.get(port);
  const pooler = poolerPids.get(port);
  const server0 = pid ? treeTicks(pid) : 0;
  const pooler0 = pooler ? cpuTicks(pooler) : 0;
  const pg0 = postgresTicks();
  const switches0 = postgresSwitches();
  const own0 = process.cpuUsage();
  const r = await runGenerator(generator.name, { port, connections: c.connections ?? cfg.connections, seconds, requests: c.requests });
  // Before the /proc reads below, which are the bench's bookkeeping, not the load's.
  const own = process.cpuUsage(own0);
  const perRequest = (ticks: number) => (r.requests > 0 ? round((ticks / TICKS_PER_SECOND / r.requests) * 1e6, 0) : null);
  return {
    serverCpuUs: pid ? perRequest(treeTicks(pid) - server0) : null,
    pgCpuUs: postmasterPid !== null ? perRequest(postgresTicks() - pg0) : null,
    poolerCpuUs: pooler ? perRequest(cpuTicks(pooler) - pooler0) : null,
    pgSwitches: postmasterPid !== null && r.requests > 0 ? round((postgresSwitches() - switches0) / r.requests, 2) : null,
    benchCpuUs: r.requests > 0 ? round((own.user + own.system) / r.requests, 1) : 0,
    seconds: round(r.seconds, 2),
    requests: r.requests,
    reqPerSec: r.seconds > 0 ? round(r.requests / r.seconds, 0) : 0,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    quantilesMs: r.quantilesMs,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: r.statusCodes,
  };
}

function combine(rounds: RunFigures[]): LoadFigures {
  const sum = (f: (r: RunFigures) => number) => rounds.reduce((a, r) => a + f(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const r of rounds) for (const [k, v] of Object.entries(r.statusCodes)) statusCodes[k] = (statusCodes[k] ?? 0) + v;
  const seconds = sum((r) => r.seconds);
  const ladders = rounds.every((r) => r.quantilesMs !== undefined) ? rounds.map((r) => ({ requests: r.requests, ms: r.quantilesMs! })) : null;
  const worstRoundP99Ms = Math.max(...rounds.map((r) => r.p99Ms));
  return {
    reqPerSec: seconds > 0 ? round(sum((r) => r.requests) / seconds, 0) : 0,
    p50Ms: ladders ? round(pooledPercentile(ladders, 50), 2) : median(rounds.map((r) => r.p50Ms)),
    p99Ms: ladders ? round(pooledPercentile(ladders, 99), 2) : worstRoundP99Ms,
    worstRoundP99Ms,
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
    // The ladders stay out of the results file (a thousand figures per round).
    rounds: rounds.map(({ quantilesMs: _, ...r }) => r),
    serverCpuUs: medianOrNull(rounds.map((r) => r.serverCpuUs)),
    pgCpuUs: medianOrNull(rounds.map((r) => r.pgCpuUs)),
    poolerCpuUs: medianOrNull(rounds.map((r) => r.poolerCpuUs)),
    pgSwitches: ((m) => (m === null ? null : round(m, 2)))(medianOrNull(rounds.map((r) => r.pgSwitches))),
    benchCpuUs: medianOrNull(rounds.map((r) => r.benchCpuUs)),
  };
}

function medianOrNull(xs: ReadonlyArray<number | null>): number | null {
  const known = xs.filter((x): x is number => x !== null);
  return known.length === 0 ? null : median(known);
}

/** A run counts only when at most 1% of its requests failed. */
function failure(f: RunFigures | LoadFigures): string | null {
  const bad = f.non2xx + f.errors;
  if (f.requests > 0 && bad <= f.requests * 0.01) return null;
  return `${bad} of ${f.requests} failed (statuses ${JSON.stringify(f.statusCodes)}, errors ${f.errors})`;
}

async function probe(port: number | null, req: HttpRequest): Promise<{ res?: HttpResponse; note?: string }> {
  if (port === null) return { note: 'not running' };
  try {
    const res = await request(port, req, 30_000);
    if (res.status < 200 || res.status > 299) return { res, note: `answered ${res.status}: ${snippet(res.body)}` };
    return { res };
  } catch (e) {
    return { note: `no answer: ${(e as Error).message}` };
  }
}

/**
 * Both servers, alternating in ABBA order (floor, dbrest, dbrest, floor, …) so that drift during
 * the case (caches, table growth) weighs on both alike; each gets one warm-up first. A single event
 * at a fixed point of the timeline does not balance out that way (dataset.ts: autovacuum).
 */
async function runLoadCase(c: LoadCase, floorPort: number, dbrestPort: number | null, dbrestDown: string | null): Promise<LoadCaseResult> {
  const first = c.requests[0]!;
  log(`${c.id} ${c.title}: ${first.method} ${first.path}`);
  const fp = await probe(floorPort, first);
  const dp = dbrestDown !== null ? { note: dbrestDown } : await probe(dbrestPort, first);
  const sameBody = fp.res && dp.res && !fp.note && !dp.note ? sameJson(fp.res.body, dp.res.body) : null;

  type Key = 'floor' | 'dbrest';
  const port: Record<Key, number | null> = { floor: floorPort, dbrest: dbrestPort };
  const note: Record<Key, string | undefined> = { floor: fp.note, dbrest: dp.note ?? (dbrestPort === null ? 'not running' : undefined) };
  const rounds: Record<Key, RunFigures[]> = { floor: [], dbrest: [] };
  const active = (k: Key) => note[k] === undefined && port[k] !== null;

  const perRound = cfg.seconds / cfg.rounds;
  const run = async (k: Key, seconds: number, keep: boolean) => {
    if (!active(k)) return;
    try {
      const f = await measureRound(port[k]!, c, seconds);
      const bad = failure(f);
      if (bad) note[k] = keep ? bad : `warm-up: ${bad}`;
      else if (keep) rounds[k].push(f);
    } catch (e) {
      note[k] = `load run failed: ${(e as Error).message}`;
    }
  };
  if (cfg.warmup > 0) for (const k of ['floor', 'dbrest'] as const) await run(k, cfg.warmup, false);
  for (let r = 0; r < cfg.rounds; r++) {
    for (const k of r % 2 === 0 ? (['floor', 'dbrest'] as const) : (['dbrest', 'floor'] as const)) await run(k, perRound, true);
  }

  const side = (k: Key, probed: { res?: HttpResponse }): Side =>
    note[k] !== undefined || rounds[k].length === 0
      ? { outcome: 'n/a', probeStatus: probed.res?.status, note: note[k] ?? 'no measured round' }
      : { outcome: 'ok', figures: combine(rounds[k]) };
  const floor = side('floor', fp);
  const dbrest = side('dbrest', dp);
  log(`  floor : ${describeSide(floor)}`);
  log(`  dbrest: ${describeSide(dbrest)}${sameBody === false ? '  (body differs from the floor)' : ''}`);

  const ratio =
    floor.outcome === 'ok' && dbrest.outcome === 'ok' && floor.figures!.reqPerSec > 0
      ? round(dbrest.figures!.reqPerSec / floor.figures!.reqPerSec, 2)
      : null;
  const byRound = ratio === null ? [] : roundRatios(rounds.floor.map((r) => r.reqPerSec), rounds.dbrest.map((r) => r.reqPerSec)).map((x) => round(x, 2));
  if (byRound.length > 1) log(`  req/s ratio by round: ${byRound.join(' / ')}`);
  return { id: c.id, title: c.title, request: `${first.method} ${first.path}`, floor, dbrest, ratio, roundRatios: byRound, sameBody };
}

function describeSide(s: Side): string {
  if (s.outcome !== 'ok') return `n/a — ${s.note ?? ''}`;
  const f = s.figures!;
  const each = f.rounds.length > 1
    ? ` (rounds: ${f.rounds.map((r) => fmt(r.reqPerSec)).join(' / ')} req/s, p99 ${f.rounds.map((r) => r.p99Ms).join(' / ')} ms)`
    : '';
  const pooler = f.poolerCpuUs !== null ? ` (+ pgbouncer ${f.poolerCpuUs} µs)` : '';
  const cpu = f.serverCpuUs !== null ? `, CPU/req: server ${f.serverCpuUs} µs + postgres ${f.pgCpuUs ?? '?'} µs${pooler} (bench process ${f.benchCpuUs === null ? '?' : round(f.benchCpuUs, 1)} µs)` : '';
  return `${fmt(f.reqPerSec)} req/s, p99 ${f.p99Ms} ms${cpu}${each}`;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------
// M1: a route mount next to the same call through /rpc, on the same dbrest (engine spec §5: a mounted
// call may cost at most 5% more CPU per request than the /rpc call)

/** The mount the bench configures: GET /bench/add?a=&b= → add_them(a, b), as GET /rpc/add_them?a=&b=. */
export const BENCH_ROUTES = [{ prefix: '/bench', routes: [{ method: 'GET', path: '/add', call: 'add_them', args: { a: 'query.a', b: 'query.b' } }] }];

interface PairCase {
  readonly id: string;
  readonly title: string;
  readonly a: LoadCase;
  readonly b: LoadCase;
}

interface PairResult {
  readonly id: string;
  readonly title: string;
  readonly a: { readonly request: string; readonly side: Side };
  readonly b: { readonly request: string; readonly side: Side };
  /** b's CPU per request (server + postgres) ÷ a's; b's req/s ÷ a's. */
  readonly cpuRatio: number | null;
  /** The same with PgBouncer's CPU added where a side has one (W1B, W2B); null when neither has. */
  readonly cpuWithPoolerRatio: number | null;
  readonly rpsRatio: number | null;
}

function pairCases(): PairCase[] {
  const get = (path: string): HttpRequest => ({ method: 'GET', path, headers: { accept: 'application/json' } });
  return [
    {
      id: 'M1',
      title: 'scalar call: /rpc vs mount',
      a: { id: 'M1a', title: '/rpc', requests: [get('/rpc/add_them?a=1&b=2')] },
      b: { id: 'M1b', title: 'mount', requests: [get('/bench/add?a=1&b=2')] },
    },
  ];
}

/** W1X2, W2X2: W1 and W2 on a dbrest with one worker (a) and one with server-workers=2 (b). */
function workerPairCases(): PairCase[] {
  const load = new Map(loadCases().map((c) => [c.id, c]));
  return ['W1', 'W2'].map((id) => {
    const c = load.get(id)!;
    return { id: `${id}X2`, title: `${c.title}: 1 vs 2 workers`, a: { ...c, id: `${id}X2a`, title: '1 worker' }, b: { ...c, id: `${id}X2b`, title: '2 workers' } };
  });
}

/** W1U, W2U: W1 and W2 on a dbrest with db-prepared-statements=true (a) and one with false (b). */
function unpreparedPairCases(): PairCase[] {
  const load = new Map(loadCases().map((c) => [c.id, c]));
  return ['W1', 'W2'].map((id) => {
    const c = load.get(id)!;
    return { id: `${id}U`, title: `${c.title}: prepared vs unprepared statements`, a: { ...c, id: `${id}Ua`, title: 'db-prepared-statements=true' }, b: { ...c, id: `${id}Ub`, title: 'db-prepared-statements=false' } };
  });
}

/**
 * W1O, W2O (issue 29's overhead): W1 and W2 on a dbrest with metrics and JSON access logs off (a)
 * and one with both on (b): an admin server (so /metrics counts every request), log-format=json and
 * log-level=info (a JSON line per request, read through a pipe as a log shipper would).
 */
function observePairCases(): PairCase[] {
  const load = new Map(loadCases().map((c) => [c.id, c]));
  return ['W1', 'W2'].map((id) => {
    const c = load.get(id)!;
    return { id: `${id}O`, title: `${c.title}: metrics and JSON logs off vs on`, a: { ...c, id: `${id}Oa`, title: 'off' }, b: { ...c, id: `${id}Ob`, title: cfg.observeControl ? 'off (control)' : 'metrics + JSON access log' } };
  });
}

/** Server + PostgreSQL CPU µs per request of a side (PgBouncer's apart); null without a figure. */
function cpuPerRequest(s: Side): number | null {
  return s.outcome === 'ok' && s.figures!.serverCpuUs !== null ? s.figures!.serverCpuUs + (s.figures!.pgCpuUs ?? 0) : null;
}

/**
 * W1B, W2B: W1 and W2 on a dbrest straight to PostgreSQL (a) and one through PgBouncer in
 * transaction mode (b), both with db-prepared-statements=false: the setting transaction pooling
 * needs, so the comparison is of the pooler alone, not of prepared statements.
 */
function poolerPairCases(poolSize: number): PairCase[] {
  const load = new Map(loadCases().map((c) => [c.id, c]));
  return ['W1', 'W2'].map((id) => {
    const c = load.get(id)!;
    return {
      id: `${id}B`,
      title: `${c.title}: direct vs through PgBouncer`,
      a: { ...c, id: `${id}Ba`, title: 'direct, db-prepared-statements=false' },
      b: { ...c, id: `${id}Bb`, title: `PgBouncer (transaction mode, default_pool_size ${poolSize}), db-prepared-statements=false` },
    };
  });
}

/** `portB`: side b's server, when it is another one (W1X2: a dbrest with 2 workers). */
async function runPairCase(c: PairCase, port: number, portB = port): Promise<PairResult> {
  const portOf = (i: number) => (i === 0 ? port : portB);
  log(`${c.id} ${c.title}: ${c.a.requests[0]!.path} vs ${c.b.requests[0]!.path}`);
  const sides = [c.a, c.b] as const;
  const note: Array<string | undefined> = [];
  for (const [i, side] of sides.entries()) {
    const p = await probe(portOf(i), side.requests[0]!);
    note[i] = p.note;
  }
  const rounds: RunFigures[][] = [[], []];
  const run = async (i: number, seconds: number, keep: boolean) => {
    if (note[i] !== undefined) return;
    try {
      const f = await measureRound(portOf(i), sides[i]!, seconds);
      const bad = failure(f);
      if (bad) note[i] = bad;
      else if (keep) rounds[i]!.push(f);
    } catch (e) {
      note[i] = `load run failed: ${(e as Error).message}`;
    }
  };
  if (cfg.warmup > 0) for (const i of [0, 1]) await run(i, cfg.warmup, false);
  const perRound = cfg.seconds / cfg.rounds;
  for (let r = 0; r < cfg.rounds; r++) for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) await run(i, perRound, true);
  const side = (i: number): Side =>
    note[i] !== undefined || rounds[i]!.length === 0 ? { outcome: 'n/a', note: note[i] ?? 'no measured round' } : { outcome: 'ok', figures: combine(rounds[i]!) };
  const a = side(0);
  const b = side(1);
  log(`  ${c.a.title}: ${describeSide(a)}`);
  log(`  ${c.b.title}: ${describeSide(b)}`);
  // b ÷ a round by round (each round runs both, back to back): their median moves less with the
  // machine's load than the whole case's ratio does.
  const byRound = a.outcome === 'ok' && b.outcome === 'ok' ? roundRatios(rounds[0]!.map((r) => r.reqPerSec), rounds[1]!.map((r) => r.reqPerSec)) : [];
  if (byRound.length > 1) log(`  req/s ratio b ÷ a by round: ${byRound.map((x) => round(x, 2)).join(' / ')} (median ${round(median(byRound), 3)})`);
  const ca = cpuPerRequest(a);
  const cb = cpuPerRequest(b);
  const pooled = (s: Side) => (s.outcome === 'ok' ? s.figures!.poolerCpuUs : null);
  const withPooler = pooled(a) !== null || pooled(b) !== null;
  return {
    id: c.id,
    title: c.title,
    a: { request: `${c.a.requests[0]!.method} ${c.a.requests[0]!.path}`, side: a },
    b: { request: `${c.b.requests[0]!.method} ${c.b.requests[0]!.path}`, side: b },
    cpuRatio: ca && cb ? round(cb / ca, 3) : null,
    cpuWithPoolerRatio: withPooler && ca && cb ? round((cb + (pooled(b) ?? 0)) / (ca + (pooled(a) ?? 0)), 3) : null,
    rpsRatio: a.outcome === 'ok' && b.outcome === 'ok' ? round(b.figures!.reqPerSec / a.figures!.reqPerSec, 3) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// C1–C3: the CMS API example (examples/cms) mounted, next to GET /rpc of the same functions, on a
// second dbrest serving the example's own configuration, logged in as its demo admin.

const CMS = '/api/cms/v2';
const CMS_FILTER = JSON.stringify({
  ActivityLogGroupListInput: {
    limit: 10,
    criteria: [{ type: 'action', value: ['create', 'publish'] }, { type: 'logged_at', value: '2024-03-01', operator: '>=' }],
    sortClauses: [{ type: 'logged_at', direction: 'DESC' }],
  },
});

function cmsPairCases(session: { cookie: string; csrf: string }): PairCase[] {
  const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
  const get = (path: string, headers: Record<string, string> = {}): HttpRequest => ({ method: 'GET', path, headers: { cookie: session.cookie, ...headers } });
  const one = (id: string, title: string, r: HttpRequest): LoadCase => ({ id, title, requests: [r] });
  return [
    {
      id: 'C1',
      title: 'CMS bookmarks JSON: /rpc vs mount',
      a: one('C1a', '/rpc', get(`/rpc/bookmark_list?${q({ p_query: '{}', p_media: 'application/json' })}`)),
      b: one('C1b', 'mount', get(`${CMS}/bookmark`)),
    },
    {
      id: 'C2',
      title: 'CMS bookmarks XML: /rpc vs mount',
      a: one('C2a', '/rpc', get(`/rpc/bookmark_list?${q({ p_query: '{}', p_media: 'application/xml' })}`)),
      b: one('C2b', 'mount', get(`${CMS}/bookmark`, { accept: 'application/vnd.cms.api.BookmarkList+xml' })),
    },
    {
      id: 'C3',
      title: 'CMS activity log filter: /rpc vs mount',
      a: one('C3a', '/rpc', get(`/rpc/activity_log_search?${q({ p_body: CMS_FILTER, p_content_type: 'application/json', p_media: 'application/json' })}`)),
      b: one('C3b', 'mount', {
        method: 'POST',
        path: `${CMS}/activity-log-group/list`,
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
        body: CMS_FILTER,
      }),
    },
  ];
}

/** Load examples/cms into the bench database and serve it with the example's config; log in as admin. */
async function startCmsServer(uri: string): Promise<{ child: Child; port: number; session: { cookie: string; csrf: string } } | { reason: string }> {
  const dir = path.join(root, 'examples', 'cms');
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.sql')).sort()) await client.query(readFileSync(path.join(dir, f), 'utf8'));
  } finally {
    await client.end();
  }
  // /rpc gets the session check the mounts' group runs as its pre-request.
  const server = await startExampleServer('dbrest-cms', path.join(dir, 'dbrest.config.json'), uri, { DBREST_DB_PRE_REQUEST: 'cms.pre_request' });
  if ('reason' in server) return server;
  const { child, port } = server;
  const login = await request(port, {
    method: 'POST',
    path: `${CMS}/user/sessions`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ SessionInput: { login: 'admin', password: 'Lumen-Admin-2024' } }),
  }, 10_000);
  const cookie = (login.headers['set-cookie'] ?? [])[0]?.split(';')[0];
  if (login.status !== 201 || !cookie) return { reason: `log-in answered ${login.status}: ${snippet(login.body)}` };
  const csrf = (JSON.parse(login.body!.toString()) as { Session: { csrfToken: string } }).Session.csrfToken;
  return { child, port, session: { cookie, csrf } };
}

// ---------------------------------------------------------------------------------------------
// P1–P5: the content API example (examples/content) with generated pages, on a dbrest serving the
// example's own configuration, at 8 connections (issue 11: each p99 under 50 ms). dbrest only.

const CONTENT = '/api/v2';
const CONTENT_IDS = ['P1', 'P2', 'P3', 'P4', 'P5'];
const CONTENT_CONNECTIONS = 8;

interface ContentResult {
  readonly id: string;
  readonly title: string;
  readonly request: string;
  readonly connections: number;
  readonly side: Side;
}

/** Load examples/content, generate pages, VACUUM ANALYZE, pick the requests' values from the data. */
async function loadContent(uri: string): Promise<{ cases: LoadCase[]; loadMs: number; params: Record<string, string | number> }> {
  const dir = path.join(root, 'examples', 'content');
  const client = new pg.Client({ connectionString: uri });
  client.on('error', () => undefined);
  await client.connect();
  const start = performance.now();
  try {
    for (const f of readdirSync(dir).filter((n) => /^\d.*\.sql$/.test(n)).sort()) {
      await client.query(`BEGIN;\n${readFileSync(path.join(dir, f), 'utf8')}\nCOMMIT;`);
    }
    await client.query(readFileSync(path.join(dir, 'tools', 'generate.sql'), 'utf8'));
    const t0 = performance.now();
    const summary = (await client.query('SELECT content.generate($1) AS s', [cfg.contentPages])).rows[0].s as string;
    await client.query('VACUUM ANALYZE');
    log(`  content: ${summary}, generated and vacuumed in ${round((performance.now() - t0) / 1000, 1)} s`);
    // Values from the generated data, for the default site (A, root page 2, path 00010001).
    const one = async (sql: string): Promise<Record<string, unknown>> => {
      const r = await client.query(sql);
      if (r.rows.length === 0) throw new Error(`content bench: no value for ${sql}`);
      return r.rows[0] as Record<string, unknown>;
    };
    // The `offset`-th row, or the first when there are fewer (a small BENCH_CONTENT_PAGES).
    const nth = async (sql: string, offset: number): Promise<Record<string, unknown>> =>
      ((await client.query(`${sql} OFFSET ${offset}`)).rows[0] as Record<string, unknown> | undefined) ?? one(sql);
    const visible = `live AND NOT in_private AND (expire_at IS NULL OR expire_at > now()) AND path LIKE '00010001%'`;
    // two words of a title "<Verb> <noun> in <adj> weather": a pair that occurs in a few dozen pages
    const words = (await nth(`SELECT lower(split_part(title, ' ', 1)) || ' ' || split_part(title, ' ', 2) AS w
        FROM content.pages WHERE ${visible} AND title ~ '^[A-Z][a-z]+ [a-z]+ in [a-z]+ weather$' ORDER BY id LIMIT 1`, 100)).w as string;
    // a page at depth 4 with the most descendants
    const desc = await one(`SELECT p.id, (SELECT count(*) FROM content.pages c WHERE c.path LIKE p.path || '%') - 1 AS n
        FROM content.pages p WHERE p.depth = 4 AND ${visible.replace(/\b(live|in_private|expire_at|path)\b/g, 'p.$1')}
        ORDER BY 2 DESC, 1 LIMIT 1`);
    const type = (await one(`SELECT type FROM content.pages WHERE ${visible} GROUP BY type ORDER BY count(*) DESC LIMIT 1`)).type as string;
    const detail = (await nth(`SELECT id FROM content.pages WHERE ${visible} AND type = 'blog.BlogPage' AND fields ? 'feed_image'
        AND fields->>'feed_image' IS NOT NULL ORDER BY id LIMIT 1`, 1000)).id as number;
    const params: Record<string, string | number> = { search: words, descendant_of: Number(desc.id), descendants: Number(desc.n), type, detail };
    log(`  content: search=${words}, descendant_of=${desc.id} (${desc.n} descendants), type=${type}, detail ${detail}`);
    const get = (p: string): HttpRequest => ({ method: 'GET', path: `${CONTENT}${p}`, headers: { accept: 'application/json' } });
    const c = (id: string, title: string, p: string): LoadCase => ({ id, title, requests: [get(p)], connections: CONTENT_CONNECTIONS });
    const cases = [
      c('P1', 'content search, 2 words', `/pages/?search=${encodeURIComponent(words).replace(/%20/g, '+')}&limit=20`),
      c('P2', 'content descendant_of, -title', `/pages/?descendant_of=${desc.id}&order=-title`),
      c('P3', 'content type, fields=*', `/pages/?type=${encodeURIComponent(type)}&fields=*`),
      c('P4', 'content detail', `/pages/${detail}/`),
      // a word in about half the pages (issue 27 item 5: 43,632 matches at 100,000 pages)
      c('P5', 'content search, common word', '/pages/?search=the&limit=20'),
    ];
    // The database's own time per call (the endpoint function as the route calls it, one session,
    // median of EXPLAIN ANALYZE's execution time): less sensitive to a busy machine than latency.
    const calls: Record<string, [string, unknown[]]> = {
      P1: ['content.pages_listing($1::json, NULL)', [{ search: words, limit: '20' }]],
      P2: ['content.pages_listing($1::json, NULL)', [{ descendant_of: String(desc.id), order: '-title' }]],
      P3: ['content.pages_listing($1::json, NULL)', [{ type, fields: '*' }]],
      P4: ['content.pages_detail($1, $2::json, NULL)', [String(detail), {}]],
      P5: ['content.pages_listing($1::json, NULL)', [{ search: 'the', limit: '20' }]],
    };
    for (const [id, [call, args]] of Object.entries(calls)) {
      if (!wanted(id)) continue;
      const times: number[] = [];
      for (let i = 0; i < 23; i++) {
        const plan = (await client.query(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) SELECT ${call}`, args)).rows[0]['QUERY PLAN'] as [{ 'Execution Time': number }];
        if (i >= 3) times.push(plan[0]['Execution Time']);
      }
      params[`${id} db ms`] = round(median(times), 2);
      log(`  ${id}: database time per call ${round(median(times), 2)} ms (median of ${times.length}, min ${round(Math.min(...times), 2)})`);
    }
    return { cases, loadMs: round(performance.now() - start, 0), params };
  } finally {
    await client.end();
  }
}

function startContentServer(uri: string): Promise<{ child: Child; port: number } | { reason: string }> {
  return startExampleServer('dbrest-content', path.join(root, 'examples', 'content', 'dbrest.config.json'), uri);
}

/** dbrest serving an example's configuration on a free port, stopped at cleanup, its CPU counted. */
async function startExampleServer(name: string, configFile: string, uri: string, env: Record<string, string> = {}): Promise<{ child: Child; port: number } | { reason: string }> {
  const port = await freePort();
  const child = startChild(name, [cfg.dbrestBin, 'serve', configFile], {
    DBREST_DB_URI: uri,
    ...env,
    DBREST_DB_POOL: String(cfg.pool),
    DBREST_SERVER_HOST: '127.0.0.1',
    DBREST_SERVER_PORT: String(port),
    DBREST_LOG_LEVEL: 'error',
  });
  onExit(() => child.stop());
  const up = await waitAnswering(port, child, 30_000);
  if ('reason' in up) return { reason: up.reason };
  if (child.pid) serverPids.set(port, child.pid);
  return { child, port };
}

/** One server only: a warm-up, then the rounds. */
async function runSingleCase(c: LoadCase, port: number): Promise<ContentResult> {
  const first = c.requests[0]!;
  const connections = c.connections ?? cfg.connections;
  log(`${c.id} ${c.title}: ${first.method} ${first.path} (${connections} connections)`);
  const p = await probe(port, first);
  let note = p.note;
  if (!note && p.res) {
    const count = (JSON.parse(p.res.body!.toString()) as { meta?: { total_count?: number } }).meta?.total_count;
    if (count !== undefined) log(`  total_count ${count}`);
  }
  const rounds: RunFigures[] = [];
  const run = async (seconds: number, keep: boolean) => {
    if (note !== undefined) return;
    try {
      const f = await measureRound(port, c, seconds);
      const bad = failure(f);
      if (bad) note = keep ? bad : `warm-up: ${bad}`;
      else if (keep) rounds.push(f);
    } catch (e) {
      note = `load run failed: ${(e as Error).message}`;
    }
  };
  if (cfg.warmup > 0) await run(cfg.warmup, false);
  for (let r = 0; r < cfg.rounds; r++) await run(cfg.seconds / cfg.rounds, true);
  const side: Side =
    note !== undefined || rounds.length === 0 ? { outcome: 'n/a', probeStatus: p.res?.status, note: note ?? 'no measured round' } : { outcome: 'ok', figures: combine(rounds) };
  log(`  dbrest: ${describeSide(side)}`);
  return { id: c.id, title: c.title, request: `${first.method} ${first.path}`, connections, side };
}

function printContent(rows: ContentResult[]): void {
  const head = [pad('case', 34, true), pad('conns', 6), pad('req/s', 8), pad('p50 ms', 8), pad('p99 ms', 8), pad('CPU/req µs (server+pg)', 24)];
  log(head.join(' '));
  log('-'.repeat(head.join(' ').length));
  for (const r of rows) {
    const f = r.side.outcome === 'ok' ? r.side.figures! : null;
    log(
      [
        pad(`${r.id} ${r.title}`, 34, true),
        pad(String(r.connections), 6),
        pad(f ? fmt(f.reqPerSec) : r.side.probeStatus ? `n/a (${r.side.probeStatus})` : 'n/a', 8),
        pad(f ? String(round(f.p50Ms, 2)) : '', 8),
        pad(f ? String(f.p99Ms) : '', 8),
        pad(f ? `${f.serverCpuUs ?? '?'} + ${f.pgCpuUs ?? '?'}` : '', 24),
      ].join(' '),
    );
    log(`   ${r.request}`);
  }
}

// ---------------------------------------------------------------------------------------------
// W6: one big response (100k rows; BENCH_W6_ROWS sets it, e.g. 1000000 with BENCH_SCALE=5 so
// there are that many tracks). dbrest streams it (server-stream-threshold): peak RSS stays flat.

interface BigSide {
  readonly outcome: 'ok' | 'n/a';
  readonly note?: string;
  readonly status?: number;
  readonly bytes?: number;
  readonly ttfbMs?: number[];
  readonly totalMs?: number[];
  readonly medianMs?: number;
  readonly rssBeforeMb?: number;
  readonly peakRssMb?: number;
  /** False when VmHWM could not be reset, so the peak is the process's lifetime peak. */
  readonly peakIsForThisCase?: boolean;
}

interface BigResult {
  readonly id: 'W6';
  readonly request: string;
  readonly rows: number;
  readonly floor: BigSide;
  readonly dbrest: BigSide;
  /** dbrest ÷ floor: median time to last byte, and peak RSS. */
  readonly timeRatio: number | null;
  readonly rssRatio: number | null;
  readonly sameBody: boolean | null;
}

async function bigSide(port: number | null, pid: number | undefined, req: HttpRequest, down: string | null): Promise<{ side: BigSide; body: Buffer | null }> {
  if (down !== null || port === null) return { side: { outcome: 'n/a', note: down ?? 'not running' }, body: null };
  const peakIsForThisCase = resetPeak(pid);
  const before = procStatus(pid);
  const ttfbMs: number[] = [];
  const totalMs: number[] = [];
  let body: Buffer | null = null;
  let bytes = 0;
  for (let i = 0; i < cfg.w6Requests; i++) {
    let r: HttpResponse;
    try {
      r = await request(port, req, 120_000, i === 0);
    } catch (e) {
      return { side: { outcome: 'n/a', note: `no answer: ${(e as Error).message}` }, body: null };
    }
    if (r.status < 200 || r.status > 299) {
      return { side: { outcome: 'n/a', status: r.status, note: `answered ${r.status}: ${snippet(r.body)}` }, body: null };
    }
    if (i === 0) body = r.body;
    bytes = r.bytes;
    ttfbMs.push(round(r.ttfbMs));
    totalMs.push(round(r.totalMs));
  }
  const after = procStatus(pid);
  return {
    side: {
      outcome: 'ok',
      status: 200,
      bytes,
      ttfbMs,
      totalMs,
      medianMs: round(median(totalMs)),
      rssBeforeMb: before.rssKb !== undefined ? mb(before.rssKb) : undefined,
      peakRssMb: after.hwmKb !== undefined ? mb(after.hwmKb) : undefined,
      peakIsForThisCase,
    },
    body,
  };
}

async function runBigCase(floor: Child, floorPort: number, dbrest: Child | null, dbrestPort: number | null, dbrestDown: string | null): Promise<BigResult> {
  const wanted = Math.round(envNumber('BENCH_W6_ROWS', 100_000, 1));
  const rows = Math.min(wanted, size.tracks);
  if (rows < wanted) log(`W6: only ${size.tracks} tracks; set BENCH_SCALE=${Math.ceil(wanted / size.tracks)} for ${wanted} rows`);
  const req: HttpRequest = { method: 'GET', path: `/tracks?limit=${rows}`, headers: { accept: 'application/json' } };
  log(`W6 ${rows} rows: ${req.method} ${req.path} (${cfg.w6Requests} sequential requests each)`);
  const f = await bigSide(floorPort, floor.pid, req, null);
  log(`  floor : ${describeBig(f.side)}`);
  const d = await bigSide(dbrestPort, dbrest?.pid, req, dbrestDown);
  log(`  dbrest: ${describeBig(d.side)}`);
  const sameBody = f.body && d.body ? sameJson(f.body, d.body) : null;
  if (sameBody === false) log('  (dbrest body differs from the floor)');
  const both = f.side.outcome === 'ok' && d.side.outcome === 'ok';
  return {
    id: 'W6',
    request: `${req.method} ${req.path}`,
    rows,
    floor: f.side,
    dbrest: d.side,
    timeRatio: both ? round(d.side.medianMs! / f.side.medianMs!, 2) : null,
    rssRatio: both && f.side.peakRssMb && d.side.peakRssMb ? round(d.side.peakRssMb / f.side.peakRssMb, 2) : null,
    sameBody,
  };
}

function describeBig(s: BigSide): string {
  if (s.outcome !== 'ok') return `n/a — ${s.note ?? ''}`;
  return (
    `${round(s.bytes! / 1e6)} MB, time to last byte ${s.totalMs!.join(' / ')} ms (first byte ${s.ttfbMs!.join(' / ')} ms), ` +
    `peak RSS ${s.peakRssMb ?? '?'} MB${s.peakIsForThisCase ? '' : ' (lifetime)'} from ${s.rssBeforeMb ?? '?'} MB`
  );
}

// ---------------------------------------------------------------------------------------------
// W7: schema cache for a big catalog

interface CatalogResult {
  readonly id: 'W7';
  readonly tables: number;
  readonly fks: number;
  readonly outcome: 'ok' | 'skipped' | 'failed';
  readonly note?: string;
  readonly loadSqlMs?: number;
  /** The floor: one plain catalog query returning the tables' columns and constraints as JSON. */
  readonly floorQueryMs?: number;
  readonly runs?: ReadonlyArray<{ fetchMs: number; buildMs: number; totalMs: number }>;
  readonly medianFetchMs?: number;
  readonly medianBuildMs?: number;
  readonly medianTotalMs?: number;
  readonly relations?: number;
  readonly relationships?: number;
  /** dbrest's median total ÷ the floor query. */
  readonly ratio?: number | null;
}

type Imported = { mod: Record<string, unknown> } | { missing: string } | { error: string };

async function optionalImport(relative: string): Promise<Imported> {
  const url = new URL(relative, import.meta.url);
  try {
    return { mod: (await import(url.href)) as Record<string, unknown> };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_MODULE_NOT_FOUND' && err.message.includes(fileURLToPath(url))) return { missing: relative };
    return { error: `${relative}: ${err.message}` };
  }
}

const FLOOR_CATALOG_QUERY = `
SELECT coalesce(json_agg(t), '[]')::text FROM (
  SELECT n.nspname AS schema, c.relname AS name, c.relkind AS kind,
    (SELECT json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod),
                                       'nullable', NOT a.attnotnull, 'default', pg_get_expr(d.adbin, d.adrelid)) ORDER BY a.attnum)
       FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
    (SELECT json_agg(json_build_object('name', k.conname, 'type', k.contype, 'columns', k.conkey,
                                       'references', k.confrelid::regclass::text, 'referenced', k.confkey))
       FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype IN ('p', 'u', 'f')) AS constraints
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'v', 'm', 'f', 'p')
) AS t`;

async function runCatalogCase(adminUri: string): Promise<CatalogResult> {
  const base = { id: 'W7' as const, tables: cfg.w7Tables, fks: cfg.w7Fks };
  log(`W7 schema cache for ${cfg.w7Tables} tables / ${cfg.w7Fks} FKs`);
  const schemaMod = await optionalImport('./catalog-schema.js');
  const loadMod = await optionalImport('../../src/catalog/load.js');
  for (const m of [schemaMod, loadMod]) {
    if ('missing' in m) return { ...base, outcome: 'skipped', note: `skipped: not built yet (${m.missing})` };
    if ('error' in m) return { ...base, outcome: 'failed', note: m.error };
  }
  const generate = (schemaMod as { mod: Record<string, unknown> }).mod.generateBigSchemaSql;
  const load = (loadMod as { mod: Record<string, unknown> }).mod.loadSchemaCache;
  if (typeof generate !== 'function') return { ...base, outcome: 'skipped', note: 'skipped: not built yet (generateBigSchemaSql)' };
  if (typeof load !== 'function') return { ...base, outcome: 'skipped', note: 'skipped: not built yet (loadSchemaCache)' };
  type Loaded = { cache?: { relations?: unknown[]; relationships?: unknown[] }; fetchMs: number; buildMs: number };
  const loadSchemaCache = load as (client: pg.Client, schemas: string[], helper?: pg.Client | null) => Promise<Loaded>;

  const admin = new pg.Client({ connectionString: adminUri });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE dbrest_bench_catalog');
  } finally {
    await admin.end();
  }
  const client = new pg.Client({ connectionString: withDatabase(adminUri, 'dbrest_bench_catalog') });
  client.on('error', () => undefined);
  await client.connect();
  onExit(() => client.end().catch(() => undefined));
  // A second connection, as `serve` uses: the catalog is read on both in one shared snapshot.
  const helper = new pg.Client({ connectionString: withDatabase(adminUri, 'dbrest_bench_catalog') });
  helper.on('error', () => undefined);
  await helper.connect();
  onExit(() => helper.end().catch(() => undefined));
  try {
    const sql = (generate as (tables: number, fks: number) => string)(cfg.w7Tables, cfg.w7Fks);
    let t0 = performance.now();
    // In batches of statements: one transaction creating thousands of tables runs out of lock slots.
    const statements = sql.split(';\n').filter((x) => x.trim() !== '');
    for (let i = 0; i < statements.length; i += 500) await client.query(statements.slice(i, i + 500).join(';\n') + ';');
    const loadSqlMs = round(performance.now() - t0, 0);
    log(`  catalog SQL loaded in ${loadSqlMs} ms`);
    await client.query('ANALYZE');

    await client.query(FLOOR_CATALOG_QUERY, [['public']]); // warm the catalog caches
    t0 = performance.now();
    await client.query(FLOOR_CATALOG_QUERY, [['public']]);
    const floorQueryMs = round(performance.now() - t0);
    log(`  floor (one catalog query): ${floorQueryMs} ms`);

    const runs: Array<{ fetchMs: number; buildMs: number; totalMs: number }> = [];
    let relations: number | undefined;
    let relationships: number | undefined;
    for (let i = 0; i < cfg.w7Runs; i++) {
      t0 = performance.now();
      const r = await loadSchemaCache(client, ['public'], helper);
      const totalMs = round(performance.now() - t0);
      runs.push({ fetchMs: round(r.fetchMs), buildMs: round(r.buildMs), totalMs });
      relations = Array.isArray(r.cache?.relations) ? r.cache.relations.length : undefined;
      relationships = Array.isArray(r.cache?.relationships) ? r.cache.relationships.length : undefined;
      log(`  dbrest loadSchemaCache run ${i + 1}: fetch ${round(r.fetchMs)} ms, build ${round(r.buildMs)} ms, total ${totalMs} ms`);
    }
    const medianTotalMs = round(median(runs.map((r) => r.totalMs)));
    return {
      ...base,
      outcome: 'ok',
      loadSqlMs,
      floorQueryMs,
      runs,
      medianFetchMs: round(median(runs.map((r) => r.fetchMs))),
      medianBuildMs: round(median(runs.map((r) => r.buildMs))),
      medianTotalMs,
      relations,
      relationships,
      ratio: floorQueryMs > 0 ? round(medianTotalMs / floorQueryMs, 2) : null,
    };
  } catch (e) {
    return { ...base, outcome: 'failed', note: (e as Error).message };
  } finally {
    await client.end().catch(() => undefined);
    await helper.end().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// database

function withDatabase(uri: string, database: string): string {
  const u = new URL(uri);
  u.pathname = '/' + encodeURIComponent(database);
  return u.toString();
}

async function loadDataset(adminUri: string): Promise<{ uri: string; loadMs: number }> {
  const admin = new pg.Client({ connectionString: adminUri });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE dbrest_bench');
  } finally {
    await admin.end();
  }
  const uri = withDatabase(adminUri, 'dbrest_bench');
  const client = new pg.Client({ connectionString: uri });
  client.on('error', () => undefined);
  await client.connect();
  const start = performance.now();
  try {
    for (const step of datasetSteps(size)) {
      const t0 = performance.now();
      await client.query(step.sql);
      log(`  dataset: ${step.label} — ${round((performance.now() - t0) / 1000, 2)} s`);
    }
    const t0 = performance.now();
    await client.query('VACUUM ANALYZE');
    log(`  dataset: vacuum analyze — ${round((performance.now() - t0) / 1000, 2)} s`);
  } finally {
    await client.end();
  }
  return { uri, loadMs: round(performance.now() - start, 0) };
}

// ---------------------------------------------------------------------------------------------
// report

function pad(s: string, n: number, left = false): string {
  return left ? s.padEnd(n) : s.padStart(n);
}

function figuresOf(r: LoadCaseResult): CaseFigures | null {
  return r.floor.outcome === 'ok' && r.dbrest.outcome === 'ok' ? { floor: r.floor.figures!, dbrest: r.dbrest.figures! } : null;
}

function printTable(load: LoadCaseResult[], big: BigResult | null, catalog: CatalogResult | null): void {
  const cell = (s: Side, what: 'rps' | 'p50' | 'p99') => {
    if (s.outcome !== 'ok') return what === 'rps' ? (s.probeStatus ? `n/a (${s.probeStatus})` : 'n/a') : '';
    return what === 'rps' ? fmt(s.figures!.reqPerSec) : String(round(what === 'p50' ? s.figures!.p50Ms : s.figures!.p99Ms, 2));
  };
  const mark = (met: boolean | null) => (met === null ? '' : met ? ' ok' : ' MISS');
  const head = [
    pad('case', 34, true),
    pad('floor req/s', 12),
    pad('p50 ms', 8),
    pad('p99 ms', 8),
    pad('dbrest req/s', 13),
    pad('p50 ms', 8),
    pad('p99 ms', 8),
    pad('dbrest/floor', 13),
    pad('target', 7),
    pad('p99 ratio', 15),
  ];
  log(`load generator: ${generator.detail}`);
  log(head.join(' '));
  log('-'.repeat(head.join(' ').length));
  for (const r of load) {
    const check = targetCheck(r.id, figuresOf(r));
    log(
      [
        pad(`${r.id} ${r.title}`, 34, true),
        pad(cell(r.floor, 'rps'), 12),
        pad(cell(r.floor, 'p50'), 8),
        pad(cell(r.floor, 'p99'), 8),
        pad(cell(r.dbrest, 'rps'), 13),
        pad(cell(r.dbrest, 'p50'), 8),
        pad(cell(r.dbrest, 'p99'), 8),
        pad(check.rps === null ? 'n/a' : ratioText(check.rps, check.rpsTarget) + mark(check.rpsMet), 13),
        pad(check.rpsTarget === null ? '' : `≥${check.rpsTarget.toFixed(2)}`, 7),
        pad(check.p99 === null ? 'n/a' : `${ratioText(check.p99, P99_TARGET)} (≤${P99_TARGET})${mark(check.p99Met)}`, 15),
      ].join(' '),
    );
  }
  if (big) {
    const t = (s: BigSide) => (s.outcome === 'ok' ? `${s.medianMs} ms` : s.status ? `n/a (${s.status})` : 'n/a');
    const m = (s: BigSide) => (s.outcome === 'ok' && s.peakRssMb !== undefined ? `${s.peakRssMb} MB` : '');
    log(
      [pad(`W6 ${big.rows} rows: last byte`, 34, true), pad(t(big.floor), 12), pad('', 8), pad(t(big.dbrest), 13), pad('', 8), pad(big.timeRatio === null ? 'n/a' : big.timeRatio.toFixed(2), 13)].join(' '),
    );
    log(
      [pad('W6 peak server RSS', 34, true), pad(m(big.floor), 12), pad('', 8), pad(m(big.dbrest), 13), pad('', 8), pad(big.rssRatio === null ? 'n/a' : big.rssRatio.toFixed(2), 13)].join(' '),
    );
  }
  if (catalog) {
    const label = `W7 catalog ${catalog.tables} t / ${catalog.fks} fk`;
    if (catalog.outcome === 'ok') {
      log(
        [
          pad(label, 34, true),
          pad(`${catalog.floorQueryMs} ms`, 12),
          pad('', 8),
          pad(`${catalog.medianTotalMs} ms`, 13),
          pad('', 8),
          pad(catalog.ratio == null ? 'n/a' : catalog.ratio.toFixed(2), 13),
        ].join(' '),
      );
      log(`   (dbrest: fetch ${catalog.medianFetchMs} ms + build ${catalog.medianBuildMs} ms; floor: one catalog query)`);
    } else {
      log(`${pad(label, 34, true)} ${catalog.note ?? catalog.outcome}`);
    }
  }
  log('ratios: dbrest ÷ floor (req/s: higher is better; W6/W7 time and memory: lower is better)');
  log("one run is one sample: see how far each case's ratio moves by round, and judge a target by several runs");
}

// ---------------------------------------------------------------------------------------------
// main

/** A dbrest started for pair cases: its name, environment, and the pooler it goes through (if any). */
interface PairServer {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly poolerPid?: number;
}

/** Starts two dbrests, runs the pair cases on them (side a on the first, b on the second), stops them. */
async function runOnTwoServers(what: string, servers: readonly [PairServer, PairServer], cases: PairCase[]): Promise<PairResult[]> {
  const ports = [await freePort(), await freePort()] as const;
  const children = servers.map((s, i) => {
    const child = startChild(s.name, [cfg.dbrestBin, 'serve'], { ...s.env, DBREST_SERVER_PORT: String(ports[i]) });
    if (child.pid) serverPids.set(ports[i]!, child.pid);
    if (s.poolerPid !== undefined) poolerPids.set(ports[i]!, s.poolerPid);
    return child;
  });
  const results: PairResult[] = [];
  const up = await Promise.all(children.map((c, i) => waitAnswering(ports[i]!, c, 30_000)));
  const down = up.find((u): u is { reason: string } => 'reason' in u);
  if (down) log(`  ${what} cases not run: ${down.reason}`);
  else for (const c of cases) results.push(await runPairCase(c, ports[0], ports[1]));
  await Promise.all(children.map((c) => c.stop()));
  return results;
}

/** Two fresh dbrests side by side, observing off and on, whatever BENCH_OBSERVE says. */
async function runObservePairs(cases: PairCase[], dbrestEnv: Record<string, string>): Promise<PairResult[]> {
  const { DBREST_ADMIN_SERVER_PORT: _admin, DBREST_LOG_FORMAT: _format, ...plain } = dbrestEnv;
  const off = { ...plain, DBREST_LOG_LEVEL: 'error' };
  if (cfg.observeControl) {
    // The A/A control: what two fresh dbrests configured alike measure against each other.
    log('starting two dbrests, both without metrics and JSON logs (BENCH_OBSERVE_CONTROL=1: side b is off too)…');
    return runOnTwoServers('observe', [
      { name: 'dbrest-observe-off', env: off },
      { name: 'dbrest-observe-off-2', env: off },
    ], cases);
  }
  log('starting two dbrests: one without metrics and JSON logs, one with both…');
  return runOnTwoServers('observe', [
    { name: 'dbrest-observe-off', env: off },
    { name: 'dbrest-observe-on', env: { ...plain, DBREST_ADMIN_SERVER_PORT: String(await freePort()), DBREST_LOG_FORMAT: 'json', DBREST_LOG_LEVEL: 'info' } },
  ], cases);
}

/**
 * W1B, W2B: a PgBouncer in transaction mode in front of the bench's PostgreSQL, and two dbrests
 * with db-prepared-statements=false (LISTEN on a direct db-channel-uri): one straight to
 * PostgreSQL, one through PgBouncer. PgBouncer's pool is BENCH_POOL, as dbrest's: PostgreSQL sees
 * as many backends either way.
 */
async function runPoolerPairs(cases: PairCase[], clusterUri: string, datasetUri: string, dbrestEnv: Record<string, string>): Promise<PairResult[]> {
  const found = findPgBouncer();
  if ('skip' in found) {
    log(`PgBouncer cases not run: ${found.skip}`);
    return [];
  }
  const pgb = await startPgBouncer(found.bin, clusterUri, { poolMode: 'transaction', defaultPoolSize: cfg.pool, maxClientConn: 200 });
  onExit(() => pgb.stop());
  const version = await new Promise<string>((resolve) => {
    const p = spawn(found.bin, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    p.on('close', () => resolve(out.split('\n')[0]?.trim() || found.bin));
    p.on('error', () => resolve(found.bin));
  });
  log(`starting ${version} (transaction mode, default_pool_size ${cfg.pool}) and two dbrests with db-prepared-statements=false, one through it…`);
  const env = { ...dbrestEnv, DBREST_DB_PREPARED_STATEMENTS: 'false', DBREST_DB_CHANNEL_URI: datasetUri };
  const results = await runOnTwoServers('PgBouncer', [
    { name: 'dbrest-direct-unprepared', env },
    { name: 'dbrest-pgbouncer', env: { ...env, DBREST_DB_URI: pgb.through(datasetUri) }, poolerPid: pgb.pid },
  ], cases);
  await pgb.stop();
  return results;
}

async function main(): Promise<number> {
  const started = Date.now();
  const loadCount = loadCases().filter((c) => wanted(c.id)).length + 2 * [...pairCases().filter((c) => wanted(c.id)), ...workerPairCases().filter((c) => named(c.id)), ...unpreparedPairCases().filter((c) => named(c.id)), ...poolerPairCases(cfg.pool).filter((c) => named(c.id))].length + 2 * ['C1', 'C2', 'C3'].filter(wanted).length + CONTENT_IDS.filter(wanted).length;
  // Watchdog: setup + every load run + W6 + W7, with generous slack; the run stops itself past it.
  const budgetS = 180 + loadCount * 2 * (cfg.seconds + cfg.warmup + 10) + cfg.w6Requests * 2 * 60 + cfg.w7Runs * 60;
  setTimeout(() => abort(`watchdog: still running after ${budgetS} s`, 1), budgetS * 1000).unref();

  log(`dbrest bench — ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, node ${process.version}`);
  log(`load runs: ${cfg.seconds} s per server and case in ${cfg.rounds} alternating rounds after ${cfg.warmup} s warm-up, ${cfg.connections} connections, pool ${cfg.pool}; 127.0.0.1 only`);
  log(`load generator: ${generator.detail}`);

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-bench-'));
  onExit(() => rmSync(tmp, { recursive: true, force: true }));

  log('starting embedded PostgreSQL…');
  const db: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata'), durable: cfg.durable, onProgress: (m) => log(`  ${m}`) });
  onExit(() => db.stop());
  const version = await (async () => {
    const c = new pg.Client({ connectionString: db.uri });
    await c.connect();
    try {
      return String((await c.query('SHOW server_version')).rows[0]?.server_version ?? '?');
    } finally {
      await c.end();
    }
  })();
  log(`  PostgreSQL ${version} on port ${db.port}, ${durabilityText()}`);

  log(`loading dataset (artists ${size.artists}, albums ${size.albums}, tracks ${size.tracks}, customers ${size.customers})…`);
  const dataset = await loadDataset(db.uri);

  const floorPort = await freePort();
  const floor = startChild('floor', serverArgs(FLOOR_BIN, floorPort, dataset.uri), { FLOOR_POOL_SIZE: String(cfg.pool) });
  const floorUp = await waitAnswering(floorPort, floor, 20_000);
  if (!('status' in floorUp) || floorUp.status !== 200) {
    throw new Error(`the floor server did not start: ${'reason' in floorUp ? floorUp.reason : `GET / answered ${floorUp.status}`}`);
  }
  log(`floor server on 127.0.0.1:${floorPort}`);
  if (floor.pid) serverPids.set(floorPort, floor.pid);
  postmasterPid = Number(readFileSync(path.join(tmp, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]) || null;

  const dbrestPort = await freePort();
  // Issue 29's overhead: metrics and JSON access logs together, against both off.
  const observe: Record<string, string> = process.env.BENCH_OBSERVE === 'on'
    ? { DBREST_ADMIN_SERVER_PORT: String(await freePort()), DBREST_LOG_FORMAT: 'json', DBREST_LOG_LEVEL: 'info' }
    : {};
  if (process.env.BENCH_OBSERVE === 'on') log('dbrest with metrics and JSON access logs (BENCH_OBSERVE=on)');
  const dbrestEnv = {
    DBREST_DB_URI: dataset.uri,
    DBREST_DB_ANON_ROLE: ANON_ROLE,
    DBREST_DB_SCHEMAS: 'public',
    DBREST_DB_POOL: String(cfg.pool),
    DBREST_SERVER_HOST: '127.0.0.1',
    DBREST_SERVER_PORT: String(dbrestPort),
    DBREST_LOG_LEVEL: 'error',
    DBREST_ROUTES: JSON.stringify(BENCH_ROUTES),
    ...observe,
  };
  const dbrest = startChild('dbrest', [cfg.dbrestBin, 'serve'], dbrestEnv);
  if (dbrest.pid) serverPids.set(dbrestPort, dbrest.pid);
  const dbrestUp = await waitAnswering(dbrestPort, dbrest, 30_000);
  let dbrestDown: string | null = null;
  let dbrestStartFailure: string | null = null;
  if ('reason' in dbrestUp) {
    dbrestStartFailure = dbrestUp.reason;
    dbrestDown = 'dbrest not answering (see above)';
    log(`dbrest not answering: ${dbrestUp.reason}`);
    await dbrest.stop();
  } else {
    log(`dbrest on 127.0.0.1:${dbrestPort} (GET / → ${dbrestUp.status})`);
  }
  log();

  const load: LoadCaseResult[] = [];
  for (const c of loadCases()) {
    if (!wanted(c.id)) continue;
    load.push(await runLoadCase(c, floorPort, dbrestDown ? null : dbrestPort, dbrestDown));
    if (dbrestDown === null && dbrest.exit() !== null) {
      dbrestDown = `dbrest exited (${dbrest.exit()}) during the run (see above)`;
      dbrestStartFailure = `exited (${dbrest.exit()}) during ${c.id}${dbrest.tail() ? ':\n' + indent(dbrest.tail()) : ''}`;
      log(`dbrest ${dbrestStartFailure}`);
    }
  }

  const pairs: PairResult[] = [];
  for (const c of pairCases()) if (wanted(c.id) && dbrestDown === null) pairs.push(await runPairCase(c, dbrestPort));
  const workerPairs = workerPairCases().filter((c) => named(c.id));
  if (workerPairs.length > 0 && dbrestDown === null) {
    log(`starting a dbrest with server-workers=2 (db-pool ${cfg.pool} per worker)…`);
    const port = await freePort();
    const two = startChild('dbrest-2-workers', [cfg.dbrestBin, 'serve'], { ...dbrestEnv, DBREST_SERVER_PORT: String(port), DBREST_SERVER_WORKERS: '2' });
    if (two.pid) serverPids.set(port, two.pid);
    const up = await waitAnswering(port, two, 60_000);
    if ('reason' in up) log(`  worker cases not run: ${up.reason}`);
    else for (const c of workerPairs) pairs.push(await runPairCase(c, dbrestPort, port));
    await two.stop();
  }
  const unpreparedPairs = unpreparedPairCases().filter((c) => named(c.id));
  if (unpreparedPairs.length > 0 && dbrestDown === null) {
    log('starting a dbrest with db-prepared-statements=false…');
    const port = await freePort();
    const unprepared = startChild('dbrest-unprepared', [cfg.dbrestBin, 'serve'], { ...dbrestEnv, DBREST_SERVER_PORT: String(port), DBREST_DB_PREPARED_STATEMENTS: 'false' });
    if (unprepared.pid) serverPids.set(port, unprepared.pid);
    const up = await waitAnswering(port, unprepared, 30_000);
    if ('reason' in up) log(`  unprepared cases not run: ${up.reason}`);
    else for (const c of unpreparedPairs) pairs.push(await runPairCase(c, dbrestPort, port));
    await unprepared.stop();
  }
  const observePairs = observePairCases().filter((c) => named(c.id));
  if (observePairs.length > 0 && dbrestDown === null) pairs.push(...(await runObservePairs(observePairs, dbrestEnv)));
  const poolerPairs = poolerPairCases(cfg.pool).filter((c) => named(c.id));
  if (poolerPairs.length > 0 && dbrestDown === null) pairs.push(...(await runPoolerPairs(poolerPairs, db.uri, dataset.uri, dbrestEnv)));
  if (['C1', 'C2', 'C3'].some(wanted)) {
    log('loading examples/cms and starting a dbrest for it…');
    const cms = await startCmsServer(dataset.uri);
    if ('reason' in cms) log(`  CMS cases not run: ${cms.reason}`);
    else {
      for (const c of cmsPairCases(cms.session)) if (wanted(c.id)) pairs.push(await runPairCase(c, cms.port));
      await cms.child.stop();
    }
  }

  const content: ContentResult[] = [];
  let contentSetup: { loadMs: number; params: Record<string, string | number> } | { note: string } | null = null;
  if (CONTENT_IDS.some(wanted)) {
    log(`loading examples/content with ${cfg.contentPages} generated pages and starting a dbrest for it…`);
    const loaded = await loadContent(dataset.uri);
    const server = await startContentServer(dataset.uri);
    if ('reason' in server) {
      log(`  content cases not run: ${server.reason}`);
      contentSetup = { note: server.reason };
    } else {
      contentSetup = { loadMs: loaded.loadMs, params: loaded.params };
      for (const c of loaded.cases) if (wanted(c.id)) content.push(await runSingleCase(c, server.port));
      await server.child.stop();
    }
  }

  const big = wanted('W6') ? await runBigCase(floor, floorPort, dbrestDown ? null : dbrest, dbrestDown ? null : dbrestPort, dbrestDown) : null;

  await floor.stop();
  await dbrest.stop();

  const catalog = wanted('W7') ? await runCatalogCase(db.uri) : null;
  if (catalog && catalog.outcome !== 'ok') log(`  ${catalog.note}`);

  log();
  if (load.length > 0 || big || catalog) printTable(load, big, catalog);
  for (const p of pairs) {
    const cpu = (x: Side) => {
      if (x.outcome !== 'ok') return 'n/a';
      const f = x.figures!;
      const pooler = f.poolerCpuUs !== null ? `, pgbouncer ${f.poolerCpuUs} µs` : '';
      const switches = f.pgSwitches !== null ? `, postgres context switches/req ${f.pgSwitches}` : '';
      return `${f.serverCpuUs ?? '?'} + ${f.pgCpuUs ?? '?'} = ${cpuPerRequest(x) ?? '?'} µs (server + postgres)${pooler}${switches}`;
    };
    const rps = (x: Side) => (x.outcome === 'ok' ? `${fmt(x.figures!.reqPerSec)} req/s, p99 ${x.figures!.p99Ms} ms` : 'n/a');
    const withPooler = p.cpuWithPoolerRatio !== null ? `, with pgbouncer's ${p.cpuWithPoolerRatio}` : '';
    log(`${p.id} ${p.title}: ${rps(p.a.side)}, CPU/req ${cpu(p.a.side)}  vs  ${rps(p.b.side)}, CPU/req ${cpu(p.b.side)}  → CPU ratio (server + postgres) ${p.cpuRatio ?? 'n/a'}${withPooler}, req/s ratio ${p.rpsRatio ?? 'n/a'}`);
  }

  if (content.length > 0) {
    log();
    printContent(content);
  }

  const results = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? null, memoryGb: round(os.totalmem() / 2 ** 30), node: process.version, postgres: version, postgresDurability: durabilityText() },
    config: { ...cfg, dataset: size, datasetLoadMs: dataset.loadMs, generator: generator.detail },
    dbrest: { entry: path.relative(root, cfg.dbrestBin), ...(dbrestDown === null ? { status: 'answering' } : { status: 'not answering', note: dbrestStartFailure ?? dbrestDown }) },
    cases: load.map((r) => ({ ...r, targets: targetCheck(r.id, figuresOf(r)) })),
    pairs,
    content: { setup: contentSetup, cases: content },
    w6: big,
    w7: catalog,
    elapsedSeconds: round((Date.now() - started) / 1000, 0),
  };
  const out = path.join(root, '.dbrest', 'bench-results.json');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  log(`\nresults written to ${path.relative(process.cwd(), out) || out}; took ${results.elapsedSeconds} s`);
  if (cfg.keepLogs) {
    for (const c of [floor, dbrest]) log(`\n--- ${c.name} output (tail) ---\n${c.tail()}`);
  }
  return 0;
}

main()
  .catch((e: Error) => {
    log(`bench failed: ${e.stack ?? e.message}`);
    return 1;
  })
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  });
