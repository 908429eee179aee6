// Runs one request's transaction in a single round trip: BEGIN, the context settings, the optional
// pre-request call, the main statements and COMMIT (or ROLLBACK) are written to a pipelined
// connection without waiting for each other. A failure anywhere aborts the transaction, so the
// COMMIT that follows becomes a rollback on the server: nothing partial is ever kept.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Statement } from '../sql/fragment.js';
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
  | { readonly ok: true; readonly results: ReadonlyArray<pg.QueryArrayResult> }
  | { readonly ok: false; readonly kind: 'acquire'; readonly error: Error }
  | { readonly ok: false; readonly kind: 'database'; readonly error: PgError }
  | { readonly ok: false; readonly kind: 'connection'; readonly error: Error };

const SETTINGS_SQL = 'SELECT pg_catalog.set_config(k, v, true) FROM unnest($1::text[], $2::text[]) AS s(k, v)';

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

function queryConfig(st: Statement, prepared: boolean): pg.QueryArrayConfig {
  return {
    text: st.text,
    values: st.values as unknown[],
    rowMode: 'array',
    ...(prepared ? { name: statementName(st.text) } : {}),
  };
}

export async function runTransaction(pool: pg.Pool, tx: RequestTransaction): Promise<TxOutcome> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    return { ok: false, kind: 'acquire', error: e as Error };
  }
  const begin = tx.readOnly ? 'BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY' : 'BEGIN';
  const queued: Array<Promise<pg.QueryArrayResult>> = [];
  const send = (cfg: pg.QueryArrayConfig) => {
    const p = client.query(cfg);
    p.catch(() => undefined); // inspected below; keeps an early failure from being "unhandled"
    queued.push(p);
  };
  send({ text: begin, rowMode: 'array' });
  if (tx.settings.length > 0) {
    send(queryConfig({ text: SETTINGS_SQL, values: [tx.settings.map((s) => s[0]), tx.settings.map((s) => s[1])] }, tx.prepared));
  }
  const firstMain = queued.length + (tx.preRequest ? 1 : 0);
  if (tx.preRequest) send(queryConfig(tx.preRequest, tx.prepared));
  for (const st of tx.statements) send(queryConfig(st, tx.prepared));
  send({ text: tx.end === 'commit' ? 'COMMIT' : 'ROLLBACK', rowMode: 'array' });

  const settled = await Promise.allSettled(queued);
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    const pgError = toPgError(failure.reason);
    // A server error leaves the connection usable (the COMMIT above ended the failed transaction);
    // anything else (socket closed, protocol error) means the client must be discarded.
    if (pgError && client.getTransactionStatus?.() !== 'E') {
      client.release();
      return { ok: false, kind: 'database', error: pgError };
    }
    client.release(failure.reason instanceof Error ? failure.reason : true);
    return pgError ? { ok: false, kind: 'database', error: pgError } : { ok: false, kind: 'connection', error: failure.reason as Error };
  }
  client.release();
  const results = settled.slice(firstMain, firstMain + tx.statements.length).map((s) => (s as PromiseFulfilledResult<pg.QueryArrayResult>).value);
  return { ok: true, results };
}
