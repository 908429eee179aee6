// GET/HEAD on a table or view: prepare (plan → negotiate → build, http/read-prep.ts) → execute (one
// round trip) → respond. A read that may be large is run limited first and streamed when it is
// large after all (http/stream-memo.ts).
import { performance } from 'node:perf_hooks';
import type { AuthResult } from '../auth/jwt.js';
import type { SchemaCache } from '../catalog/types.js';
import { err, ok, type Result } from '../errors/types.js';
import type { ApiRequest } from '../request/api-request.js';
import { readBodyFor } from '../response/read-body.js';
import { parseResponseGucs } from '../response/gucs.js';
import { contentRange, rangeStatus } from '../response/range.js';
import { applyHeaders } from '../response/headers.js';
import { preferenceApplied } from './mutate.js';
import type { ResponseSpec } from '../response/types.js';
import { estimatedTotal } from '../sql/count.js';
import type { AppState } from './app.js';
import { apiErrorFromTx } from './db-errors.js';
import { explainStatement } from './explain.js';
import { runRequestTransaction } from './tx.js';
import { prepareRead } from './read-prep.js';
import type { BodyStream } from '../response/types.js';
import { framing, runStreamed } from './stream.js';
import { answered, streamDirectly } from './stream-memo.js';
import { responseCapFailure } from '../sql/response-cap.js';

export async function runRead(req: ApiRequest, relation: string, who: AuthResult, cache: SchemaCache, app: AppState): Promise<Result<ResponseSpec>> {
  const cfg = app.config;
  const t0 = performance.now();
  const count = req.preferences.count;
  const prep = prepareRead(req, relation, cache, cfg);
  if (!prep.ok) return prep;
  const { plan, media, mediaBody, format } = prep.value;
  if (media.plan) return explainStatement(req, who, app, prep.value.main, media.plan, media.contentType, true);

  const t1 = performance.now();
  let result: ReadResult | null = null;
  const shape = prep.value;
  if (format === null || !streamDirectly(shape.shape)) {
    // Buffered; a read that may be large is first run limited to server-stream-threshold + 1 rows
    // (http/stream-memo.ts), which answers it when it turns out small.
    const probing = format !== null;
    const outcome = await runRequestTransaction(req, who, app, probing ? [shape.probeStatement!] : shape.statements, { readOnly: true, hedge: true });
    if (outcome.ok) {
      result = bufferedResult(outcome.results, count, cfg.dbMaxRows);
      if (probing && result.pageCount! > cfg.serverStreamThreshold) result = null;
    } else if (!probing || outcome.kind !== 'database' || responseCapFailure(outcome.error) === null) {
      return err(apiErrorFromTx(outcome, who.authenticated, app));
    }
    // Else over the threshold or server-max-response-bytes: streamed (not bounded by the cap).
  }
  if (result === null) {
    // Run again, as a cursor (http/stream.ts), in a transaction of its own: the answer is all of
    // that transaction's snapshot (and its response GUCs); the limited run only chose the way. A
    // small answer (rows deleted since) comes back whole, as if buffered.
    const s = await runStreamed(req, who, app, shape.streamStatement!, framing(format!));
    if (!s.ok) return err(apiErrorFromTx(s, who.authenticated, app));
    answered(shape.shape, s.stream !== null);
    const [headersGuc, statusGuc] = s.first.after;
    const gucs = { headersGuc: headersGuc ?? null, statusGuc: statusGuc ?? null };
    result = s.stream === null
      ? { total: null, pageCount: s.first.rows.length, body: s.body, ...gucs }
      : { total: null, pageCount: null, body: null, ...gucs, stream: s.stream };
  } else if (format !== null) answered(shape.shape, false);

  const t2 = performance.now();
  const gucs = parseResponseGucs(result.headersGuc, result.statusGuc);
  if (!gucs.ok) {
    result.stream?.abort();
    return gucs;
  }

  const headers: Record<string, string | string[]> = {};
  let status = 200;
  let body: Result<string | Buffer>;
  if (result.stream === undefined) {
    const { total, pageCount } = result;
    const offset = plan.range.offset;
    const range = rangeStatus(offset, pageCount!, total);
    const contentRangeValue = contentRange(offset, pageCount!, total);
    if (range.status === 416) return err({ ...range.error, headers: { 'Content-Range': contentRangeValue } });
    headers['Content-Range'] = contentRangeValue;
    status = range.status;
    // A handler's or raw body (CSV, NDJSON too) is sent as SQL built it (no row: empty); the
    // built-ins are shaped here. A body sent as built comes as the bytes PostgreSQL sent (a
    // Buffer: http/read-prep.ts's rawColumn), handed to the response undecoded.
    body = mediaBody !== undefined || format !== null ? ok(result.body ?? '') : readBodyFor(media.media, result.body ?? '[]', pageCount!);
    if (!body.ok) return body;
  } else body = ok('');
  headers['Content-Type'] = media.contentType;
  if (cfg.dbSchemas.length > 1) headers['Content-Profile'] = req.schema;
  // Left out when it would be longer than clients accept in a header (a long `in.(…)` list in a
  // URL of up to 64 KiB): http/read-prep.ts.
  if (prep.value.location !== null) headers['Content-Location'] = prep.value.location;
  // PostgREST's read answer echoes the count, tx, handling and timezone preferences it honoured.
  const applied = preferenceApplied(req.preferences, cfg, {});
  if (applied !== null) headers['Preference-Applied'] = applied;
  if (prep.value.warning !== null) headers['Warning'] = prep.value.warning;
  applyHeaders(headers, gucs.value.headers);
  const timings = { plan: t1 - t0, transaction: t2 - t1, response: performance.now() - t2 };
  const finalStatus = gucs.value.status ?? status;
  if (result.stream) return ok({ status: finalStatus, headers, body: null, stream: result.stream, timings });
  return ok({ status: finalStatus, headers, body: req.method === 'HEAD' ? null : body.value, timings });
}

/** What the statement (or the cursor's first batch) gave. `stream`: the rest is streamed. */
interface ReadResult {
  readonly total: number | null;
  /** null when streamed (not known before the end). */
  readonly pageCount: number | null;
  readonly body: string | Buffer | null;
  readonly headersGuc: string | null;
  readonly statusGuc: string | null;
  readonly stream?: BodyStream;
}

/** The buffered statement's one row (and the planned count's EXPLAIN) as a ReadResult. */
function bufferedResult(results: ReadonlyArray<{ rows: unknown[][] }>, count: unknown, maxRows: number | null): ReadResult {
  const row = results[0]!.rows[0] as [string | null, string | null, string | Buffer | null, string | null, string | null];
  let total: number | null = row[0] === null ? null : Number(row[0]);
  if (count === 'planned') total = plannedRows(results[1]!.rows);
  else if (count === 'estimated') total = estimatedTotal(total, plannedRows(results[1]!.rows), maxRows);
  return { total, pageCount: Number(row[1] ?? 0), body: row[2], headersGuc: row[3], statusGuc: row[4] };
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
