// Issue 29's overhead in instructions: the dbrest process runs under valgrind's callgrind, which
// counts every instruction it executes (all its threads), and the count per request of a fixed
// set of requests is compared with metrics and JSON access logs off and on. On this shared VM the
// CPU time of one configuration moved by 40 % from run to run and req/s as much; an instruction
// count moves by about 1 % on a quiet machine, for one order of cases (by 5 % and more beside other
// busy processes: how requests share batches follows the processes' relative pace; and W1 counted
// 8 % less after W4 on the same server than first), so a 3 % cost can be seen at all. (What it cannot see: time spent waiting, cache misses, wake-ups as the scheduler prices them.)
// Each configuration: start `valgrind --tool=callgrind --instr-atstart=no node bin/dbrest.js serve`,
// send CG_WARMUP requests (JIT, pool, caches; not counted), switch counting on, send CG_REQUESTS,
// dump, divide. Requests go CG_CONCURRENCY at a time on keep-alive connections.
// Under valgrind a request takes some 100 times longer, so work done per second weighs 100 times
// more per request than at a server's pace: timers (320,000 instructions a second with both on,
// 250,000 of them prom-client's event-loop monitor, as counted in a bare node process) and the log
// writer thread's look every 20 ms. Hence a third figure: the main thread's count (threads are
// counted apart) less what its timers cost in the same time, read from a window of IDLE_MS with
// counting on and no requests.
// W1 and W3 take their ids from a fixed sequence, so every configuration answers the same requests. W4 (one
// insert, return=minimal) and the configuration `floor` (the bench's floor server, which answers
// W1–W4) compare dbrest's own work with the least a Node server does for the same request.
//   node dist/test/bench/observe-callgrind.js   (env: CG_CASES=W1,W2 CG_REQUESTS=2000 CG_WARMUP=3000
//                                                CG_CONCURRENCY=8 CG_COMBOS='both off,both on' CG_ROUNDS=1
//                                                (combos: both off, metrics only, json only, both on, floor)
//                                                CG_KEEP=/tmp/cg: the dumps copied there, for callgrind_annotate
//                                                CG_NODE_ARGS='--single-threaded': node's own flags)
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/embedded/postgres.js';
import { benchDatabase, FLOOR_BIN, median, serveEnv, serverArgs, waitUp } from './cpu-runs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '../../../bin/dbrest.js');
const cases = (process.env.CG_CASES ?? 'W1,W2').split(',');
const requests = Number(process.env.CG_REQUESTS ?? 2000);
const warmupRequests = Number(process.env.CG_WARMUP ?? 3000);
const concurrency = Number(process.env.CG_CONCURRENCY ?? 8);
const rounds = Number(process.env.CG_ROUNDS ?? 1);
// The idle window after each counted one, in which the server's timers are counted alone.
const IDLE_MS = 4000;
const nodeArgs = (process.env.CG_NODE_ARGS ?? '').split(' ').filter(Boolean);
const COMBOS = [
  { name: 'both off', env: { DBREST_LOG_LEVEL: 'error' } },
  { name: 'metrics only', env: { DBREST_LOG_LEVEL: 'error', admin: '1' } },
  { name: 'json only', env: { DBREST_LOG_LEVEL: 'info', DBREST_LOG_FORMAT: 'json' } },
  { name: 'both on', env: { DBREST_LOG_LEVEL: 'info', DBREST_LOG_FORMAT: 'json', admin: '1' } },
  { name: 'floor', env: { FLOOR_POOL_SIZE: '8' } },
] as const;
const combos = COMBOS.filter((c) => (process.env.CG_COMBOS ?? 'both off,both on').split(',').includes(c.name));
execFileSync('valgrind', ['--version'], { stdio: 'ignore' }); // fails here without valgrind

interface Request {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** `n` requests `requestOf(i)`, `concurrency` at a time, each connection kept alive; each must be 2xx. */
async function send(port: number, n: number, requestOf: (i: number) => Request): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const one = (r: Request) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: r.method, path: r.path, agent, headers: { accept: 'application/json', ...r.headers } }, (res) => {
        if (res.statusCode === undefined || res.statusCode >= 300) reject(new Error(`${r.method} ${r.path}: ${res.statusCode}`));
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(r.body);
    });
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) await one(requestOf(next++));
  }));
  agent.destroy();
}

/** The instructions counted in a callgrind dump (its `totals:` line; `summary:` reads 0 after --zero). */
function instructions(file: string): number {
  const m = /^totals: (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (m === null) throw new Error(`no totals in ${file}`);
  return Number(m[1]);
}

// V8's optimizing compilers and its garbage collector, by their C++ names in callgrind_annotate's
// list. Under valgrind a server runs some 30 times slower, and V8 was still compiling after 10,000
// requests (a fifth of the count, varying by a third from run to run); what is left, the request
// path itself, varied by under 1 %.
const COMPILE_OR_GC = /compiler::|maglev|turboshaft|Compiler|Scaveng|MarkCompact|Heap::|Sweeper|Marking|Evacuat|heap::base|cppgc|IterateObjectCache|Pretenuring/;

/** Instructions in the dump's functions that are neither compiling nor collecting garbage. */
function requestPathInstructions(file: string): number {
  const listing = execFileSync('callgrind_annotate', ['--threshold=100', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  let n = 0;
  for (const line of listing.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (m === null || m[2]!.includes('PROGRAM TOTALS') || COMPILE_OR_GC.test(m[2]!)) continue;
    n += Number(m[1]!.replace(/,/g, ''));
  }
  return n;
}

const db = await benchDatabase('obs-cg', 0.1);
try {
  const albumMax = Math.max(1, Math.round(db.size.albums / 40));
  const get = (p: string): Request => ({ method: 'GET', path: p });
  const customer = JSON.stringify({ first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com', country: 'Norway' });
  const requestsOf: Record<string, (i: number) => Request> = {
    // A fixed, well-spread sequence of ids (a multiplicative hash of the request's index).
    W1: (i) => get(`/tracks?id=eq.${1 + ((i * 2654435761) % db.size.tracks)}`),
    W2: () => get(`/tracks?album_id=lte.${albumMax}&order=id.desc&limit=50`),
    // An artist's albums with their tracks, no limit (cpu-runs.ts's W3), artists in a fixed sequence.
    W3: (i) => get(`/albums?select=id,artist_id,title,released,tracks(id,album_id,name,composer,milliseconds,bytes,unit_price)&artist_id=eq.${1 + ((i * 2654435761) % db.size.artists)}&order=id`),
    W4: () => ({ method: 'POST', path: '/customers', body: customer, headers: { 'content-type': 'application/json', prefer: 'return=minimal' } }),
  };
  const results = new Map<string, number[]>();
  const pathCounts = new Map<string, number[]>();
  const mainCounts = new Map<string, number[]>();
  const add = (to: Map<string, number[]>, key: string, x: number) => to.set(key, [...(to.get(key) ?? []), x]);
  for (let round = 0; round < rounds; round++) {
    for (const combo of round % 2 === 0 ? combos : [...combos].reverse()) {
      const port = await freePort();
      const { admin, ...env } = { admin: '', ...combo.env };
      const out = path.join(db.dir, `cg-${round}-${combo.name.replace(/ /g, '-')}.out`);
      const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${out}`, `--log-file=${out}.log`, process.execPath, ...nodeArgs, ...serverArgs(combo.name === 'floor' ? FLOOR_BIN : bin, port, db.uri)], {
        env: serveEnv(db.uri, port, { DBREST_DB_POOL: '8', ...env, ...(admin ? { DBREST_ADMIN_SERVER_PORT: String(await freePort()) } : {}) }),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let lines = 0;
      child.stderr!.on('data', (b: Buffer) => {
        for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) lines++;
      });
      try {
        await waitUp(port, 300_000, child); // valgrind starts node some 20 times slower
        for (const k of cases) {
          await send(port, warmupRequests, requestsOf[k]!);
          const counting = (on: boolean) => execFileSync('callgrind_control', [on ? '--instr=on' : '--instr=off', String(child.pid)], { stdio: 'ignore' });
          const dump = () => {
            execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
            return latestDump(out);
          };
          execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
          counting(true);
          const linesBefore = lines;
          const started = performance.now();
          await send(port, requests, requestsOf[k]!);
          const sending = (performance.now() - started) / 1000;
          // The JSON lines of the counted requests are written within the writer thread's next look.
          await new Promise((r) => setTimeout(r, 1000));
          const busy = dump();
          // The same server idle: what its timers cost per second (at valgrind's pace a request
          // takes some 50 times longer, and so gets 50 times their share).
          await new Promise((r) => setTimeout(r, IDLE_MS));
          const idle = dump();
          counting(false);
          const window = sending + 1;
          const perRequest = sum(busy.map(instructions)) / requests;
          const pathOnly = sum(busy.map(requestPathInstructions)) / requests;
          const mainIdlePerSecond = requestPathInstructions(idle[0]!) / (IDLE_MS / 1000);
          const mainOnly = (requestPathInstructions(busy[0]!) - mainIdlePerSecond * window) / requests;
          const key = `${k} ${combo.name}`;
          add(results, key, perRequest);
          add(pathCounts, key, pathOnly);
          add(mainCounts, key, mainOnly);
          if (process.env.CG_KEEP) {
            mkdirSync(process.env.CG_KEEP, { recursive: true });
            busy.forEach((f, i) => copyFileSync(f, path.join(process.env.CG_KEEP!, `${round + 1}-${key.replace(/ /g, '-')}${i === 0 ? '' : `-thread${i + 1}`}.callgrind`)));
          }
          console.log(`round ${round + 1} ${key}: ${count(perRequest)} instructions/request, ${count(pathOnly)} without compiling and GC, `
            + `${count(mainOnly)} of them on the main thread without its timers' ${count(mainIdlePerSecond)}/s `
            + `(${(requests / sending).toFixed(0)} requests/s under valgrind, ${lines - linesBefore} lines read)`);
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
  }
  for (const [title, figures] of [['instructions/request', results], ['without compiling and GC', pathCounts], ['main thread, without compiling, GC and timers', mainCounts]] as const) {
    console.log(`\nmedian ${title} (cost against both off):`);
    for (const k of cases) {
      const base = figures.get(`${k} both off`);
      for (const c of combos) {
        const xs = figures.get(`${k} ${c.name}`);
        if (!xs) continue;
        const m = median(xs);
        const cost = base && c.name !== 'both off' ? `${(100 * (m / median(base) - 1)).toFixed(1).padStart(6)} %` : '        ';
        console.log(`  ${k} ${c.name.padEnd(13)} ${count(m).padStart(12)} ${cost}   [${xs.map(count).join(', ')}]`);
      }
    }
  }
} finally {
  await db.stop();
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * The files of the last dump callgrind wrote for `out`, one per thread (--separate-threads): `out.N-01`
 * (the main thread), `out.N-02`, … for the Nth --dump.
 */
function latestDump(out: string): string[] {
  const base = path.basename(out);
  const dumps = readdirSync(path.dirname(out))
    .map((f) => ({ f, m: f.startsWith(`${base}.`) ? /^(\d+)-(\d+)$/.exec(f.slice(base.length + 1)) : null }))
    .filter((d): d is { f: string; m: RegExpExecArray } => d.m !== null)
    .map(({ f, m }) => ({ file: path.join(path.dirname(out), f), n: Number(m[1]), thread: Number(m[2]) }));
  if (dumps.length === 0) throw new Error(`callgrind wrote no dump for ${out}`);
  const last = Math.max(...dumps.map((d) => d.n));
  return dumps.filter((d) => d.n === last).sort((a, b) => a.thread - b.thread).map((d) => d.file);
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
