// CPU time per request of two dbrest builds on one workload, alternated: on a shared machine
// wall-clock req/s is noise, the CPU the server process spends per answer is not. For each round
// and each build (order swapped every round), it starts `node <bin> serve`, warms it with wrk,
// reads utime+stime from /proc/<pid>/stat, drives a fixed-time wrk run, reads them again and
// divides by the requests wrk counted.
//   node dist/test/bench/read-cpu-ab.js A=/path/to/a/bin/dbrest.js B=bin/dbrest.js
//   (env: AB_ROUNDS=4 AB_SECONDS=5 AB_WARMUP=2 AB_CASES=W1,W2 AB_SCALE=1 AB_CONNECTIONS=32 AB_POOL=10
//         AB_FSYNC=on: a durable PostgreSQL, as users run it; off by default; AB_THREADS=1: the
//         server's CPU per request by thread too)
// Each run also prints WAL flushes (fsyncs of the WAL, pg_stat_io) and commits per request: with
// AB_FSYNC=on, how many commits each flush carries (group commit) decides much of W4's cost.
// W1…W4 are cpu-runs.ts's workloadScripts: one track by a random id of 200,000 (at scale 1); 50
// tracks by one fixed filter, order and limit; an artist's albums with their tracks, no limit;
// W4 one customer inserted with return=minimal. A build whose file is floor-server.js is the bench's
// floor (`floor=dist/test/bench/floor-server.js`), started with its port and the database URI.
// PostgreSQL's CPU per request (every backend's, over the same run) is printed beside it.
import { spawn } from 'node:child_process';
import pg from 'pg';
import path from 'node:path';
import { freePort } from '../../src/embedded/postgres.js';
import { benchDatabase, childTicks, serverArgs, cpuTicks, median, perRequestUs, serveEnv, threadTicks, waitUp, workloadScripts, wrk, type Workload } from './cpu-runs.js';

const builds = process.argv.slice(2).map((a) => {
  const eq = a.indexOf('=');
  return { name: a.slice(0, eq), bin: path.resolve(a.slice(eq + 1)) };
});
if (builds.length < 2) throw new Error('usage: read-cpu-ab.js A=<bin> B=<bin>');
const rounds = Number(process.env.AB_ROUNDS ?? 4);
const seconds = Number(process.env.AB_SECONDS ?? 5);
const connections = Number(process.env.AB_CONNECTIONS ?? 32);
const pool = process.env.AB_POOL ?? '10';
// Seconds of load before each measured run. On this loaded 2-core machine V8 still compiled the
// write path on its helper threads well after a 2 s warm-up: ~80 µs per W4 request on threads
// other than the main one after 2 s, ~5 µs after 10 s.
const warmup = Number(process.env.AB_WARMUP ?? 2);
const cases = (process.env.AB_CASES ?? 'W1').split(',') as Workload[];

const db = await benchDatabase('ab', Number(process.env.AB_SCALE ?? 1), process.env.AB_FSYNC === 'on');
console.log(`PostgreSQL fsync ${process.env.AB_FSYNC === 'on' ? 'on' : 'off'}`);
try {
  const files = workloadScripts(db.size, db.dir);
  const stats = new pg.Client({ connectionString: db.uri });
  stats.on('error', () => undefined); // the database stopping under it at the end
  await stats.connect();
  // Backends and the WAL writer report their counts about once a second: read after a pause.
  const walCounts = async (): Promise<{ fsyncs: number; commits: number }> => {
    await new Promise((r) => setTimeout(r, 1500));
    const r = await stats.query<{ fsyncs: string; commits: string }>(
      `select (select coalesce(sum(fsyncs), 0) from pg_stat_io where object = 'wal') as fsyncs,
              (select xact_commit from pg_stat_database where datname = current_database()) as commits`,
    );
    return { fsyncs: Number(r.rows[0]!.fsyncs), commits: Number(r.rows[0]!.commits) };
  };
  const walResults = new Map<string, number[]>();
  const pgResults = new Map<string, number[]>();

  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const port = await freePort();
      const env = serveEnv(db.uri, port, { DBREST_DB_POOL: pool });
      const args = serverArgs(build.bin, port, db.uri);
      const child = spawn(process.execPath, [...(process.env.AB_NODE_ARGS ?? '').split(' ').filter(Boolean), ...args], { env: { ...env, FLOOR_POOL_SIZE: pool }, stdio: ['ignore', 'pipe', 'inherit'] });
      // With AB_NODE_ARGS=--trace-gc: young-generation collections counted per measured request.
      let scavenges = 0;
      let markCompacts = 0;
      child.stdout!.on('data', (b: Buffer) => {
        const text = b.toString();
        scavenges += text.split('Scavenge').length - 1;
        markCompacts += text.split('Mark-Compact').length - 1;
        if (process.env.AB_ECHO) process.stdout.write(text);
      });
      try {
        await waitUp(port);
        for (const k of cases) {
          await wrk(port, files[k], warmup, connections); // warm-up: JIT, caches, pool
          // Before the CPU is read: its pause would count as the run's.
          const walBefore = await walCounts();
          const before = cpuTicks(child.pid!);
          const pgBefore = childTicks(db.postmaster);
          const scavengesBefore = scavenges;
          const markCompactsBefore = markCompacts;
          const threadsBefore = process.env.AB_THREADS ? threadTicks(child.pid!) : null;
          const n = await wrk(port, files[k], seconds, connections);
          if (threadsBefore !== null) {
            const by = [...threadTicks(child.pid!)].map(([name, t]) => `${name} ${perRequestUs(t - (threadsBefore.get(name) ?? 0), n).toFixed(1)}`);
            console.log(`  ${build.name} µs CPU/request by thread: ${by.join(', ')}`);
          }
          const perReq = perRequestUs(cpuTicks(child.pid!) - before, n);
          const pgPerReq = perRequestUs(childTicks(db.postmaster) - pgBefore, n);
          await new Promise((r) => setTimeout(r, 100)); // the child's last trace lines
          const walAfter = await walCounts();
          const flushed = walAfter.fsyncs - walBefore.fsyncs;
          const commitsPerFlush = flushed > 0 ? (walAfter.commits - walBefore.commits) / flushed : NaN; // NaN: a read-only case
          const wal = flushed > 0 ? `, ${(flushed / n).toFixed(3)} WAL flushes/request, ${commitsPerFlush.toFixed(2)} commits/flush` : ', no WAL flushes';
          const gc = scavenges > 0 ? `, ${(((scavenges - scavengesBefore) / n) * 1000).toFixed(1)} scavenges per 1,000 requests, ${markCompacts - markCompactsBefore} mark-compacts` : '';
          const key = `${k} ${build.name}`;
          results.set(key, [...(results.get(key) ?? []), perReq]);
          pgResults.set(key, [...(pgResults.get(key) ?? []), pgPerReq]);
          walResults.set(key, [...(walResults.get(key) ?? []), commitsPerFlush]);
          console.log(`round ${round + 1} ${key}: ${perReq.toFixed(1)} µs CPU/request, PostgreSQL ${pgPerReq.toFixed(1)} (${n} requests, ${(n / seconds).toFixed(0)} req/s${gc}${wal})`);
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
  }
  const flushes = (xs: number[]): string => {
    const known = xs.filter((x) => !Number.isNaN(x));
    return known.length === 0 ? '' : `; ${median(known).toFixed(2)} commits/WAL flush`;
  };
  console.log('\nmedian µs CPU/request of the server process (PostgreSQL\'s backends):');
  for (const k of cases) {
    for (const b of builds) {
      const xs = results.get(`${k} ${b.name}`)!;
      const ps = pgResults.get(`${k} ${b.name}`)!;
      console.log(`  ${k} ${b.name}: ${median(xs).toFixed(1)} (min ${Math.min(...xs).toFixed(1)})   [${xs.map((x) => x.toFixed(0)).join(', ')}]   (${median(ps).toFixed(1)}${flushes(walResults.get(`${k} ${b.name}`)!)})`);
    }
  }
  await stats.end();
} finally {
  await db.stop();
}
