// CPU per read preparation (parse the request + prepareRead: plan, negotiate, compile, or a memo
// hit), in process, for one or more dbrest builds: less noisy than a load run on a shared machine,
// since nothing but this loop runs in the process. Each build (a directory holding dist/) starts
// its own server against one embedded PostgreSQL with the bench's dataset, then prepares W1 reads
// (`/tracks?id=eq.<random>`) in alternating rounds and prints µs of process CPU per read.
//   node dist/test/bench/read-prep-cpu.js /path/to/before /work/h-readmemo   (env: PREP_ROUNDS=5 PREP_N=20000)
import path from 'node:path';
import { benchDatabase, inProcessRounds, startBuild } from './cpu-runs.js';

const roots = process.argv.slice(2).map((r) => path.resolve(r));
const rounds = Number(process.env.PREP_ROUNDS ?? 5);
const n = Number(process.env.PREP_N ?? 20000);

const db = await benchDatabase('prep', 0.1);
const size = db.size;
try {
  const builds = [];
  for (const root of roots) {
    const b = await startBuild(root, db.uri);
    const { parseRequest } = (await b.mod('request/parse-request.js')) as unknown as { parseRequest(i: object, o: object): { ok: boolean; value: unknown } };
    const { prepareRead } = (await b.mod('http/read-prep.js')) as unknown as { prepareRead(r: unknown, t: string, c: unknown, cfg: unknown): { ok: boolean } };
    const { server, config } = b;
    const cache = server.app.cache();
    const one = (id: number): void => {
      const input = { method: 'GET', url: `/tracks?id=eq.${id}`, headers: { accept: 'application/json' }, body: null };
      const req = parseRequest(input, { schemas: ['public'], routineArgNames: () => null });
      if (!req.ok || !prepareRead(req.value, 'tracks', cache, config).ok) throw new Error('prepare failed');
    };
    builds.push({ root, server, one });
  }
  await inProcessRounds(builds, { rounds, n, warm: 2000, unit: 'prepared W1 read', digits: 2 }, (b, count) => {
    for (let i = 0; i < count; i++) b.one(1 + Math.floor(Math.random() * size.tracks));
  });
} finally {
  await db.stop();
}
