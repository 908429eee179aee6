// GET / HEAD / POST /rpc/f: plan (choose the overload, bind the arguments) → executeCall.
//
// executeCall is the one execution path for a function call: negotiate → build → execute (one round
// trip, READ ONLY for GET/HEAD and stable/immutable functions) → respond. Route mounts (engine spec
// §5) plan their call with plan/call-plan.ts's planBoundCall and hand it here unchanged, so they get
// the same role switching, GUCs, pre-request, response.status/headers, errors and transaction rules.
//
// Responses, as PostgREST's: 200 (206 with a count when the page is partial, 416 past the end)
// with Content-Range; a void function → 204 without a body.
import type { AuthResult } from '../auth/jwt.js';
import type { SchemaCache } from '../catalog/types.js';
import { err, ok, type Result } from '../errors/types.js';
import { planCall, type PlannedCall } from '../plan/call-plan.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Preferences } from '../request/types.js';
import { parseResponseGucs } from '../response/gucs.js';
import { negotiateRead, type Negotiated } from '../response/negotiate.js';
import { contentRange, rangeStatus } from '../response/range.js';
import { readBodyFor, stripNulls } from '../response/read-body.js';
import { applyHeaders } from '../response/headers.js';
import type { ResponseSpec } from '../response/types.js';
import { buildCallStatement, type CallBodyShape } from '../sql/call.js';
import { compile, type Statement } from '../sql/fragment.js';
import type { AppState } from './app.js';
import { explainStatement } from './explain.js';
import { preferenceApplied, writeError } from './mutate.js';
import { plannedByShape } from './shape-memo.js';
import { runRequestTransaction } from './tx.js';

export async function runCall(req: ApiRequest, routine: string, who: AuthResult, cache: SchemaCache, app: AppState): Promise<Result<ResponseSpec>> {
  const media = negotiateRead(req.accept, { planEnabled: app.config.dbPlanEnabled });
  if (req.method !== 'POST' || !media.ok || media.value.plan) {
    const call = planCall(req, routine, cache, app.config);
    if (!call.ok) return call;
    return executeCall(call.value, req, who, cache, app);
  }
  // A POSTed JSON body: planned and compiled once per shape (http/shape-memo.ts).
  const shape = callShape(media.value.media, req.preferences);
  const planned = plannedByShape(req, cache, app.config, true, req.query.columns, (r) => {
    const call = planCall(r, routine, cache, app.config);
    if (!call.ok) return call;
    return ok({ plan: call.value, statement: compile(buildCallStatement(call.value, shape)) });
  });
  if (!planned.ok) return planned;
  return executeCall(planned.value.plan, req, who, cache, app, { statement: planned.value.statement, media: media.value });
}

/** What the call statement returns for a negotiated media type and the count preference. */
function callShape(m: Negotiated['media'], prefs: Pick<Preferences, 'count'>): { body: CallBodyShape; count: boolean } {
  const body: CallBodyShape = m === 'object' || m === 'object-stripped' ? 'single' : m === 'csv' ? 'rows' : 'json';
  return { body, count: prefs.count === 'exact' || prefs.count === 'estimated' };
}

/**
 * Run a planned call and shape its response. `req` supplies the request context (method, path,
 * headers, cookies → GUCs; Accept; Prefer), whatever bound the arguments.
 */
export async function executeCall(
  call: PlannedCall,
  req: ApiRequest,
  who: AuthResult,
  _cache: SchemaCache,
  app: AppState,
  /** The call's statement and negotiated media when the caller already has them (http/shape-memo.ts). */
  compiled: { readonly statement: Statement; readonly media: Negotiated } | null = null,
): Promise<Result<ResponseSpec>> {
  const cfg = app.config;
  const t0 = performance.now();
  const media = compiled ? ok(compiled.media) : negotiateRead(req.accept, { planEnabled: cfg.dbPlanEnabled });
  if (!media.ok) return media;
  const m = media.value.media;
  const shape = callShape(m, req.preferences);

  let statement = compiled?.statement;
  if (!statement) {
    const main = buildCallStatement(call, shape);
    if (media.value.plan) return explainStatement(req, who, app, main, media.value.plan, media.value.contentType, call.readOnly);
    statement = compile(main);
  }
  const t1 = performance.now();
  const outcome = await runRequestTransaction(req, who, app, [statement], call.readOnly);
  if (!outcome.ok) return err(writeError(outcome, who, app));
  const t2 = performance.now();
  const timings = (): Record<string, number> => ({ plan: t1 - t0, transaction: t2 - t1, response: performance.now() - t2 });

  const row = outcome.results[0]!.rows[0] as [string | null, string, string | null, string | null, string | null, unknown];
  const total = row[0] === null ? null : Number(row[0]);
  const pageCount = Number(row[1]);
  const offset = call.read.range.offset;

  const headers: Record<string, string> = { 'Content-Range': contentRange(offset, pageCount, total) };
  const applied = preferenceApplied(req.preferences, cfg, { maxAffected: true });
  if (applied) headers['Preference-Applied'] = applied;

  const gucs = parseResponseGucs(row[3], row[4]);
  if (!gucs.ok) return gucs;
  const applyGucs = (status: number, body: string | null): Result<ResponseSpec> => {
    applyHeaders(headers, gucs.value.headers);
    return ok({ status: gucs.value.status ?? status, headers, body, timings: timings() });
  };

  if (call.result.kind === 'void') return applyGucs(204, null);

  const range = rangeStatus(offset, pageCount, total);
  if (range.status === 416) return err({ ...range.error, headers });

  let body: string;
  if (shape.body === 'single') {
    // The statement already picked the one row (DBRST116 otherwise); strip nulls if asked.
    const text = row[2] ?? 'null';
    body = m === 'object-stripped' ? JSON.stringify(stripNulls(JSON.parse(text))) : text;
  } else {
    const shaped = readBodyFor(m, row[2] ?? '[]', pageCount);
    if (!shaped.ok) return shaped;
    body = shaped.value;
  }
  headers['Content-Type'] = media.value.contentType;
  if (cfg.dbSchemas.length > 1) headers['Content-Profile'] = req.schema;
  return applyGucs(range.status, call.headersOnly ? null : body);
}

