// The statements of a streamed answer (http/stream.ts): the same rows as the buffered statement
// (sql/read.ts buildReadRowsStatement, sql/call.ts callSourceSql), one result row per answer row,
// each already in the form it is written out in, so the bytes equal the buffered body's. Pure.
//   json, ndjson: each row's JSON text, as json_agg writes each element
//   csv:          the row's columns as text (written in PostgreSQL's record syntax, response/csv.ts)
import type { PlannedCall } from '../plan/call-plan.js';
import type { ReadPlan } from '../plan/types.js';
import { callSourceSql } from './call.js';
import { constant, sql, type Sql } from './fragment.js';
import { buildReadRowsStatement } from './read.js';

export type StreamFormat = 'json' | 'csv' | 'ndjson';

const ROW_JSON = constant('pg_catalog.row_to_json(_postgrest_t)::text');
const SCALAR_JSON = constant('pg_catalog.to_json(_postgrest_t.pgrst_scalar)::text');
const ROW_COLUMNS = constant('_postgrest_t.*');

function item(format: StreamFormat, scalar: boolean): Sql {
  if (format === 'csv') return ROW_COLUMNS;
  return scalar ? SCALAR_JSON : ROW_JSON;
}

/** GET on a table or view. */
export function buildReadStreamStatement(plan: ReadPlan, format: StreamFormat): Sql {
  return sql`SELECT ${item(format, false)} FROM (${buildReadRowsStatement(plan)}) AS _postgrest_t`;
}

/** A set-returning call. */
export function buildCallStreamStatement(call: PlannedCall, format: StreamFormat): Sql {
  const rows = buildReadRowsStatement(call.read, { source: constant('pgrst_source') });
  return sql`WITH pgrst_source AS (${callSourceSql(call)}) SELECT ${item(format, call.result.kind === 'scalar')} FROM (${rows}) AS _postgrest_t`;
}

/** What the request's SQL set for the response, read after the first rows. */
export const RESPONSE_GUCS_TEXT =
  "SELECT nullif(current_setting('response.headers', true), ''), nullif(current_setting('response.status', true), '')";

/** RESPONSE_GUCS_TEXT that also sets statement_timeout to $1 for the rest of the cursor (sql/tx-settings.ts timeoutAfterFirstBatch). */
export const RESPONSE_GUCS_LIFTING_TEXT =
  "SELECT nullif(current_setting('response.headers', true), ''), nullif(current_setting('response.status', true), ''), pg_catalog.set_config('statement_timeout', $1, true)";
