// GET / HEAD / POST /rpc/f: plan (choose the overload, bind the arguments) → executeCall.
//
// executeCall is the one execution path for a function call: negotiate → build → execute (one round
// trip, READ ONLY for GET/HEAD and stable/immutable functions) → respond. Route mounts (engine spec
// §5) plan their call with plan/call-plan.ts's planBoundCall and hand it here unchanged, so they get
// the same role switching, GUCs, pre-request, response.status/headers, errors and transaction rules.
// Negotiation happens inside (http/media.ts + response/negotiate.ts): a function returning a
// media-type domain answers its value raw under that type, one returning a relation's rows offers
// that relation's aggregates, every call offers the anyelement aggregates and the built-ins.
//
// Responses, as PostgREST's: 200 (206 with a count when the page is partial, 416 past the end)
// with Content-Range; a void function → 204 without a body.
import { performance } from 'node:perf_hooks';
import type { AuthResult } from '../auth/jwt.js';
import type { SchemaCache } from '../catalog/types.js';
import { err, ok, type Result } from '../errors/types.js';
import { planCall, type PlannedCall } from '../plan/call-plan.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Preferences } from '../request/types.js';
import { parseResponseGucs } from '../response/gucs.js';
import { negotiateMedia, type Negotiated } from '../response/negotiate.js';
import { contentRange, rangeStatus } from '../response/range.js';
import { readBodyFor, stripNulls } from '../response/read-body.js';
import { applyHeaders } from '../response/headers.js';
import type { ResponseSpec } from '../response/types.js';
import { buildCallStatement, type CallBodyShape, type CallStatementOptions } from '../sql/call.js';
import { compile, type Statement } from '../sql/fragment.js';
import type { AppState } from './app.js';
import { explainStatement } from './explain.js';
import { callOffers, mediaBodyFor } from './media.js';
import { preferenceApplied, writeError } from './mutate.js';
import { plannedByShape } from './shape-memo.js';
import { runRequestTransaction, txEnd } from './tx.js';
import type { BodyStream } from '../response/types.js';
import { buildCallStreamStatement } from '../sql/stream.js';
import { framing, runStreamed } from './stream.js';
import { streamFormat } from './stream-policy.js';
import { legacyTargetWarning } from '../plan/filters.js';
import { responseCapFailure } from '../sql/response-cap.js';
import { limitedTo } from './read-prep.js';
import { callAnswered, streamCallDirectly } from './stream-memo.js';

export async function runCall(req: ApiRequest, routine: string, who: AuthResult, cache: SchemaCache, app: AppState): Promise<Result<ResponseSpec>> {
  if (req.method !== 'POST') {
    const call = planCall(req, routine, cache, app.config);
    if (!call.ok) return call;
    return executeCall(call.value, req, who, cache, app);
  }
  // A POSTed JSON body: planned, negotiated and compiled once per shape (http/shape-memo.ts; the
  // Accept header is part of the shape).
  const planned = plannedByShape(req, cache, app.config, true, req.query.columns, (r) => {
    const call = planCall(r, routine, cache, app.config);
    if (!call.ok) return call;
    const media = negotiateCall(call.value, r, cache, app);
    if (!media.ok) return media;
    return ok({ plan: { call: call.value, media: media.value }, statement: compile(buildCallStatement(call.value, callStatementOptions(call.value, media.value, r, cache, app.config.serverMaxResponseBytes))) });
  });
  if (!planned.ok) return planned;
  return executeCall(planned.value.plan.call, req, who, cache, app, { statement: planned.value.statement, media: planned.value.plan.media });
}

/** What the call statement returns for a negotiated media type and the count preference. */
function callShape(m: Negotiated['media'], prefs: Pick<Preferences, 'count'>): { body: CallBodyShape; count: boolean } {
  const body: CallBodyShape = m === 'object' || m === 'object-stripped' ? 'single' : m === 'csv' ? 'rows' : 'json';
  return { body, count: prefs.count === 'exact' || prefs.count === 'estimated' };
}

/** The call's representation: Accept against its media handlers (http/media.ts). */
function negotiateCall(call: PlannedCall, req: ApiRequest, cache: SchemaCache, app: AppState): Result<Negotiated> {
  return negotiateMedia(req.accept, callOffers(cache, call), { planEnabled: app.config.dbPlanEnabled, acceptHeader: req.headers['accept'] });
}

function callStatementOptions(call: PlannedCall, media: Negotiated, req: ApiRequest, cache: SchemaCache, maxResponseBytes: number): CallStatementOptions {
  const shape = { ...callShape(media.media, req.preferences), maxResponseBytes };
  const body = mediaBodyFor(cache, media, call.read, call, call.headersOnly);
  return body === undefined ? shape : { ...shape, media: body };
}

/** The call statement's row: total_count, page_count, body, response headers, response status, postcondition. */
type CallRow = [string | null, string, string | Buffer | null, string | null, string | null, unknown];

/** A call's shape for http/stream-memo.ts: what its SQL depends on besides a POSTed body. */
function callShapeKey(req: ApiRequest, call: PlannedCall): string {
  const h = req.headers;
  return `${req.method}\n${call.routine.schema}\n${call.routine.signature}\n${req.search}\n${h['accept'] ?? ''}\n${h['prefer'] ?? ''}\n${h['range'] ?? ''}\n${h['range-unit'] ?? ''}`;
}

/** The call with its read limited to `limit` rows (http/read-prep.ts limitedTo). */
const limitedCall = (call: PlannedCall, limit: number): PlannedCall => ({ ...call, read: limitedTo(call.read, limit) });

/** The format a call's answer is streamed in, or null (http/stream-policy.ts). */
function streamableCall(call: PlannedCall, m: Negotiated['media'], req: ApiRequest, cfg: AppState['config']) {
  if (call.result.kind === 'void' || !call.result.setOf || call.maxAffected !== null) return null;
  return streamFormat(
    { media: m, headersOnly: call.headersOnly, count: req.preferences.count, readOnly: call.readOnly, txEnd: txEnd(cfg, req.preferences), plan: call.read, relation: null },
    cfg,
  );
}

/**
 * Run a planned call and shape its response. `req` supplies the request context (method, path,
 * headers, cookies → GUCs; Accept; Prefer), whatever bound the arguments.
 */
export async function executeCall(
  call: PlannedCall,
  req: ApiRequest,
  who: AuthResult,
  cache: SchemaCache,
  app: AppState,
  /** The call's statement and negotiated media when the caller already has them (http/shape-memo.ts). */
  compiled: { readonly statement: Statement; readonly media: Negotiated } | null = null,
): Promise<Result<ResponseSpec>> {
  const cfg = app.config;
  const t0 = performance.now();
  const media = compiled ? ok(compiled.media) : negotiateCall(call, req, cache, app);
  if (!media.ok) return media;
  const m = media.value.media;
  if (media.value.plan) {
    // The statement the planned media (`for=`) runs, as a call answering it would build it.
    // Explained without the response cap's wrapper: the plan shows the statement's own top node, as PostgREST's.
    const main = buildCallStatement(call, callStatementOptions(call, media.value.plan.target, req, cache, 0));
    return explainStatement(req, who, app, main, media.value.plan, media.value.contentType, call.readOnly);
  }
  const opts = callStatementOptions(call, media.value, req, cache, cfg.serverMaxResponseBytes);
  const format = streamableCall(call, m, req, cfg);
  const t1 = performance.now();
  let row: CallRow | null = null;
  let streamed: BodyStream | null = null;
  // A STABLE or IMMUTABLE function that may answer large is first run buffered, limited to
  // server-stream-threshold + 1 rows, as reads are (http/stream-memo.ts): a small answer is that one
  // pipelined round trip. A VOLATILE one is never run twice (its side effects would be done twice).
  const shapeKey = format !== null && call.routine.volatility !== 'volatile' ? callShapeKey(req, call) : null;
  let buffered = format === null;
  if (shapeKey !== null && !streamCallDirectly(shapeKey)) {
    const probe = compile(buildCallStatement(limitedCall(call, cfg.serverStreamThreshold + 1), opts));
    const outcome = await runRequestTransaction(req, who, app, [probe], { readOnly: call.readOnly, hedge: call.readOnly });
    if (outcome.ok) {
      const r = outcome.results[0]!.rows[0] as CallRow;
      if (Number(r[1]) <= cfg.serverStreamThreshold) {
        row = r;
        buffered = true;
        callAnswered(shapeKey, false);
      }
    } else if (outcome.kind !== 'database' || responseCapFailure(outcome.error) === null) {
      return err(writeError(outcome, who, app));
    }
    // Else over the threshold or server-max-response-bytes: streamed (not bounded by the cap).
  }
  if (row !== null) {
    // Answered by the limited run.
  } else if (format !== null) {
    // May be large: a cursor (http/stream.ts). A small answer comes back whole, as if buffered.
    const r = call.routine.returns;
    // A VOLATILE function's call stays on the primary (http/read-route.ts).
    const s = await runStreamed(req, who, app, compile(buildCallStreamStatement(call, format)), framing(format, r.kind === 'scalar' ? r.type : null), call.routine.volatility !== 'volatile');
    if (!s.ok) return err(writeError(s, who, app));
    streamed = s.stream;
    if (shapeKey !== null) callAnswered(shapeKey, s.stream !== null);
    row = [null, String(s.first.rows.length), s.body, s.first.after[0] ?? null, s.first.after[1] ?? null, null];
  } else {
    const statement = compiled?.statement ?? compile(buildCallStatement(call, opts));
    // A read-only call of a function declared STABLE or IMMUTABLE may run twice, so it is hedged
    // as table reads are (db/transaction.ts); a VOLATILE one may act outside the database.
    const hedge = call.readOnly && call.routine.volatility !== 'volatile';
    const outcome = await runRequestTransaction(req, who, app, [statement], { readOnly: call.readOnly, hedge });
    if (!outcome.ok) return err(writeError(outcome, who, app));
    row = outcome.results[0]!.rows[0] as CallRow;
  }
  if (row === null) throw new Error('unreachable: a call ran no statement');
  const t2 = performance.now();
  const timings = (): Record<string, number> => ({ plan: t1 - t0, transaction: t2 - t1, response: performance.now() - t2 });

  const total = row[0] === null ? null : Number(row[0]);
  const pageCount = Number(row[1]);
  const offset = call.read.range.offset;
  // PostgREST warns on any action whose read names an aliased embed by relation.
  const warning = legacyTargetWarning(call.read.legacyTargets);
  if (streamed !== null) {
    // The rest is streamed: no Content-Range (the row count is not known before the end).
    const gucs = parseResponseGucs(row[3], row[4]);
    if (!gucs.ok) {
      streamed.abort();
      return gucs;
    }
    const headers: Record<string, string> = { 'Content-Type': media.value.contentType };
    const applied = preferenceApplied(req.preferences, cfg, { maxAffected: true });
    if (applied) headers['Preference-Applied'] = applied;
    if (warning !== null) headers['Warning'] = warning;
    if (cfg.dbSchemas.length > 1) headers['Content-Profile'] = req.schema;
    applyHeaders(headers, gucs.value.headers);
    return ok({ status: gucs.value.status ?? 200, headers, body: null, stream: streamed, timings: timings() });
  }

  const headers: Record<string, string> = { 'Content-Range': contentRange(offset, pageCount, total) };
  const applied = preferenceApplied(req.preferences, cfg, { maxAffected: true });
  if (applied) headers['Preference-Applied'] = applied;
  if (warning !== null) headers['Warning'] = warning;

  const gucs = parseResponseGucs(row[3], row[4]);
  if (!gucs.ok) return gucs;
  const applyGucs = (status: number, body: string | Buffer | null): Result<ResponseSpec> => {
    applyHeaders(headers, gucs.value.headers);
    return ok({ status: gucs.value.status ?? status, headers, body, timings: timings() });
  };

  if (call.result.kind === 'void') return applyGucs(204, null);

  const range = rangeStatus(offset, pageCount, total);
  if (range.status === 416) return err({ ...range.error, headers });

  let body: string | Buffer;
  if (opts.media !== undefined || !buffered) {
    // A handler's or raw body, as SQL built it (no value: empty).
    body = row[2] ?? '';
  } else if (opts.body === 'single') {
    // The statement already picked the one row (DBRST116 otherwise); strip nulls if asked.
    const text = (row[2] as string | null) ?? 'null';
    body = m === 'object-stripped' ? JSON.stringify(stripNulls(JSON.parse(text))) : text;
  } else {
    const shaped = readBodyFor(m, (row[2] as string | null) ?? '[]', pageCount);
    if (!shaped.ok) return shaped;
    body = shaped.value;
  }
  headers['Content-Type'] = media.value.contentType;
  if (cfg.dbSchemas.length > 1) headers['Content-Profile'] = req.schema;
  return applyGucs(range.status, call.headersOnly ? null : body);
}

