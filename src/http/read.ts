// GET/HEAD on a table or view: negotiate → plan → build → execute (one round trip) → respond.
import type { AuthResult } from '../auth/jwt.js';
import type { SchemaCache } from '../catalog/types.js';
import { runTransaction } from '../db/transaction.js';
import { err, ok, type Result } from '../errors/types.js';
import { planRead } from '../plan/read-plan.js';
import type { ApiRequest } from '../request/api-request.js';
import { readBodyFor } from '../response/read-body.js';
import { parseResponseGucs } from '../response/gucs.js';
import { negotiateRead, type PlanOption, type PlanRequest } from '../response/negotiate.js';
import { contentRange, rangeStatus } from '../response/range.js';
import type { ResponseSpec } from '../response/types.js';
import { compile, constant, join, sql, type Sql } from '../sql/fragment.js';
import { buildPlannedCountStatement, buildReadStatement } from '../sql/read.js';
import { contextSettings } from '../sql/tx-settings.js';
import type { AppState } from './app.js';
import { apiErrorFromTx } from './db-errors.js';
import { preRequestStatement, txEnd } from './tx.js';

export async function runRead(req: ApiRequest, relation: string, who: AuthResult, cache: SchemaCache, app: AppState): Promise<Result<ResponseSpec>> {
  const cfg = app.config;
  const t0 = performance.now();
  const media = negotiateRead(req.accept, { planEnabled: cfg.dbPlanEnabled });
  if (!media.ok) return media;
  const count = req.preferences.count;
  const plan = planRead({ schema: req.schema, relation, query: req.query, range: req.range, count }, cache, cfg);
  if (!plan.ok) return plan;

  const main = buildReadStatement(plan.value, { count: count === 'planned' ? null : count, maxRows: cfg.dbMaxRows });
  if (media.value.plan) return explainRead(req, who, main, media.value.plan, media.value.contentType, app);
  const statements = [compile(main)];
  if (count === 'planned' || count === 'estimated') statements.push(compile(buildPlannedCountStatement(plan.value)));

  const t1 = performance.now();
  const outcome = await runTransaction(app.pool, {
    readOnly: true,
    settings: contextSettings(req, who, cfg, app.roleSettings()),
    preRequest: preRequestStatement(cfg),
    statements,
    end: txEnd(cfg, req.preferences),
    prepared: cfg.dbPreparedStatements,
  });
  if (!outcome.ok) return err(apiErrorFromTx(outcome, who.authenticated, app));

  const t2 = performance.now();
  const row = outcome.results[0]!.rows[0] as [string | null, string | null, string | null, string | null, string | null];
  const pageCount = Number(row[1] ?? 0);
  let total: number | null = row[0] === null ? null : Number(row[0]);
  if (total === null && statements.length > 1) total = plannedRows(outcome.results[1]!.rows);

  const gucs = parseResponseGucs(row[3], row[4]);
  if (!gucs.ok) return gucs;

  const offset = plan.value.range.offset;
  const range = rangeStatus(offset, pageCount, total);
  const headers: Record<string, string> = { 'Content-Range': contentRange(offset, pageCount, total) };
  if (range.status === 416) return err({ ...range.error, headers });

  const body = readBodyFor(media.value.media, row[2] ?? '[]', pageCount);
  if (!body.ok) return body;
  headers['Content-Type'] = media.value.contentType;
  if (cfg.dbSchemas.length > 1) headers['Content-Profile'] = req.schema;
  for (const [k, v] of gucs.value.headers) headers[k] = v;
  return ok({
    status: gucs.value.status ?? range.status,
    headers,
    body: req.method === 'HEAD' ? null : body.value,
    timings: { plan: t1 - t0, transaction: t2 - t1, response: performance.now() - t2 },
  });
}

/** `Plan Rows` of an `EXPLAIN (FORMAT JSON)` result. */
function plannedRows(rows: unknown[][]): number | null {
  try {
    const cell = rows[0]?.[0];
    const doc = typeof cell === 'string' ? JSON.parse(cell) : cell;
    const n = (doc as Array<{ Plan: { 'Plan Rows': number } }>)[0]!.Plan['Plan Rows'];
    return typeof n === 'number' ? n : null;
  } catch {
    return null;
  }
}

const EXPLAIN_OPTIONS: Readonly<Record<PlanOption, Sql>> = {
  analyze: constant(', ANALYZE'),
  verbose: constant(', VERBOSE'),
  settings: constant(', SETTINGS'),
  buffers: constant(', BUFFERS'),
  wal: constant(', WAL'),
};

/** `Accept: application/vnd.pgrst.plan…` (db-plan-enabled): the execution plan of the read instead of its rows. */
async function explainRead(req: ApiRequest, who: AuthResult, main: Sql, plan: PlanRequest, contentType: string, app: AppState): Promise<Result<ResponseSpec>> {
  const format = plan.format === 'json' ? constant('FORMAT JSON') : constant('FORMAT TEXT');
  const options = join(plan.options.map((o) => EXPLAIN_OPTIONS[o]), constant(''));
  const outcome = await runTransaction(app.pool, {
    readOnly: true,
    settings: contextSettings(req, who, app.config, app.roleSettings()),
    preRequest: preRequestStatement(app.config),
    statements: [compile(sql`EXPLAIN (${format}${options}) ${main}`)],
    end: txEnd(app.config, req.preferences),
    prepared: false,
  });
  if (!outcome.ok) return err(apiErrorFromTx(outcome, who.authenticated, app));
  const rows = outcome.results[0]!.rows.map((r) => r[0]);
  const body = plan.format === 'json' ? JSON.stringify(typeof rows[0] === 'string' ? JSON.parse(rows[0]) : rows[0]) : rows.join('\n');
  return ok({ status: 200, headers: { 'Content-Type': contentType }, body: req.method === 'HEAD' ? null : body });
}
