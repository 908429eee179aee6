// W2's SQL as PostgreSQL receives it (read-pg-cpu.ts and read-pg-callgrind.ts run the same texts):
// dbrest's context settings and main statement, as `log-query` of a serve on the bench dataset
// shows them, variants of the main statement, and the floor's statement (floor-server.ts).
import { ANON_ROLE } from './dataset.js';

/** The settings a W2 request from wrk gives (db/transaction.ts contextPrelude over sql/tx-settings.ts). */
export const READ_ONLY: readonly [string, string] = ['transaction_read_only', 'on'];
export const CONTEXT: ReadonlyArray<readonly [string, string]> = [
  ['search_path', '"public"'],
  ['request.method', 'GET'],
  ['request.path', '/tracks'],
  ['request.headers', JSON.stringify({ host: '127.0.0.1:3000', accept: 'application/json' })],
  ['request.cookies', '{}'],
  ['request.jwt.claims', JSON.stringify({ role: ANON_ROLE })],
];
export const ROLE: readonly [string, string] = ['role', ANON_ROLE];

/** `SELECT num_nulls(set_config($1, $2, true), …)` for n pairs. */
export const settingsSql = (n: number): string =>
  `SELECT pg_catalog.num_nulls(${Array.from({ length: n }, (_, i) => `pg_catalog.set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ')})`;

/** server-max-response-bytes' default and a stand-in for the per-process mark (sql/response-cap.ts). */
export const CAP = 64 * 1024 * 1024;
export const CAP_TEXT = `dbrest-response-cap-0123456789abcdef01234567 ${CAP} `;

const rows = 'SELECT "tracks".* FROM "public"."tracks" AS "tracks" WHERE "tracks"."album_id" <= $1 ORDER BY "tracks"."id" DESC LIMIT 50';
const envelope = (count: string) =>
  `SELECT NULL::bigint AS total_count, ${count} AS page_count, coalesce(json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT * FROM pgrst_source) AS _postgrest_t`;
const capped = (select: string) =>
  `WITH pgrst_source AS (${rows}) SELECT pgrst_envelope.*, CASE WHEN pg_catalog.octet_length(pgrst_envelope.body) > $2::bigint THEN ($3::text || (pg_catalog.octet_length(pgrst_envelope.body))::text)::integer END AS response_cap FROM (${select}) AS pgrst_envelope`;

/** Main statements: $1 the filter value (text), and when capped $2 the cap, $3 CAP_TEXT. */
export const MAIN = {
  /** dbrest since the page count is count(*). */
  now: capped(envelope('pg_catalog.count(*)')),
  /** dbrest before: PostgREST's count(_postgrest_t). */
  countRow: capped(envelope('pg_catalog.count(_postgrest_t)')),
  uncapped: `WITH pgrst_source AS (${rows}) ${envelope('pg_catalog.count(*)')}`,
  /** The page's rows counted, no JSON: what the scan costs. */
  pageOnly: `SELECT pg_catalog.count(*) FROM (${rows}) AS t`,
} as const;

/** floor-server.ts's W2 statement: $1 the filter value (int), $2 the limit. */
export const FLOOR = "SELECT coalesce(json_agg(t), '[]')::text FROM (SELECT * FROM tracks WHERE album_id <= $1 ORDER BY id DESC LIMIT $2) AS t";
