// GET/HEAD on a table or view: plan → negotiate (media handlers) → build → execute (one round trip) → respond.
import type { AuthResult } from '../auth/jwt.js';
import type { SchemaCache } from '../catalog/types.js';
import { err, ok, type Result } from '../errors/types.js';
import { legacyTargetWarning } from '../plan/filters.js';
import { planRead } from '../plan/read-plan.js';
import type { ApiRequest } from '../request/api-request.js';
import { readBodyFor } from '../response/read-body.js';
import { parseResponseGucs } from '../response/gucs.js';
import { negotiateMedia } from '../response/negotiate.js';
import { contentRange, rangeStatus } from '../response/range.js';
import { applyHeaders, canonicalLocation } from '../response/headers.js';
import { parseUrlEncoded } from '../request/urlencoded.js';
import { preferenceApplied } from './mutate.js';
import type { ResponseSpec } from '../response/types.js';
import { compile } from '../sql/fragment.js';
import { mediaBodySql } from '../sql/media.js';
import { estimatedTotal } from '../sql/count.js';
import { buildPlannedCountStatement, buildReadStatement } from '../sql/read.js';
import type { AppState } from './app.js';
import { apiErrorFromTx } from './db-errors.js';
import { explainStatement } from './explain.js';
import { mediaBodyFor, readOffers } from './media.js';
import { runRequestTransaction } from './tx.js';

const MAX_CONTENT_LOCATION = 8 * 1024;

export async function runRead(req: ApiRequest, relation: string, who: AuthResult, cache: SchemaCache, app: AppState): Promise<Result<ResponseSpec>> {
  const cfg = app.config;
  const t0 = performance.now();
  const count = req.preferences.count;
  const plan = planRead({ schema: req.schema, relation, query: req.query, range: req.range, count }, cache, cfg);
  if (!plan.ok) return plan;
  // Negotiated against the relation's media handlers (PostgREST: after planning, so a bad select wins).
  const offers = readOffers(cache, req.schema, relation, plan.value);
  const media = negotiateMedia(req.accept, offers, { planEnabled: cfg.dbPlanEnabled, acceptHeader: req.headers['accept'] });
  if (!media.ok) return media;
  const mediaBody = mediaBodyFor(cache, media.value, plan.value, null, req.method === 'HEAD');

  const countOpt = count === 'planned' ? null : count;
  const main = buildReadStatement(
    plan.value,
    mediaBody === undefined ? { count: countOpt, maxRows: cfg.dbMaxRows } : { count: countOpt, maxRows: cfg.dbMaxRows, body: mediaBodySql(mediaBody) },
  );
  if (media.value.plan) return explainStatement(req, who, app, main, media.value.plan, media.value.contentType, true);
  const statements = [compile(main)];
  if (count === 'planned' || count === 'estimated') statements.push(compile(buildPlannedCountStatement(plan.value)));

  const t1 = performance.now();
  const outcome = await runRequestTransaction(req, who, app, statements, true);
  if (!outcome.ok) return err(apiErrorFromTx(outcome, who.authenticated, app));

  const t2 = performance.now();
  const row = outcome.results[0]!.rows[0] as [string | null, string | null, string | Buffer | null, string | null, string | null];
  const pageCount = Number(row[1] ?? 0);
  let total: number | null = row[0] === null ? null : Number(row[0]);
  if (count === 'planned') total = plannedRows(outcome.results[1]!.rows);
  else if (count === 'estimated') total = estimatedTotal(total, plannedRows(outcome.results[1]!.rows), cfg.dbMaxRows);

  const gucs = parseResponseGucs(row[3], row[4]);
  if (!gucs.ok) return gucs;

  const offset = plan.value.range.offset;
  const range = rangeStatus(offset, pageCount, total);
  const contentRangeValue = contentRange(offset, pageCount, total);
  if (range.status === 416) return err({ ...range.error, headers: { 'Content-Range': contentRangeValue } });
  const headers: Record<string, string | string[]> = { 'Content-Range': contentRangeValue };

  // A handler's or raw body is sent as SQL built it (no row: empty); the built-ins are shaped here.
  const body: Result<string | Buffer> = mediaBody !== undefined ? ok(row[2] ?? '') : readBodyFor(media.value.media, (row[2] as string | null) ?? '[]', pageCount);
  if (!body.ok) return body;
  headers['Content-Type'] = media.value.contentType;
  if (cfg.dbSchemas.length > 1) headers['Content-Profile'] = req.schema;
  // Left out when it would be longer than clients accept in a header (a long `in.(…)` list in a
  // URL of up to 64 KiB): most clients refuse response headers over 16 KiB.
  const location = canonicalLocation(relation, parseUrlEncoded(req.search) ?? []);
  if (location.length <= MAX_CONTENT_LOCATION) headers['Content-Location'] = location;
  // PostgREST's read answer echoes the count, tx, handling and timezone preferences it honoured.
  const applied = preferenceApplied(req.preferences, cfg, {});
  if (applied !== null) headers['Preference-Applied'] = applied;
  const warning = legacyTargetWarning(plan.value.legacyTargets);
  if (warning !== null) headers['Warning'] = warning;
  applyHeaders(headers, gucs.value.headers);
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
