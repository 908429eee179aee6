// PlannedCall → ONE statement (PostgREST's QueryBuilder.callPlanToQuery + Statements.prepareCall).
// Pure.
//
//   WITH pgrst_source AS (
//     SELECT pgrst_call.* FROM "s"."f"("a" := $1::integer) pgrst_call                 -- typed arguments
//   | SELECT pgrst_call.* FROM pg_catalog.json_to_record($1::json) AS pgrst_body("a" integer, "b" text), -- JSON body
//       LATERAL "s"."f"("a" := pgrst_body."a", "b" := pgrst_body."b") pgrst_call
//   | SELECT pgrst_call.pgrst_scalar FROM (SELECT "s"."f"(…) AS pgrst_scalar OFFSET 0) pgrst_call  -- scalar / void
//   )
//   SELECT total_count, page_count, body, response_headers, response_status, postcondition
//   FROM (<select=, filters, order, limit over pgrst_source>) _postgrest_t
import { Buffer } from 'node:buffer';
import type { CallArgValue, PlannedCall } from '../plan/call-plan.js';
import type { MutationBody, PlannedColumn } from '../plan/mutate-plan.js';
import { catalogType, constant, ident, join, qualified, sql, value, type Sql } from './fragment.js';
import { withResponseCap } from './response-cap.js';
import { mediaBodySql, type MediaBody } from './media.js';
import { payloadFromSql, postconditionSql, type Postcondition } from './mutate.js';
import { buildCountQuery, buildReadRowsStatement, responseHeadersSql, responseStatusSql } from './read.js';

/** How the body column is built. */
export type CallBodyShape =
  /** PostgREST's JSON: an array for set-returning functions, the value/object for single results. */
  | 'json'
  /** The one row (vnd.pgrst.object): exactly one row, else DBRST116 (rolled back). */
  | 'single'
  /** An array of row objects (`{"pgrst_scalar": …}` for scalars), for CSV. */
  | 'rows';

export interface CallStatementOptions {
  readonly body: CallBodyShape;
  /** `Prefer: count=exact|estimated`: count the filtered rows (PostgREST counts exactly for calls). */
  readonly count: boolean;
  /** A negotiated non-JSON representation: the body is built by it instead (`body` is then ignored). */
  readonly media?: MediaBody;
  /** server-max-response-bytes: a larger body fails the statement (sql/response-cap.ts). */
  readonly maxResponseBytes?: number;
}

/** The call itself, as the `pgrst_source` CTE's query. */
export function callSourceSql(call: PlannedCall): Sql {
  const fn = qualified(call.routine);
  const scalar = call.result.kind !== 'composite';
  const output = scalar ? constant('pgrst_call.pgrst_scalar') : constant('pgrst_call.*');
  // OFFSET 0 keeps the scalar call's subquery from being pulled up: pulled up, its call is copied
  // into every reference to pgrst_scalar (count, json_agg, …) and a STABLE function runs once per copy.
  const callIt = (argsSql: Sql): Sql =>
    scalar ? sql`(SELECT ${fn}(${argsSql}) AS pgrst_scalar OFFSET 0) pgrst_call` : sql`${fn}(${argsSql}) pgrst_call`;

  const a = call.args;
  switch (a.kind) {
    case 'positional': {
      const p = call.params[0];
      const arg = p === undefined ? constant('') : argValueSql(a.value, p.type);
      return sql`SELECT ${output} FROM ${callIt(arg)}`;
    }
    case 'direct': {
      const args = call.params.map((p) => {
        const v = a.values.get(p.name) ?? null;
        const variadic = p.mode === 'variadic' ? constant('VARIADIC ') : constant('');
        return sql`${variadic}${ident(p.name)} := ${argValueSql(v, p.type)}`;
      });
      return sql`SELECT ${output} FROM ${callIt(join(args))}`;
    }
    case 'json': {
      if (call.params.length === 0) return sql`SELECT ${output} FROM ${callIt(constant(''))}`;
      const columns: PlannedColumn[] = call.params.map((p) => ({ name: p.name, type: p.type, default: null }));
      const body: MutationBody = { text: a.text, isObject: a.isObject, columns, applyDefaults: false };
      const args = call.params.map((p) => {
        const variadic = p.mode === 'variadic' ? constant('VARIADIC ') : constant('');
        return sql`${variadic}${ident(p.name)} := pgrst_body.${ident(p.name)}`;
      });
      return sql`SELECT ${output} ${payloadFromSql(body, { limitOne: true })}, LATERAL ${callIt(join(args))}`;
    }
  }
}

/** `$n::type`; a list travels as an array parameter (VARIADIC), bytes as bytea. */
function argValueSql(v: CallArgValue, type: string): Sql {
  if (v === null) return sql`NULL::${catalogType(type)}`;
  if (Buffer.isBuffer(v)) {
    const bytes = value(v, 'bytea');
    return type === 'bytea' ? bytes : sql`pg_catalog.convert_from(${bytes}, 'UTF8')::${catalogType(type)}`;
  }
  return sql`${value(Array.isArray(v) ? [...v] : v)}::${catalogType(type)}`;
}

/**
 * One result row: `total_count` (bigint or NULL), `page_count`, `body` (text), `response_headers`,
 * `response_status`, `postcondition` (NULL when it returns).
 */
export function buildCallStatement(call: PlannedCall, opts: CallStatementOptions): Sql {
  const source = constant('pgrst_source');
  const rows = buildReadRowsStatement(call.read, { source });
  const count = constant('pg_catalog.count(_postgrest_t)');
  const total = opts.count
    ? sql`(SELECT pg_catalog.count(*) FROM (${buildCountQuery(call.read, { source })}) AS pgrst_count)`
    : constant('NULL::bigint');

  const checks: Postcondition[] = [];
  if (opts.body === 'single') checks.push({ code: 'DBRST116', fails: (n) => sql`${n} <> 1` });
  if (call.maxAffected !== null) {
    const max = call.maxAffected;
    checks.push({ code: 'DBRST124', fails: (n) => sql`${n} > ${value(max, 'bigint')}` });
  }

  const body = opts.media ? mediaBodySql(opts.media) : bodySql(call, opts.body);
  const select = sql`SELECT ${total} AS total_count, ${count} AS page_count, ${body} AS body, ${responseHeadersSql} AS response_headers, ${responseStatusSql} AS response_status, ${postconditionSql(checks, count)} AS postcondition FROM (${rows}) AS _postgrest_t`;
  return withResponseCap(sql`WITH pgrst_source AS (${callSourceSql(call)}) `, select, opts.maxResponseBytes);
}

function bodySql(call: PlannedCall, shape: CallBodyShape): Sql {
  const r = call.result;
  if (r.kind === 'void') return constant('NULL::text');
  if (shape === 'rows') return constant(`coalesce(pg_catalog.json_agg(_postgrest_t), '[]')::text`);
  const item = r.kind === 'scalar' ? constant('_postgrest_t.pgrst_scalar') : constant('_postgrest_t');
  if (shape === 'single' || !r.setOf) return sql`coalesce(pg_catalog.json_agg(${item}) -> 0, 'null')::text`;
  return sql`coalesce(pg_catalog.json_agg(${item}), '[]')::text`;
}
