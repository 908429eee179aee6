// Transaction rules shared by every action: how it ends (db-tx-end × Prefer: tx), the
// db-pre-request call, and running a request's statements with its context in one round trip.
import { performance } from 'node:perf_hooks';
import type { AuthResult } from '../auth/jwt.js';
import type { AppConfig } from '../config/types.js';
import { runTransaction, type TxOutcome } from '../db/transaction.js';
import { noteAcquire, tracingOn } from '../observe/spans.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Preferences } from '../request/types.js';
import { compile, ident, qualified, sql, type Statement } from '../sql/fragment.js';
import { contextSettings } from '../sql/tx-settings.js';
import { logQuery } from '../observe/query-log.js';
import type { AppState } from './app.js';
import { onReadPool, replicaAllowed } from './read-route.js';

export function txEnd(cfg: Pick<AppConfig, 'dbTxEnd'>, prefs: Pick<Preferences, 'tx'>): 'commit' | 'rollback' {
  switch (cfg.dbTxEnd) {
    case 'commit':
      return 'commit';
    case 'rollback':
      return 'rollback';
    case 'commit-allow-override':
      return prefs.tx ?? 'commit';
    case 'rollback-allow-override':
      return prefs.tx ?? 'rollback';
  }
}

/** True when the client's `Prefer: tx=` was honoured (for Preference-Applied). */
export function txPreferenceApplied(cfg: Pick<AppConfig, 'dbTxEnd'>, prefs: Pick<Preferences, 'tx'>): boolean {
  return prefs.tx !== null && cfg.dbTxEnd.endsWith('allow-override');
}

const preRequestCache = new Map<string, Statement>();
export function preRequestStatement(cfg: Pick<AppConfig, 'dbPreRequest'>): Statement | null {
  const name = cfg.dbPreRequest;
  if (!name) return null;
  let st = preRequestCache.get(name);
  if (!st) {
    // An unqualified name is found through the request's search_path (its schema, then
    // db-extra-search-path), as PostgREST does; a qualified one is called as written.
    const dot = name.indexOf('.');
    st = compile(dot === -1 ? sql`SELECT ${ident(name)}()` : sql`SELECT ${qualified({ schema: name.slice(0, dot), name: name.slice(dot + 1) })}()`);
    preRequestCache.set(name, st);
  }
  return st;
}

export interface RunOptions {
  readonly readOnly?: boolean;
  /** Default: db-prepared-statements. */
  readonly prepared?: boolean;
  /** A read of tables and views: it may run twice (db/transaction.ts, hedging). */
  readonly hedge?: boolean;
}

/**
 * A request's transaction: its context settings, pre-request, statements, ended as configured.
 * Not `async`: it hands back runTransaction's promise as is (an async wrapper costs a promise and
 * microtask turns on every request).
 */
export function runRequestTransaction(
  req: ApiRequest,
  who: AuthResult,
  app: AppState,
  statements: ReadonlyArray<Statement>,
  { readOnly = false, prepared = app.config.dbPreparedStatements, hedge = false }: RunOptions = {},
): Promise<TxOutcome> {
  const cfg = app.config;
  if (cfg.logQuery) for (const st of statements) logQuery(app.log, st);
  const end = txEnd(cfg, req.preferences);
  // PostgREST checks deferred constraints before a rollback, so `tx=rollback` reports what a commit would.
  const all = end === 'rollback' && !readOnly ? [...statements, { text: 'SET CONSTRAINTS ALL IMMEDIATE', values: [] }] : statements;
  const tx = {
    readOnly,
    settings: contextSettings(req, who, cfg, app.roleSettings()),
    preRequest: preRequestStatement(cfg),
    statements: all,
    end,
    prepared,
    hedge,
    signal: req.signal,
  };
  // A read that may run twice may run on a read replica, and again on the primary if that fails
  // (http/read-route.ts).
  // The wait for a connection is timed for the `acquire` span only: nothing when no SDK is registered.
  const asked = tracingOn() ? performance.now() : -1;
  const running = app.replicas && readOnly && hedge && replicaAllowed(req) ? onReadPool(app, true, (pool) => runTransaction(pool, tx)) : runTransaction(app.pool, tx);
  if (asked < 0) return running;
  return running.then((o) => {
    if (o.ok) noteAcquire(req, o.leasedAt - asked);
    return o;
  });
}
