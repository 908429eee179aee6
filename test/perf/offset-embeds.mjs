#!/usr/bin/env node
// Offset reads with an embed (issue 12 rest, item 6): wall-clock and PostgreSQL's own Execution Time
// of `GET /albums?select=id,title,tracks(id,name)&limit=10&offset=N&order=id` over albums 20k /
// tracks 200k (the bench's default sizes). Not a test; run after a build:
//
//   npm run build   # or: node node_modules/typescript/bin/tsc -p tsconfig.json
//   node test/perf/offset-embeds.mjs [repo-root]     # repo-root: another checkout's built tree, to compare
//
// Uses DBREST_TEST_DB_URI when set, else starts an embedded PostgreSQL in a temporary directory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..'));
process.chdir(root);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-offset-'));
let embedded = null;
if (!process.env.DBREST_TEST_DB_URI) {
  const { startEmbeddedPostgres } = await import(path.join(root, 'dist/src/embedded/postgres.js'));
  embedded = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata'), durable: false });
  process.env.DBREST_TEST_DB_URI = embedded.uri;
}
const dataset = path.join(tmp, 'dataset.sql');
writeFileSync(dataset, `
CREATE SCHEMA offset_bench; SET search_path = offset_bench;
CREATE TABLE albums (id int PRIMARY KEY, title text NOT NULL);
INSERT INTO albums SELECT i, 'Album ' || i FROM generate_series(1, 20000) i;
CREATE TABLE tracks (id int PRIMARY KEY, album_id int NOT NULL REFERENCES albums (id), name text NOT NULL);
INSERT INTO tracks SELECT i, ((i::bigint * 7919) % 20000) + 1, 'Track ' || i FROM generate_series(1, 200000) i;
CREATE INDEX ON tracks (album_id); ANALYZE;`);

const { startTestServer } = await import(path.join(root, 'dist/test/helpers/server.js'));
const downs = [];
try {
  const s = await startTestServer({ teardown: (f) => downs.push(f) }, {
    fixtures: [dataset],
    config: { 'db-schemas': 'offset_bench', 'db-anon-role': 'postgres', 'db-plan-enabled': 'true' },
  });
  for (const offset of [0, 10000, 19990]) {
    const url = `/albums?select=id,title,tracks(id,name)&limit=10&offset=${offset}&order=id`;
    await s.request(url); // warm the cache and the statement
    const walls = [];
    for (let i = 0; i < 5; i++) {
      const t0 = process.hrtime.bigint();
      const r = await s.request(url);
      walls.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
    }
    walls.sort((a, b) => a - b);
    const plan = (await s.request(url, { headers: { Accept: 'application/vnd.pgrst.plan+json; options=analyze' } })).json()[0];
    console.log(`offset ${offset}: median wall ${walls[2].toFixed(1)} ms over 5, PostgreSQL Execution Time ${plan['Execution Time'].toFixed(1)} ms`);
  }
} finally {
  for (const f of downs) await f();
  if (embedded) await embedded.stop();
  rmSync(tmp, { recursive: true, force: true });
}
