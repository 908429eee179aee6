// `Accept: application/vnd.pgrst.plan…` (db-plan-enabled): the execution plan of a read, write or
// call instead of its result, in the request's own transaction.
import type { AuthResult } from '../auth/jwt.js';
import { err, ok, type Result } from '../errors/types.js';
import type { ApiRequest } from '../request/api-request.js';
import type { PlanOption, PlanRequest } from '../response/negotiate.js';
import type { ResponseSpec } from '../response/types.js';
import { compile, constant, join, sql, type Sql } from '../sql/fragment.js';
import type { AppState } from './app.js';
import { apiErrorFromTx } from './db-errors.js';
import { runRequestTransaction } from './tx.js';

const EXPLAIN_OPTIONS: Readonly<Record<PlanOption, Sql>> = {
  analyze: constant(', ANALYZE'),
  verbose: constant(', VERBOSE'),
  settings: constant(', SETTINGS'),
  buffers: constant(', BUFFERS'),
  wal: constant(', WAL'),
};

const COMPUTE_QUERY_ID = constant(
  `DO $pgrst$ BEGIN PERFORM pg_catalog.set_config('compute_query_id', 'on', true); EXCEPTION WHEN insufficient_privilege OR undefined_object THEN NULL; END $pgrst$`,
);

/**
 * `Accept: application/vnd.pgrst.plan…` (db-plan-enabled): the execution plan of a write or call
 * instead of its result. With `analyze` the statement runs, in the request's transaction (so
 * `Prefer: tx=rollback` keeps the database as it was).
 */
export async function explainStatement(
  req: ApiRequest,
  who: AuthResult,
  app: AppState,
  main: Sql,
  plan: PlanRequest,
  contentType: string,
  readOnly: boolean,
): Promise<Result<ResponseSpec>> {
  const format = plan.format === 'json' ? constant('FORMAT JSON') : constant('FORMAT TEXT');
  const options = join(plan.options.map((o) => EXPLAIN_OPTIONS[o]), constant(''));
  const statement = compile(sql`EXPLAIN (${format}${options}) ${main}`);
  // VERBOSE shows the "Query Identifier" only when PostgreSQL computes one; PostgREST's users see it
  // (pg_stat_statements is loaded on their servers). Turned on for this transaction when the role
  // may set it (a superuser-level setting), silently skipped otherwise; same round trip.
  const statements = plan.options.includes('verbose') ? [compile(COMPUTE_QUERY_ID), statement] : [statement];
  const outcome = await runRequestTransaction(req, who, app, statements, { readOnly, prepared: false });
  if (!outcome.ok) return err(apiErrorFromTx(outcome, who.authenticated, app));
  const rows = outcome.results[statements.length - 1]!.rows.map((r) => r[0]);
  // The driver parses the json column; re-encoded, a 64-bit "Query Identifier" comes out rounded
  // to a double (the text format shows it exactly).
  const body = plan.format === 'json' ? JSON.stringify(typeof rows[0] === 'string' ? JSON.parse(rows[0]) : rows[0]) : rows.join('\n');
  return ok({ status: 200, headers: { 'Content-Type': contentType }, body: req.method === 'HEAD' ? null : body });
}
