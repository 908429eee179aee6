// What the CPU-per-request bench tools share (observe-cpu, prepared-cpu, read-cpu-ab,
// read-prep-cpu, write-prep-cpu, insert-cpu, read-pg-cpu): a throwaway PostgreSQL with the bench
// dataset, the workloads as wrk scripts, a fixed wrk run, utime+stime read from /proc, and one
// backend's CPU per batch of statements. On a shared machine wall-clock req/s is noise;
// the CPU a process spends per answer is not.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { runBatch, type BatchStatement } from '../../src/db/batch.js';
import { startEmbeddedPostgres } from '../../src/embedded/postgres.js';
import { ANON_ROLE, datasetSql, scaledSize, type DatasetSize } from './dataset.js';

/** Nanoseconds the process has run on a CPU (/proc/<pid>/schedstat: finer than stat's ticks). */
export function cpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

/**
 * PostgreSQL's CPU per batch for each variant, on the one backend of `client`: each variant is
 * run 200 times first (parse, plan cache), then `batches` times per round, in an order reversed
 * every round; prints and returns each variant's rounds and median (µs per batch).
 */
export async function backendCpuPerBatch(
  client: pg.Client,
  variants: Readonly<Record<string, () => BatchStatement[]>>,
  opts: { batches: number; rounds: number; only?: ReadonlyArray<number> },
): Promise<Map<string, number[]>> {
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const names = Object.keys(variants).filter((_, i) => !opts.only || opts.only.includes(i));
  const perVariant = new Map<string, number[]>(names.map((n) => [n, []]));
  for (const n of names) for (let i = 0; i < 200; i++) await runBatch(client, variants[n]!());
  for (let r = 0; r < opts.rounds; r++) {
    for (const n of r % 2 === 0 ? names : [...names].reverse()) {
      const make = variants[n]!;
      const t0 = cpuNs(backend);
      for (let i = 0; i < opts.batches; i++) await runBatch(client, make());
      perVariant.get(n)!.push((cpuNs(backend) - t0) / 1000 / opts.batches);
    }
  }
  const width = Math.max(...names.map((n) => n.length)) + 2;
  for (const [n, v] of perVariant) {
    console.log(`${n.padEnd(width)} median ${median(v).toFixed(1).padStart(6)} µs/batch  (rounds: ${v.map((x) => x.toFixed(1)).join(', ')})`);
  }
  return perVariant;
}

/** USER_HZ: /proc times are in 1/100 s. */
export const TICK = 100;

const timesOf = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** utime+stime of one process, in ticks (fields 14 and 15 of /proc/<pid>/stat). */
export function cpuTicks(pid: number): number {
  const f = timesOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return Number(f[11]) + Number(f[12]);
}

/** utime+stime of every process whose parent is `ppid` (PostgreSQL's backends and helpers). */
export function childTicks(ppid: number): number {
  let sum = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = timesOf(readFileSync(`/proc/${d}/stat`, 'utf8'));
      if (Number(f[1]) === ppid) sum += Number(f[11]) + Number(f[12]);
    } catch {
      /* gone meanwhile */
    }
  }
  return sum;
}

/** utime+stime per thread name (main, libuv-worker, V8 workers…). */
export function threadTicks(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = timesOf(stat);
      out.set(name, (out.get(name) ?? 0) + Number(f[11]) + Number(f[12]));
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

/** µs of CPU per request from a tick difference. */
export const perRequestUs = (ticks: number, requests: number): number => (ticks / TICK / requests) * 1e6;

export const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Until the server on `port` answers (below 500), for at most `timeoutMs`; fails at once if `child`
 * (the server's process, when given) has exited.
 */
export async function waitUp(port: number, timeoutMs = 30_000, child?: { readonly exitCode: number | null }): Promise<void> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; ) {
    if (child !== undefined && child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).status < 500) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server did not answer in ${timeoutMs / 1000} s`);
}

/**
 * A fixed-time wrk run; the requests it counted. Any non-2xx answer fails the run. Asynchronous, so
 * this process keeps reading the server's stderr meanwhile: a pipe left full would make the
 * server's log writes fail with EAGAIN and retry, which is not what a drained stderr costs.
 */
export function wrk(port: number, script: string, secs: number, connections: number): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile('wrk', ['-t1', `-c${connections}`, `-d${secs}s`, '-s', script, `http://127.0.0.1:${port}`], { encoding: 'utf8' }, (error, stdout, stderr) => {
      const m = /(\d+) requests in/.exec(stdout);
      if (error || !m) return reject(new Error(`wrk: ${error?.message ?? ''}${stdout}${stderr}`));
      const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
      if (non2xx) return reject(new Error(`wrk saw ${non2xx[1]} failed answers`));
      resolve(Number(m[1]));
    });
  });
}

export interface BenchDatabase {
  readonly uri: string;
  readonly size: DatasetSize;
  /** A scratch directory, removed by stop(). */
  readonly dir: string;
  /** The postmaster's pid, whose children are the backends. */
  readonly postmaster: number;
  stop(): Promise<void>;
}

/**
 * An embedded PostgreSQL loaded with the dataset, vacuumed and analysed; fsync off unless `durable`
 * (these tools count CPU, not commits, but a commit's wait changes how requests gather into batches).
 */
export async function benchDatabase(prefix: string, scale: number, durable = false): Promise<BenchDatabase> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `dbrest-${prefix}-`));
  const dataDir = path.join(dir, 'pgdata');
  const db = await startEmbeddedPostgres({ dataDir, durable });
  const size = scaledSize(scale);
  const c = new pg.Client({ connectionString: db.uri });
  await c.connect();
  await c.query(datasetSql(size));
  await c.query('VACUUM ANALYZE'); // as run.ts: the planner's statistics, the visibility map
  await c.end();
  return {
    uri: db.uri,
    size,
    dir,
    postmaster: Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
    async stop() {
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Workload = 'W1' | 'W2' | 'W3' | 'W4';

/**
 * The workloads as wrk scripts in `dir`: W1 one track by a random id, W2 50 tracks by one fixed
 * filter, order and limit (run.ts's: album_id up to a 40th of the albums, so the newest 50 matching
 * tracks are found among ~2,000 scanned backwards by id), W3 an artist's albums with their tracks
 * (no limit), W4 run.ts's insert of one customer with `Prefer: return=minimal` (the floor server
 * answers all four).
 */
export function workloadScripts(size: DatasetSize, dir: string): Record<Workload, string> {
  const get = (url: string) => `request = function() return wrk.format("GET", ${url}, {["Accept"]="application/json"}) end`;
  const body = JSON.stringify({ first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com', country: 'Norway' });
  const scripts: Record<Workload, string> = {
    W1: get(`"/tracks?id=eq." .. math.random(1, ${size.tracks})`),
    W2: get(`"/tracks?album_id=lte.${Math.max(1, Math.round(size.albums / 40))}&order=id.desc&limit=50"`),
    W3: get(`"/albums?select=id,artist_id,title,released,tracks(id,album_id,name,composer,milliseconds,bytes,unit_price)&artist_id=eq." .. math.random(1, ${size.artists}) .. "&order=id"`),
    W4: [
      'wrk.method = "POST"',
      'wrk.path = "/customers"',
      `wrk.body = ${JSON.stringify(body)}`,
      'wrk.headers["Content-Type"] = "application/json"',
      'wrk.headers["Accept"] = "application/json"',
      'wrk.headers["Prefer"] = "return=minimal"',
    ].join('\n'),
  };
  const files = {} as Record<Workload, string>;
  for (const [k, s] of Object.entries(scripts) as Array<[Workload, string]>) writeFileSync((files[k] = path.join(dir, `${k}.lua`)), s);
  return files;
}

/** The bench's floor server (floor-server.ts), beside this module in dist. */
export const FLOOR_BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor-server.js');

/** Node's arguments to start `bin` on `port`: the floor server takes its port and database, dbrest `serve`. */
export const serverArgs = (bin: string, port: number, uri: string): string[] =>
  path.basename(bin) === 'floor-server.js' ? [bin, String(port), uri] : [bin, 'serve'];

/** The environment of a `dbrest serve` over the bench database on `port`; `overrides` win. */
export function serveEnv(uri: string, port: number, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    DBREST_DB_URI: uri,
    DBREST_DB_ANON_ROLE: ANON_ROLE,
    DBREST_DB_SCHEMAS: 'public',
    DBREST_DB_POOL: '8',
    DBREST_SERVER_HOST: '127.0.0.1',
    DBREST_SERVER_PORT: String(port),
    DBREST_LOG_LEVEL: 'error',
    ...overrides,
  };
}

/** `list` rotated by `round`, so no entry always runs first (or after the same one). */
export const rotated = <T>(list: ReadonlyArray<T>, round: number): T[] => list.map((_, i) => list[(i + round) % list.length]!);

/**
 * A dbrest build (a directory holding dist/) started in this process against the bench database,
 * for the in-process tools (read-prep-cpu, write-prep-cpu): `mod` imports one of its modules.
 */
export interface InProcessBuild {
  readonly root: string;
  /** The running server (its `app`, `close()`), typed loosely: builds differ. */
  readonly server: { readonly app: { cache(): unknown; readonly config: unknown }; close(): Promise<void> };
  readonly config: unknown;
  mod(p: string): Promise<Record<string, (...args: never[]) => unknown>>;
}

export async function startBuild(root: string, uri: string): Promise<InProcessBuild> {
  const mod = (p: string) => import(pathToFileURL(path.join(root, 'dist/src', p)).href) as Promise<Record<string, (...args: never[]) => unknown>>;
  const { loadConfig } = (await mod('config/load.js')) as unknown as { loadConfig(o: object): Promise<{ config: unknown }> };
  const { startServer } = (await mod('http/start.js')) as unknown as { startServer(c: unknown, uri: string, log: unknown): Promise<InProcessBuild['server'] & { ready(): Promise<void> }> };
  const { createLogger } = (await mod('observe/log.js')) as unknown as { createLogger(level: string): unknown };
  const env = { DBREST_DB_URI: uri, DBREST_DB_ANON_ROLE: ANON_ROLE, DBREST_DB_SCHEMAS: 'public', DBREST_SERVER_PORT: '0', DBREST_SERVER_HOST: '127.0.0.1', DBREST_LOG_LEVEL: 'crit' };
  const config = (await loadConfig({ cwd: process.cwd(), env, flags: {}, search: false })).config;
  const server = await startServer(config, uri, createLogger('crit'));
  await server.ready();
  return { root, server, config, mod };
}

/**
 * Alternating rounds over in-process builds (the order reversed every round): each round runs
 * `work(b, warm)` unmeasured, then `work(b, n)` and takes this process's CPU per unit; prints each
 * round and each build's median (µs, `unit` names what one is) and closes the builds' servers.
 */
export async function inProcessRounds<B extends { readonly root: string; readonly server: InProcessBuild['server'] }>(
  builds: ReadonlyArray<B>,
  opts: { rounds: number; n: number; warm: number; unit: string; digits: number },
  work: (b: B, count: number) => void | Promise<void>,
): Promise<void> {
  const results = new Map<string, number[]>();
  for (let round = 0; round < opts.rounds; round++) {
    for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
      await work(b, opts.warm);
      const t0 = process.cpuUsage();
      await work(b, opts.n);
      const used = process.cpuUsage(t0);
      const us = (used.user + used.system) / opts.n;
      results.set(b.root, [...(results.get(b.root) ?? []), us]);
      console.log(`round ${round + 1} ${b.root}: ${us.toFixed(opts.digits)} µs CPU per ${opts.unit}`);
    }
  }
  for (const b of builds) {
    const xs = results.get(b.root)!;
    console.log(`median ${median(xs).toFixed(opts.digits)} µs  ${b.root}  [${xs.map((x) => x.toFixed(1)).join(', ')}]`);
    await b.server.close();
  }
}
