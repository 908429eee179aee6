// Streamed answers: a read or set-returning call whose result may be large runs as a cursor
// (db/stream-tx.ts) on a connection of its own and is written to the client a batch of rows at a
// time, in JSON (array), CSV or NDJSON, with the same bytes as the buffered body.
//
// The first Execute asks for server-stream-threshold rows (+1). When the statement ends within
// them, the answer is small after all and is shaped exactly as a buffered one (Content-Range and
// all; the caller does it). Otherwise the head is sent after the first batch, so what the request's
// SQL set in response.headers / response.status by then (pre-request, a function's body, which
// runs before its first row) applies; Content-Range is left out (the row count is not known yet).
//
// Backpressure: the next batch is asked for only while the response is not backed up, so a slow
// client holds at most one batch in the server (plus the socket's buffer), however long the
// answer. An error after the first byte destroys the socket without the final chunk (clients see
// an incomplete body) and is logged. A client that goes away gets its statement cancelled and the
// connection back (db/cursor.ts close).
import { Buffer } from 'node:buffer';
import type http from 'node:http';
import type { AuthResult } from '../auth/jwt.js';
import type { Cursor, FirstBatch, Row } from '../db/cursor.js';
import { openRequestCursor } from '../db/stream-tx.js';
import type { PgError } from '../db/pg-error.js';
import { toPgError } from '../db/pg-error.js';
import type { TxOutcome } from '../db/transaction.js';
import type { ApiRequest } from '../request/api-request.js';
import { recordLine } from '../response/csv.js';
import type { BodyStream } from '../response/types.js';
import type { Statement } from '../sql/fragment.js';
import { RESPONSE_GUCS_LIFTING_TEXT, RESPONSE_GUCS_TEXT, type StreamFormat } from '../sql/stream.js';
import { contextSettings, timeoutAfterFirstBatch } from '../sql/tx-settings.js';
import type { Logger } from '../observe/log.js';
import type { Pool } from '../db/pool.js';
import type { AppState } from './app.js';
import { onReadPool, replicaAllowed } from './read-route.js';
import { preRequestStatement } from './tx.js';
import { logQuery } from '../observe/query-log.js';
import { holdYoungGeneration } from './young-gen.js';
import { opsCounters } from '../observe/counters.js';

/** Bytes of rows asked for per Execute once streaming (the batch size adapts to the row size). */
const BATCH_BYTES = 64 * 1024;
const MIN_BATCH_ROWS = 64;
const MAX_BATCH_ROWS = 10_000;

const AFTER: Statement = { text: RESPONSE_GUCS_TEXT, values: [] };

/** How the rows of a format are joined: JSON as json_agg writes its elements. */
export interface Framing {
  readonly format: StreamFormat;
  /** json: between elements (", \n " for rows and arrays, ", " for other scalars). */
  readonly separator: string;
}

export function framing(format: StreamFormat, scalarType: string | null = null): Framing {
  // json_agg puts "\n " after the comma before an array or composite element (json.c).
  const separator = format === 'json' ? (scalarType === null || scalarType.endsWith('[]') ? ', \n ' : ', ') : '\n';
  return { format, separator };
}

/** The whole body of a result that ended within the first batch (equals the buffered body). */
function wholeBody(f: Framing, first: FirstBatch): string {
  return opening(f, first) + rowsText(f, first.rows, true) + closing(f);
}

function opening(f: Framing, first: FirstBatch): string {
  if (f.format === 'json') return '[';
  // PostgREST: the first row's keys (none without rows), then a newline.
  if (f.format === 'csv') return (first.rows.length > 0 ? first.fields.join(',') : '') + '\n';
  return '';
}

const closing = (f: Framing): string => (f.format === 'json' ? ']' : '');

function rowsText(f: Framing, rows: ReadonlyArray<Row>, isFirst: boolean): string {
  if (rows.length === 0) return '';
  switch (f.format) {
    case 'json': {
      let s = isFirst ? '' : f.separator;
      for (let i = 0; i < rows.length; i++) s += (i === 0 ? '' : f.separator) + rows[i]![0];
      return s;
    }
    case 'csv': {
      let s = isFirst ? '' : '\n';
      for (let i = 0; i < rows.length; i++) s += (i === 0 ? '' : '\n') + recordLine(rows[i]!);
      return s;
    }
    case 'ndjson': {
      let s = '';
      for (const r of rows) s += r[0] + '\n';
      return s;
    }
  }
}

export type StreamOutcome =
  | { readonly ok: true; readonly first: FirstBatch; readonly cursor: Cursor }
  | Extract<TxOutcome, { ok: false }>;

/** Open the request's cursor and read its first batch (one round trip). */
async function startStream(req: ApiRequest, who: AuthResult, app: AppState, main: Statement, firstRows: number, pool: Pool): Promise<StreamOutcome> {
  const cfg = app.config;
  const lifted = timeoutAfterFirstBatch(cfg, who.role, app.roleSettings());
  if (cfg.logQuery) logQuery(app.log, main);
  const opened = await openRequestCursor(pool, {
    readOnly: true,
    settings: contextSettings(req, who, cfg, app.roleSettings()),
    preRequest: preRequestStatement(cfg),
    prepared: cfg.dbPreparedStatements,
    main,
    after: lifted === null ? AFTER : { text: RESPONSE_GUCS_LIFTING_TEXT, values: [lifted] },
    firstRows,
  });
  if (!opened.ok) return opened;
  const cursor = opened.cursor;
  // The client may go away while the first rows are produced.
  const signal = req.signal;
  const onAbort = () => void cursor.close(true);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort(); // gone while it waited for a connection
  try {
    const first = await cursor.first;
    return { ok: true, first, cursor };
  } catch (e) {
    await cursor.close();
    const pg = toPgError(e);
    return pg ? { ok: false, kind: 'database', error: pg as PgError } : { ok: false, kind: 'connection', error: e as Error };
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

export type StreamedOutcome =
  | { readonly ok: true; readonly first: FirstBatch; readonly body: string; readonly stream: null }
  | { readonly ok: true; readonly first: FirstBatch; readonly body: null; readonly stream: BodyStream }
  | Extract<TxOutcome, { ok: false }>;

/**
 * Run `main` as the request's cursor: an answer that ended within the first batch comes back whole
 * (`body`, the buffered bytes), a longer one as `stream` (the rest, written after the head).
 */
export async function runStreamed(
  req: ApiRequest, who: AuthResult, app: AppState, main: Statement, f: Framing,
  /** May run on a read replica (http/read-route.ts): false for a VOLATILE function's call. */
  replica = true,
): Promise<StreamedOutcome> {
  const firstRows = app.config.serverStreamThreshold + 1;
  const started = await onReadPool(app, replica && replicaAllowed(req), (pool) => startStream(req, who, app, main, firstRows, pool));
  if (!started.ok) return started;
  const { first, cursor } = started;
  if (!first.done) return { ok: true, first, body: null, stream: rowStream(f, first, cursor, app.log, `${req.method} ${req.path}`) };
  // Its transaction ends (Sync) while the answer is sent.
  void cursor.close();
  return { ok: true, first, body: wholeBody(f, first), stream: null };
}

/** The rest of a streamed answer, written after the head. */
function rowStream(f: Framing, first: FirstBatch, cursor: Cursor, log: Logger, what: string): BodyStream {
  return {
    abort: () => void cursor.close(true),
    pipe: (res) => pipeRows(res, f, first, cursor, log, what),
  };
}

async function pipeRows(res: http.ServerResponse, f: Framing, first: FirstBatch, cursor: Cursor, log: Logger, what: string): Promise<void> {
  let gone = false;
  let wake: (() => void) | null = null;
  const onClose = () => {
    if (res.writableFinished) return;
    gone = true;
    void cursor.close(true);
    wake?.();
  };
  const onDrain = () => wake?.();
  res.on('close', onClose);
  res.on('drain', onDrain);
  const releaseYoungGeneration = holdYoungGeneration();
  opsCounters.streamedResponses++;
  // Rows per Execute: about BATCH_BYTES of them, judged by the first batch.
  const firstText = opening(f, first) + rowsText(f, first.rows, true);
  const perRow = first.rows.length > 0 ? firstText.length / first.rows.length : 100;
  const batchRows = Math.min(MAX_BATCH_ROWS, Math.max(MIN_BATCH_ROWS, Math.round(BATCH_BYTES / Math.max(1, perRow))));
  try {
    let text = firstText;
    let done = first.done;
    while (!gone) {
      // The database produces the next batch while this one is written.
      const next = done ? null : cursor.next(batchRows);
      next?.catch(() => undefined);
      opsCounters.streamedBytes += Buffer.byteLength(text);
      const flowing = res.write(text);
      if (next === null) break;
      if (!flowing && !gone) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      if (gone) {
        await next.catch(() => undefined);
        break;
      }
      const batch = await next;
      text = rowsText(f, batch.rows, false);
      done = batch.done;
    }
    if (!gone) {
      const end = closing(f);
      opsCounters.streamedBytes += Buffer.byteLength(end);
      res.end(end);
      await cursor.close();
    }
  } catch (e) {
    // After the head: the only way to tell the client is to end the response abnormally (a
    // client that went away only gets its statement cancelled: nothing to log).
    if (!gone) log.error(`${what}: streamed response failed after the first byte: ${(e as Error).message}`);
    res.destroy();
    await cursor.close(true);
  } finally {
    releaseYoungGeneration();
    res.off('close', onClose);
    res.off('drain', onDrain);
  }
}
