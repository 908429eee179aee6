// CPU per read preparation (parse the request + prepareRead: plan, negotiate, compile, or a memo
// hit), in process, for one or more dbrest builds: less noisy than a load run on a shared machine,
// since nothing but this loop runs in the process. Each build (a directory holding dist/) starts
// its own server against one embedded PostgreSQL with the bench's dataset, then prepares W1 reads
// (`/tracks?id=eq.<random>`) in alternating rounds and prints µs of process CPU per read.
//   node dist/test/bench/read-prep-cpu.js /path/to/before /work/h-readmemo   (env: PREP_ROUNDS=5 PREP_N=20000)
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchDatabase, median } from './cpu-runs.js';
import { ANON_ROLE } from './dataset.js';

const roots = process.argv.slice(2).map((r) => path.resolve(r));
const rounds = Number(process.env.PREP_ROUNDS ?? 5);
const n = Number(process.env.PREP_N ?? 20000);

const db = await benchDatabase('prep', 0.1);
const size = db.size;
try {
  const env = { DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: ANON_ROLE, DBREST_DB_SCHEMAS: 'public', DBREST_SERVER_PORT: '0', DBREST_SERVER_HOST: '127.0.0.1', DBREST_LOG_LEVEL: 'crit' };
  const builds = [];
  for (const root of roots) {
    const mod = (p: string) => import(pathToFileURL(path.join(root, 'dist/src', p)).href);
    const { loadConfig } = await mod('config/load.js');
    const { startServer } = await mod('http/start.js');
    const { createLogger } = await mod('observe/log.js');
    const { parseRequest } = await mod('request/parse-request.js');
    const { prepareRead } = await mod('http/read-prep.js');
    const config = (await loadConfig({ cwd: process.cwd(), env, flags: {}, search: false })).config;
    const server = await startServer(config, db.uri, createLogger('crit'));
    await server.ready();
    const cache = server.app.cache();
    const one = (id: number): void => {
      const input = { method: 'GET', url: `/tracks?id=eq.${id}`, headers: { accept: 'application/json' }, body: null };
      const req = parseRequest(input, { schemas: ['public'], routineArgNames: () => null });
      if (!req.ok || !prepareRead(req.value, 'tracks', cache, config).ok) throw new Error('prepare failed');
    };
    builds.push({ root, server, one });
  }
  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const b of order) {
      for (let i = 0; i < 2000; i++) b.one(1 + Math.floor(Math.random() * size.tracks)); // warm
      const t0 = process.cpuUsage();
      for (let i = 0; i < n; i++) b.one(1 + Math.floor(Math.random() * size.tracks));
      const used = process.cpuUsage(t0);
      const us = (used.user + used.system) / n;
      results.set(b.root, [...(results.get(b.root) ?? []), us]);
      console.log(`round ${round + 1} ${b.root}: ${us.toFixed(2)} µs CPU per prepared W1 read`);
    }
  }
  for (const b of builds) {
    const xs = results.get(b.root)!;
    console.log(`median ${median(xs).toFixed(2)} µs  ${b.root}  [${xs.map((x) => x.toFixed(1)).join(', ')}]`);
    await b.server.close();
  }
} finally {
  await db.stop();
}
