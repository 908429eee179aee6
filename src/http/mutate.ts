// POST / PATCH / PUT / DELETE on a table or view: negotiate → plan → build → execute (one round
// trip, one statement) → respond, as PostgREST's Response.actionResponse shapes writes:
//
//   POST    201 (200 when merge-duplicates inserted nothing); Location with return=headers-only;
//           Content-Range `*/*` or `*/N` (count=exact)
//   PATCH   200 with return=representation, else 204; Content-Range `0-(N-1)/*` (`*/*` when none)
//   PUT     201 inserted / 200 updated with return=representation, else 204; no Content-Range
//   DELETE  200 with return=representation, else 204; Content-Range `*/*` or `*/N`
//
// Every request is one transaction: a failed statement, max-affected, PUT's key check or a singular
// response that is not one row leave the database unchanged (sql/mutate.ts's postconditions).
import { performance } from 'node:perf_hooks';
import type { AuthResult } from '../auth/jwt.js';
import type { SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import type { BatchResult } from '../db/batch.js';
import type { TxOutcome } from '../db/transaction.js';
import { errors } from '../errors/catalog.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';
import { planMutate, type MutatePlan } from '../plan/mutate-plan.js';
import type { ApiRequest } from '../request/api-request.js';
import type { MediaRange, Preferences } from '../request/types.js';
import { parseResponseGucs } from '../response/gucs.js';
import { negotiateRead, type Negotiated } from '../response/negotiate.js';
import { readBodyFor, singularError } from '../response/read-body.js';
import { applyHeaders } from '../response/headers.js';
import type { ResponseSpec } from '../response/types.js';
import { compile } from '../sql/fragment.js';
import { buildMutateStatement, plainInsertStatement, postconditionFailure, responseGucsStatement } from '../sql/mutate.js';
import type { AppState } from './app.js';
import { explainStatement } from './explain.js';
import { plannedByShape } from './shape-memo.js';
import { apiErrorFromTx } from './db-errors.js';
import { runRequestTransaction, txPreferenceApplied } from './tx.js';
import { legacyTargetWarning } from '../plan/filters.js';

export async function runMutate(req: ApiRequest, relation: string, who: AuthResult, cache: SchemaCache, app: AppState): Promise<Result<ResponseSpec>> {
  const cfg = app.config;
  const t0 = performance.now();
  const media = negotiatedWrite(req.accept, cfg.dbPlanEnabled);
  // A plan is of the statement its `for=` media runs.
  const shaped = media.ok ? media.value.plan?.target.media ?? media.value.media : null;
  const singular = shaped === 'object' || shaped === 'object-stripped';
  // CSV, NDJSON and GeoJSON of the written rows are built in SQL like a read's.
  const text = shaped === 'csv' || shaped === 'ndjson' || shaped === 'geojson' ? shaped : undefined;
  if (media.ok && media.value.plan) {
    const plan = planMutate(req, relation, cache, cfg);
    if (!plan.ok) return plan;
    return explainStatement(req, who, app, buildMutateStatement(plan.value, { singular, text }), media.value.plan, media.value.contentType, false);
  }
  // POST and PATCH read the body with `columns=` (PUT ignores it, DELETE has none).
  const columns = req.method === 'POST' || req.method === 'PATCH' ? req.query.columns : null;
  const planned = plannedByShape(req, cache, cfg, false, columns, (r) => {
    const p = planMutate(r, relation, cache, cfg);
    if (!p.ok) return p;
    if (!media.ok) return media; // a plan error comes first, as PostgREST checks
    const plain = plainInsertStatement(p.value, { singular });
    const statement = compile(plain ?? buildMutateStatement(p.value, { singular, text, maxResponseBytes: cfg.serverMaxResponseBytes }));
    return ok({ plan: { mutate: p.value, plain: plain !== null }, statement });
  });
  if (!planned.ok) return planned;
  const { mutate: plan, plain } = planned.value.plan;
  if (!media.ok) return media;
  const t1 = performance.now();
  const outcome = await runRequestTransaction(req, who, app, plain ? [planned.value.statement, responseGucsStatement] : [planned.value.statement]);
  if (!outcome.ok) return err(writeError(outcome, who, app, plan.rowLimit));
  const t2 = performance.now();

  const res = respondMutate(req, plan, media.value, cfg, writtenOf(outcome.results, plain));
  return res.ok ? ok({ ...res.value, timings: { plan: t1 - t0, transaction: t2 - t1, response: performance.now() - t2 } }) : res;
}

/**
 * negotiateRead of a parsed Accept, kept per Accept object: parse-request.ts parses one header text
 * once (src/memo.ts), so a client's repeated Accept is negotiated once, not on every write (some
 * 3,400 instructions). Keyed weakly, so an Accept no longer memoized is dropped with it.
 */
const negotiated = [new WeakMap<ReadonlyArray<MediaRange>, Result<Negotiated>>(), new WeakMap<ReadonlyArray<MediaRange>, Result<Negotiated>>()] as const;
function negotiatedWrite(accept: ReadonlyArray<MediaRange>, planEnabled: boolean): Result<Negotiated> {
  const memo = negotiated[planEnabled ? 1 : 0];
  let media = memo.get(accept);
  if (media === undefined) {
    media = negotiateRead(accept, { planEnabled });
    memo.set(accept, media);
  }
  return media;
}

/** What the statement(s) answered: the CTE's one row, or a plain insert's command tag and GUC select. */
function writtenOf(results: ReadonlyArray<BatchResult>, plain: boolean): WriteResult {
  if (plain) {
    const gucs = results[1]!.rows[0] as [string | null, string | null];
    return { pageCount: results[0]!.rowCount ?? 0, body: null, location: null, inserted: null, gucHeaders: gucs[0], gucStatus: gucs[1] };
  }
  const row = results[0]!.rows[0] as [string, string | null, string | null, number | null, string | null, string | null, unknown];
  return { pageCount: Number(row[0]), body: row[1], location: row[2], inserted: row[3], gucHeaders: row[4], gucStatus: row[5] };
}

/** A failed transaction in the error model; a failed postcondition becomes its own error. */
export function writeError(
  outcome: Exclude<TxOutcome, { ok: true }>,
  who: AuthResult,
  app: Pick<AppState, 'connectionLost'>,
  rowLimit: number | null = null,
): ApiError {
  if (outcome.kind === 'database') {
    const failed = postconditionFailure(outcome.error);
    if (failed) {
      switch (failed.code) {
        case 'DBRST124':
          return errors.DBRST124('Query result exceeds max-affected preference constraint', {
            details: `The query affects ${failed.rows} rows`,
          });
        case 'DBRST115':
          return errors.DBRST115('Payload values do not match URL in primary key column(s)');
        case 'DBRST116':
          return singularError(failed.rows);
        case 'DBRST110':
          return offLimitsChanges(failed.rows, rowLimit);
      }
    }
  }
  return apiErrorFromTx(outcome, who.authenticated, app);
}

/**
 * PostgREST v12's PGRST110: a limited PATCH/DELETE whose order columns were not unique changed
 * more rows than `limit`.
 */
function offLimitsChanges(rows: number, limit: number | null): ApiError {
  return errors.DBRST110('The maximum number of rows allowed to change was surpassed', {
    details: `Results contain ${rows} rows changed but the maximum number allowed is ${limit ?? 'smaller'}`,
  });
}


/**
 * `Preference-Applied` as PostgREST writes it: the honoured preferences in its fixed order
 * (resolution, missing, return, params, count, tx, handling, max-affected), `, `-separated.
 */
export function preferenceApplied(
  prefs: Preferences,
  cfg: Pick<AppConfig, 'dbTxEnd'>,
  include: { resolution?: boolean; missing?: boolean; return?: boolean; maxAffected?: boolean },
): string | null {
  const out: string[] = [];
  if (include.resolution && prefs.resolution !== null) out.push(`resolution=${prefs.resolution}`);
  if (include.missing && prefs.missing !== null) out.push(`missing=${prefs.missing}`);
  if (include.return && prefs.return !== null) out.push(`return=${prefs.return}`);
  if (prefs.count !== null) out.push(`count=${prefs.count}`);
  if (txPreferenceApplied(cfg, prefs)) out.push(`tx=${prefs.tx}`);
  if (prefs.handling !== null) out.push(`handling=${prefs.handling}`);
  if (prefs.timezone !== null) out.push(`timezone=${prefs.timezone}`);
  if (include.maxAffected && prefs.handling === 'strict' && prefs.maxAffected !== null) out.push(`max-affected=${prefs.maxAffected}`);
  return out.length === 0 ? null : out.join(', ');
}

/** PostgREST's contentRangeH: `lower-upper/total`, `*` for the range when it is empty or total is 0. */
export function writeContentRange(lower: number, upper: number, total: number | null): string {
  const range = total !== 0 && lower <= upper ? `${lower}-${upper}` : '*';
  return `${range}/${total === null ? '*' : String(total)}`;
}

/** Set a header, replacing one of the same name in any case (GUC headers override ours). */
interface WriteResult {
  readonly pageCount: number;
  readonly body: string | null;
  readonly location: string | null;
  readonly inserted: number | null;
  readonly gucHeaders: string | null;
  readonly gucStatus: string | null;
}

function respondMutate(req: ApiRequest, plan: MutatePlan, media: Negotiated, cfg: AppConfig, r: WriteResult): Result<ResponseSpec> {
  const prefs = req.preferences;
  const shouldCount = prefs.count === 'exact' || prefs.count === 'estimated';
  const total = shouldCount ? r.pageCount : null;
  const representation = plan.representation === 'representation';
  const headers: Record<string, string> = {};
  let status: number;

  switch (plan.action) {
    case 'create': {
      const location = r.location === null ? null : locationHeader(plan.relation.name, r.location, plan.primaryKey);
      if (location !== null) headers['Location'] = location;
      headers['Content-Range'] = writeContentRange(1, 0, total);
      const applied = preferenceApplied(prefs, cfg, { resolution: plan.resolutionApplied, missing: true, return: true });
      if (applied) headers['Preference-Applied'] = applied;
      status = plan.countInserted && (r.inserted ?? 0) <= 0 ? 200 : 201;
      break;
    }
    case 'update': {
      headers['Content-Range'] = writeContentRange(0, r.pageCount - 1, total);
      const applied = preferenceApplied(prefs, cfg, { missing: true, return: true, maxAffected: true });
      if (applied) headers['Preference-Applied'] = applied;
      status = representation ? 200 : 204;
      break;
    }
    case 'upsert': {
      const applied = preferenceApplied(prefs, cfg, { return: true });
      if (applied) headers['Preference-Applied'] = applied;
      status = representation ? ((r.inserted ?? 0) > 0 ? 201 : 200) : 204;
      break;
    }
    case 'delete': {
      headers['Content-Range'] = writeContentRange(1, 0, total);
      const applied = preferenceApplied(prefs, cfg, { return: true, maxAffected: true });
      if (applied) headers['Preference-Applied'] = applied;
      status = representation ? 200 : 204;
      break;
    }
  }

  let body: string | null = null;
  if (representation) {
    const shaped = readBodyFor(media.media, r.body ?? '[]', r.pageCount);
    if (!shaped.ok) return shaped;
    body = shaped.value;
    headers['Content-Type'] = media.contentType;
    if (cfg.dbSchemas.length > 1) headers['Content-Profile'] = req.schema;
  }

  // PostgREST warns on any action whose read names an aliased embed by relation.
  const warning = legacyTargetWarning(plan.read?.legacyTargets);
  if (warning !== null) headers['Warning'] = warning;

  const gucs = parseResponseGucs(r.gucHeaders, r.gucStatus);
  if (!gucs.ok) return gucs;
  applyHeaders(headers, gucs.value.headers);
  return ok({ status: gucs.value.status ?? status, headers, body });
}

/**
 * `Location: /films?id=eq.5` from the inserted row's key (`is.null` for a NULL part), values
 * percent-encoded as PostgREST's renderSimpleQuery does (everything but unreserved characters).
 */
export function locationHeader(relation: string, rowJson: string, primaryKey: ReadonlyArray<string>): string | null {
  let row: Record<string, unknown>;
  try {
    row = JSON.parse(rowJson) as Record<string, unknown>;
  } catch {
    return null;
  }
  const parts: string[] = [];
  for (const k of primaryKey) {
    if (!(k in row)) continue;
    const v = row[k];
    const text = v === null || v === undefined ? 'is.null' : `eq.${typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
    parts.push(`${strictEncode(k)}=${strictEncode(text)}`);
  }
  if (parts.length === 0) return null;
  return `/${strictEncode(relation)}?${parts.join('&')}`;
}

const strictEncode = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
