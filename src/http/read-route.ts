// Which server runs a request's transaction when read replicas are configured (db-read-uris):
//
//   - a read-only transaction that may run twice (a read of tables and views, a call of a STABLE or
//     IMMUTABLE function: the `hedge` mark of http/tx.ts) runs on a healthy replica, round-robin;
//   - everything else — writes, VOLATILE calls, EXPLAIN — runs on the primary (db-uri);
//   - so does a read whose client sent `Prefer: tx=commit` (it asks for the write side: read your
//     own writes), and every read while no replica is healthy.
//
// A replica that cannot be reached by a request (refused, lost, shutting down) is taken out of the
// rotation at once (db/replicas.ts) and the request runs again on the primary: it only read, so
// running it twice is safe; the client sees the primary's answer, not a 503. A statement a standby
// cancels because of a recovery conflict is also run again on the primary, the replica kept.
import type { Pool } from '../db/pool.js';
import type { PgError } from '../db/pg-error.js';
import type { ApiRequest } from '../request/api-request.js';
import type { AppState } from './app.js';

/** The failure kinds of a transaction or a cursor's start (db/transaction.ts, http/stream.ts). */
type Outcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly kind: 'acquire' | 'connection'; readonly error: Error }
  | { readonly ok: false; readonly kind: 'database'; readonly error: PgError };

/** Waiting for a busy replica pool is load, not a fault: answered as the primary's would be (504). */
const ACQUIRE_TIMEOUT = /timeout exceeded/i;
/** The server ends the session or cannot take one: a connection failure, as db-errors.ts counts them. */
const SESSION_GONE = /^(08|57P0[123])/;

/** What to do with a replica's failed outcome: mark it down and retry, only retry, or answer it. */
export function replicaFailure(out: Outcome): 'down' | 'retry' | null {
  if (out.ok) return null;
  switch (out.kind) {
    case 'acquire':
      return ACQUIRE_TIMEOUT.test(out.error.message) ? null : 'down';
    case 'connection':
      return 'down';
    case 'database':
      if (SESSION_GONE.test(out.error.code)) return 'down';
      // "canceling statement due to conflict with recovery": the standby's doing, not the request's.
      return out.error.code === '40001' && /conflict with recovery/i.test(out.error.message) ? 'retry' : null;
  }
}

/** True when this read may run on a replica: the client did not ask for the primary (`Prefer: tx=commit`). */
export function replicaAllowed(req: Pick<ApiRequest, 'preferences'>): boolean {
  return req.preferences.tx !== 'commit';
}

/**
 * Run `work` on a replica's pool when `eligible` and one is healthy, else on the primary's; a
 * replica's connection failure runs it again on the primary.
 */
export function onReadPool<T extends Outcome>(app: AppState, eligible: boolean, work: (pool: Pool) => Promise<T>): Promise<T> {
  const replicas = eligible ? (app.replicas ?? null) : null;
  if (replicas === null) return work(app.pool);
  const replica = replicas.pick();
  replicas.routed(replica);
  if (replica === null) return work(app.pool);
  return work(replica.pool).then((out) => {
    const failure = replicaFailure(out);
    if (failure === null) return out;
    if (failure === 'down') replicas.failed(replica, `a request could not use it (${out.ok ? '' : out.error.message})`);
    replicas.routed(null);
    return work(app.pool);
  });
}
