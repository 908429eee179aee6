// Runs one request's transaction in a single round trip (db/batch.ts): the context settings, the
// optional pre-request call and the main statements go out together before one Sync, so they form
// one implicit transaction. A failure anywhere rolls all of it back: nothing partial is ever kept.
// A request that must end in ROLLBACK (db-tx-end / Prefer: tx=rollback) is wrapped in an explicit
// BEGIN … ROLLBACK inside the same batch.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Statement } from '../sql/fragment.js';
import { BatchError, runBatch, type BatchResult, type BatchStatement } from './batch.js';
import { toPgError, type PgError } from './pg-error.js';

export interface RequestTransaction {
  readonly readOnly: boolean;
  /** GUCs set with set_config(name, value, true), in order (the role goes last). */
  readonly settings: ReadonlyArray<readonly [string, string]>;
  /** `SELECT "s"."pre_request"()` when db-pre-request is set. */
  readonly preRequest: Statement | null;
  /** Main statements; their results are returned in order. */
  readonly statements: ReadonlyArray<Statement>;
  readonly end: 'commit' | 'rollback';
  readonly prepared: boolean;
}

export type TxOutcome =
  | { readonly ok: true; readonly results: ReadonlyArray<BatchResult>; readonly ms: number }
  | { readonly ok: false; readonly kind: 'acquire'; readonly error: Error }
  | { readonly ok: false; readonly kind: 'database'; readonly error: PgError }
  | { readonly ok: false; readonly kind: 'connection'; readonly error: Error };

/**
 * `SELECT num_nulls(set_config($1, $2, true), set_config($3, $4, true), …)` for n settings: one
 * prepared statement per count (a handful per server). Plain text parameters, so no array literal
 * to build in Node or to parse in PostgreSQL; num_nulls folds the results into one integer so the
 * values (request.headers JSON and all) are not sent back. Arguments are evaluated left to right,
 * so the role (last) switches last.
 */
const settingsSql: string[] = [];
function settingsStatement(n: number): string {
  let text = settingsSql[n];
  if (!text) {
    const calls = Array.from({ length: n }, (_, i) => `pg_catalog.set_config($${2 * i + 1}, $${2 * i + 2}, true)`);
    text = `SELECT pg_catalog.num_nulls(${calls.join(', ')})`;
    settingsSql[n] = text;
  }
  return text;
}

const names = new Map<string, string>();
/** A stable prepared-statement name per SQL text, so each request shape is parsed once per connection. */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = 'dbrest_' + createHash('sha1').update(text).digest('hex').slice(0, 20);
    if (names.size > 10_000) names.clear();
    names.set(text, name);
  }
  return name;
}

const asBatch = (st: Statement, prepared: boolean): BatchStatement =>
  prepared ? { text: st.text, values: st.values, name: statementName(st.text) } : { text: st.text, values: st.values };

export async function runTransaction(pool: pg.Pool, tx: RequestTransaction): Promise<TxOutcome> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    return { ok: false, kind: 'acquire', error: e as Error };
  }
  const started = performance.now();
  const settings = tx.readOnly ? [['transaction_read_only', 'on'] as const, ...tx.settings] : tx.settings;
  const batch: BatchStatement[] = [];
  if (tx.end === 'rollback') batch.push({ text: 'BEGIN', values: [] });
  if (settings.length > 0) {
    batch.push(asBatch({ text: settingsStatement(settings.length), values: settings.flat() }, tx.prepared));
  }
  if (tx.preRequest) batch.push(asBatch(tx.preRequest, tx.prepared));
  const firstMain = batch.length;
  for (const st of tx.statements) batch.push(asBatch(st, tx.prepared));
  if (tx.end === 'rollback') batch.push({ text: 'ROLLBACK', values: [] });

  try {
    const results = await runBatch(client, batch);
    client.release();
    return { ok: true, results: results.slice(firstMain, firstMain + tx.statements.length), ms: performance.now() - started };
  } catch (e) {
    const cause = e instanceof BatchError ? e.cause : e;
    const pgError = toPgError(cause);
    if (pgError) {
      // A server error ends the batch's implicit transaction (rolled back); the connection is fine,
      // unless the batch had opened an explicit one (tx=rollback), which is left aborted. (The
      // transaction status is not reliable here: the error can arrive before its ReadyForQuery.
      // ROLLBACK outside a transaction is only a warning.)
      if (tx.end === 'rollback') await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      return { ok: false, kind: 'database', error: pgError };
    }
    client.release(cause instanceof Error ? cause : true);
    return { ok: false, kind: 'connection', error: cause as Error };
  }
}
