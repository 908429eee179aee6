// W2's PostgreSQL side split by part: CPU time of one backend per batch, read from
// /proc/<backend pid>/schedstat over a fixed number of batches, for dbrest's W2 batch (context
// settings + main statement, one Sync), its parts alone, ways of writing them, and the floor's one
// prepared statement, alternated over rounds on one connection of the bench dataset. Batches go
// through db/batch.ts as dbrest sends them (named statements, one Sync). insert-cpu.ts does the same
// for W4.
//   node dist/test/bench/read-pg-cpu.js   (env: RPG_ROUNDS=7 RPG_BATCHES=1000 RPG_SCALE=1
//                                           RPG_ALBUMS=40: W2's filter is album_id <= albums/RPG_ALBUMS,
//                                           as run.ts's; RPG_ONLY=0,1,5: the variants, by index)
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { runBatch, type BatchStatement } from '../../src/db/batch.js';
import { statementName } from '../../src/db/transaction.js';
import { benchDatabase, median } from './cpu-runs.js';
import { ANON_ROLE } from './dataset.js';

const rounds = Number(process.env.RPG_ROUNDS ?? 7);
const batches = Number(process.env.RPG_BATCHES ?? 1000);

/** Nanoseconds the process has run on a CPU (/proc/<pid>/schedstat: finer than stat's ticks). */
function cpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

const named = (text: string, values: ReadonlyArray<unknown>, discard = false): BatchStatement => ({ text, values, name: statementName(text), discard });

// What wrk's W2 request sets (db/transaction.ts contextPrelude over sql/tx-settings.ts).
const HEADERS = JSON.stringify({ host: '127.0.0.1:3000', accept: 'application/json' });
const CONTEXT: Array<[string, string]> = [
  ['search_path', '"public"'],
  ['request.method', 'GET'],
  ['request.path', '/tracks'],
  ['request.headers', HEADERS],
  ['request.cookies', '{}'],
  ['request.jwt.claims', JSON.stringify({ role: ANON_ROLE })],
];

function settings(pairs: Array<[string, string]>): BatchStatement {
  const calls = pairs.map((_, i) => `pg_catalog.set_config($${2 * i + 1}, $${2 * i + 2}, true)`);
  return named(`SELECT pg_catalog.num_nulls(${calls.join(', ')})`, pairs.flat(), true);
}
const readOnly: [string, string] = ['transaction_read_only', 'on'];
const role: [string, string] = ['role', ANON_ROLE];

const CAP = 64 * 1024 * 1024;
const CAP_MARK = 'dbrest-response-cap-0123456789abcdef01234567';
const rows = 'SELECT "tracks".* FROM "public"."tracks" AS "tracks" WHERE "tracks"."album_id" <= $1 ORDER BY "tracks"."id" DESC LIMIT 50';
const envelope = (count: string) =>
  `SELECT NULL::bigint AS total_count, ${count} AS page_count, coalesce(json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT * FROM pgrst_source) AS _postgrest_t`;
const capped = (select: string) =>
  `WITH pgrst_source AS (${rows}) SELECT pgrst_envelope.*, CASE WHEN pg_catalog.octet_length(pgrst_envelope.body) > $2::bigint THEN ($3::text || (pg_catalog.octet_length(pgrst_envelope.body))::text)::integer END AS response_cap FROM (${select}) AS pgrst_envelope`;
/** dbrest's main statement for W2 (log-query of a serve on the bench dataset). */
const MAIN = capped(envelope('pg_catalog.count(_postgrest_t)'));
const MAIN_COUNT_STAR = capped(envelope('pg_catalog.count(*)'));
const MAIN_UNCAPPED = `WITH pgrst_source AS (${rows}) ${envelope('pg_catalog.count(_postgrest_t)')}`;
const MAIN_UNCAPPED_COUNT_STAR = `WITH pgrst_source AS (${rows}) ${envelope('pg_catalog.count(*)')}`;
const FLOOR = 'SELECT coalesce(json_agg(t), \'[]\')::text FROM (SELECT * FROM tracks WHERE album_id <= $1 ORDER BY id DESC LIMIT $2) AS t';

function variants(albumMax: number): Record<string, () => BatchStatement[]> {
  const filter = String(albumMax);
  const main = (text: string) => named(text, text.includes('$2') ? [filter, CAP, `${CAP_MARK} ${CAP} `] : [filter]);
  return {
    'floor: one prepared statement': () => [named(FLOOR, [albumMax, 50])],
    'dbrest now: settings (read-only, context, role) + main': () => [settings([readOnly, ...CONTEXT, role]), main(MAIN)],
    'main alone (as superuser)': () => [main(MAIN)],
    'settings alone': () => [settings([readOnly, ...CONTEXT, role])],
    'settings without the role + main': () => [settings([readOnly, ...CONTEXT]), main(MAIN)],
    'settings without read-only + main': () => [settings([...CONTEXT, role]), main(MAIN)],
    'only the role + main': () => [settings([role]), main(MAIN)],
    'settings + main with count(*)': () => [settings([readOnly, ...CONTEXT, role]), main(MAIN_COUNT_STAR)],
    'settings + main without the cap': () => [settings([readOnly, ...CONTEXT, role]), main(MAIN_UNCAPPED)],
    'settings + main with count(*), without the cap': () => [settings([readOnly, ...CONTEXT, role]), main(MAIN_UNCAPPED_COUNT_STAR)],
    'the page alone: count(*) of its rows': () => [named(`SELECT pg_catalog.count(*) FROM (${rows}) AS t`, [filter])],
    'floor with LIMIT 50 written in': () => [named(FLOOR.replace('$2', '50'), [albumMax])],
    'empty batch: SELECT 1': () => [named('SELECT 1', [])],
  };
}

const db = await benchDatabase('read-pg-cpu', Number(process.env.RPG_SCALE ?? 1));
const client = new pg.Client({ connectionString: db.uri });
try {
  await client.connect();
  const albumMax = Math.max(1, Math.round(db.size.albums / Number(process.env.RPG_ALBUMS ?? 40)));
  const all = variants(albumMax);
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const only = process.env.RPG_ONLY?.split(',').map(Number);
  const names = Object.keys(all).filter((_, i) => !only || only.includes(i));
  const perVariant = new Map<string, number[]>(names.map((n) => [n, []]));
  console.log(`# W2: album_id <= ${albumMax} of ${db.size.albums}; ${batches} batches per variant and round, ${rounds} rounds`);
  for (const n of names) for (let i = 0; i < 200; i++) await runBatch(client, all[n]!()); // parse, plan cache
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const n of order) {
      const make = all[n]!;
      const t0 = cpuNs(backend);
      for (let i = 0; i < batches; i++) await runBatch(client, make());
      perVariant.get(n)!.push((cpuNs(backend) - t0) / 1000 / batches);
    }
  }
  for (const n of names) {
    const v = perVariant.get(n)!;
    console.log(`${n.padEnd(58)} median ${median(v).toFixed(1).padStart(6)} µs/batch  (rounds: ${v.map((x) => x.toFixed(1)).join(', ')})`);
  }
  // Generic or custom plans: a generic plan skips planning, a custom one plans each execution.
  const plans = await client.query<{ statement: string; generic_plans: string; custom_plans: string }>(
    'SELECT left(statement, 60) AS statement, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY statement',
  );
  for (const p of plans.rows) console.log(`plans: generic ${p.generic_plans}, custom ${p.custom_plans}: ${p.statement}`);
} finally {
  await client.end().catch(() => undefined);
  await db.stop();
}
