// CPU time per request of two dbrest builds on one read workload, alternated: on a shared machine
// wall-clock req/s is noise, the CPU the server process spends per answer is not. For each round
// and each build (order swapped every round), it starts `node <bin> serve`, warms it with wrk,
// reads utime+stime from /proc/<pid>/stat, drives a fixed-time wrk run, reads them again and
// divides by the requests wrk counted.
//   node dist/test/bench/read-cpu-ab.js A=/path/to/a/bin/dbrest.js B=bin/dbrest.js
//   (env: AB_ROUNDS=4 AB_SECONDS=5 AB_CASES=W1,W2 AB_SCALE=1 AB_CONNECTIONS=32 AB_POOL=10)
// W1, W2, W3 are the bench's (test/bench/run.ts): one track by a random id of 200,000 (at scale 1);
// 50 tracks by one fixed filter, order and limit; an artist's albums with their tracks, no limit.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../../src/embedded/postgres.js';
import { ANON_ROLE, datasetSql, scaledSize } from './dataset.js';

const builds = process.argv.slice(2).map((a) => {
  const eq = a.indexOf('=');
  return { name: a.slice(0, eq), bin: path.resolve(a.slice(eq + 1)) };
});
if (builds.length < 2) throw new Error('usage: read-cpu-ab.js A=<bin> B=<bin>');
const rounds = Number(process.env.AB_ROUNDS ?? 4);
const seconds = Number(process.env.AB_SECONDS ?? 5);
const connections = Number(process.env.AB_CONNECTIONS ?? 32);
const pool = process.env.AB_POOL ?? '10';
const cases = (process.env.AB_CASES ?? 'W1').split(',');
const size = scaledSize(Number(process.env.AB_SCALE ?? 1));
const TICK = 100; // USER_HZ: /proc times are in 1/100 s

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
}

async function waitUp(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).status < 500) return;
    } catch {
      /* not yet */
    }
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

const tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-ab-'));
const db = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata'), durable: false });
try {
  const c = new pg.Client({ connectionString: db.uri });
  await c.connect();
  await c.query(datasetSql(size));
  await c.end();
  const scripts: Record<string, string> = {
    W1: `request = function() return wrk.format("GET", "/tracks?id=eq." .. math.random(1, ${size.tracks}), {["Accept"]="application/json"}) end`,
    W2: `request = function() return wrk.format("GET", "/tracks?album_id=lte.${Math.max(1, Math.round(size.albums / 40))}&order=id.desc&limit=50", {["Accept"]="application/json"}) end`,
    W3: `request = function() return wrk.format("GET", "/albums?select=id,artist_id,title,released,tracks(id,album_id,name,composer,milliseconds,bytes,unit_price)&artist_id=eq." .. math.random(1, ${size.artists}) .. "&order=id", {["Accept"]="application/json"}) end`,
  };
  const files: Record<string, string> = {};
  for (const [k, s] of Object.entries(scripts)) writeFileSync((files[k] = path.join(tmp, `${k}.lua`)), s);

  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const port = await freePort();
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        DBREST_DB_URI: db.uri,
        DBREST_DB_ANON_ROLE: ANON_ROLE,
        DBREST_DB_SCHEMAS: 'public',
        DBREST_DB_POOL: pool,
        DBREST_SERVER_HOST: '127.0.0.1',
        DBREST_SERVER_PORT: String(port),
        DBREST_LOG_LEVEL: 'error',
      };
      const child = spawn(process.execPath, [...(process.env.AB_NODE_ARGS ?? '').split(' ').filter(Boolean), build.bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      // With AB_NODE_ARGS=--trace-gc: young-generation collections counted per measured request.
      let scavenges = 0;
      child.stdout!.on('data', (b: Buffer) => void (scavenges += b.toString().split('Scavenge').length - 1));
      try {
        await waitUp(port);
        for (const k of cases) {
          wrk(port, files[k]!, 2); // warm-up: JIT, caches, pool
          const before = cpuTicks(child.pid!);
          const scavengesBefore = scavenges;
          const n = wrk(port, files[k]!, seconds);
          const perReq = ((cpuTicks(child.pid!) - before) / TICK / n) * 1e6;
          await new Promise((r) => setTimeout(r, 100)); // the child's last trace lines
          const gc = scavenges > 0 ? `, ${(((scavenges - scavengesBefore) / n) * 1000).toFixed(1)} scavenges per 1,000 requests` : '';
          const key = `${k} ${build.name}`;
          results.set(key, [...(results.get(key) ?? []), perReq]);
          console.log(`round ${round + 1} ${key}: ${perReq.toFixed(1)} µs CPU/request (${n} requests, ${(n / seconds).toFixed(0)} req/s${gc})`);
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
  }
  console.log('\nmedian µs CPU/request of the dbrest process:');
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const k of cases) {
    for (const b of builds) {
      const xs = results.get(`${k} ${b.name}`)!;
      console.log(`  ${k} ${b.name}: ${median(xs).toFixed(1)}   [${xs.map((x) => x.toFixed(0)).join(', ')}]`);
    }
  }
} finally {
  await db.stop();
  rmSync(tmp, { recursive: true, force: true });
}
