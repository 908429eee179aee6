// W4's PostgreSQL side split by statement: CPU time of one backend per batch, read from
// /proc/<backend pid>/schedstat over a fixed number of batches, for each way of writing the insert
// dbrest could send (and the floor's plain prepared INSERT), alternated over rounds on one
// connection. Batches go through db/batch.ts as dbrest sends them (named statements, one Sync).
//   node dist/test/bench/insert-cpu.js   (env: INS_ROUNDS=9 INS_BATCHES=1000 INS_FSYNC=off, INS_ONLY=0,5,8:
//                                          the variants to run, by their index in VARIANTS)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/embedded/postgres.js';
import type { BatchStatement } from '../../src/db/batch.js';
import { statementName } from '../../src/db/transaction.js';
import { backendCpuPerBatch } from './cpu-runs.js';

const rounds = Number(process.env.INS_ROUNDS ?? 9);
const batches = Number(process.env.INS_BATCHES ?? 1000);

const named = (text: string, values: unknown[], discard = false): BatchStatement => ({ text, values, name: statementName(text), discard });

const COLS = ['first_name', 'last_name', 'email', 'country'];
const BODY = JSON.stringify({ first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com', country: 'Norway' });
const HEADERS = JSON.stringify({ host: '127.0.0.1:3000', 'content-type': 'application/json', prefer: 'return=minimal', 'content-length': String(BODY.length) });

function settings(headers: string, role: string, extra: Array<[string, string]> = []): BatchStatement {
  const pairs: Array<[string, string]> = [
    ['search_path', '"public"'],
    ['request.method', 'POST'],
    ['request.path', '/customers'],
    ['request.headers', headers],
    ['request.cookies', '{}'],
    ['request.jwt.claims', '{"role":"bench_anon"}'],
    ...extra,
    ['role', role],
  ];
  const calls = pairs.map((_, i) => `pg_catalog.set_config($${2 * i + 1}, $${2 * i + 2}, true)`);
  return named(`SELECT pg_catalog.num_nulls(${calls.join(', ')})`, pairs.flat(), true);
}

const typed = COLS.map((c) => `"${c}" text`).join(', ');
const colList = COLS.map((c) => `"${c}"`).join(', ');
const selList = COLS.map((c) => `pgrst_body."${c}"`).join(', ');
const tail = `SELECT pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition FROM (SELECT * FROM pgrst_mutation) AS _postgrest_t`;
const cteInsert = `WITH pgrst_mutation AS (INSERT INTO "public"."customers" AS "customers" (${colList}) SELECT ${selList} FROM pg_catalog.json_to_record($1::json) AS pgrst_body(${typed}) RETURNING 1) ${tail}`;
const cteValuesInsert = `WITH pgrst_mutation AS (INSERT INTO "public"."customers" AS "customers" (${colList}) VALUES (${COLS.map((c) => `($1::json ->> '${c}')::text`).join(', ')}) RETURNING 1) ${tail}`;
const populate = `WITH pgrst_mutation AS (INSERT INTO "public"."customers" AS "customers" (${colList}) SELECT ${selList} FROM pg_catalog.json_populate_record(NULL::"public"."customers", $1::json) AS pgrst_body RETURNING 1) ${tail}`;
const plainFromJson = `INSERT INTO "public"."customers" AS "customers" (${colList}) SELECT ${selList} FROM pg_catalog.json_to_record($1::json) AS pgrst_body(${typed})`;
const responseGucs = `SELECT nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status`;
const floor = 'INSERT INTO customers (first_name, last_name, email, country) VALUES ($1, $2, $3, $4)';

const VARIANTS: Record<string, () => BatchStatement[]> = {
  'floor: plain INSERT VALUES': () => [named(floor, ['Bench', 'Mark', 'bench@example.com', 'Norway'])],
  'settings only': () => [settings(HEADERS, 'bench_anon')],
  'settings, role unchanged (postgres)': () => [settings(HEADERS, 'postgres')],
  'settings, 2 KiB headers': () => [settings(JSON.stringify({ ...JSON.parse(HEADERS), cookieish: 'x'.repeat(2000) }), 'bench_anon')],
  'insert CTE (json_to_record), no settings': () => [named(cteInsert, [BODY])],
  'settings + insert CTE (dbrest until ecff48e)': () => [settings(HEADERS, 'bench_anon'), named(cteInsert, [BODY])],
  'settings + CTE over VALUES ($1->>col)': () => [settings(HEADERS, 'bench_anon'), named(cteValuesInsert, [BODY])],
  'settings + CTE json_populate_record': () => [settings(HEADERS, 'bench_anon'), named(populate, [BODY])],
  'settings + plain INSERT from json_to_record': () => [settings(HEADERS, 'bench_anon'), named(plainFromJson, [BODY])],
  'dbrest now: settings + plain INSERT + GUC select': () => [settings(HEADERS, 'bench_anon'), named(plainFromJson, [BODY]), named(responseGucs, [])],
  'empty batch: SELECT 1': () => [named('SELECT 1', [])],
  'BEGIN; settings + insert CTE; COMMIT': () => [{ text: 'BEGIN', values: [] }, settings(HEADERS, 'bench_anon'), named(cteInsert, [BODY]), { text: 'COMMIT', values: [] }],
};

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-insert-cpu-'));
  const durable = process.env.INS_FSYNC === 'on';
  const db = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata'), durable });
  const client = new pg.Client({ connectionString: db.uri });
  try {
    await client.connect();
    await client.query(`CREATE TABLE customers (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL, email text NOT NULL, country text) WITH (autovacuum_enabled = false);
      CREATE ROLE bench_anon NOLOGIN; GRANT USAGE ON SCHEMA public TO bench_anon; GRANT INSERT, SELECT ON customers TO bench_anon; GRANT USAGE ON SEQUENCE customers_id_seq TO bench_anon;`);
    console.log(`# ${batches} batches per variant and round, ${rounds} rounds, fsync ${durable ? 'on' : 'off'}`);
    await backendCpuPerBatch(client, VARIANTS, { batches, rounds, only: process.env.INS_ONLY?.split(',').map(Number) });
  } finally {
    await client.end().catch(() => undefined);
    await db.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
