// Turns a failed transaction (pool, connection or server error) into the error model.
//   acquire timeout (db-pool-acquisition-timeout)            → 504 DBRST003
//   cannot connect (refused, wrong db-uri, starting up, …)   → 503 DBRST000
//   connection lost mid-request (socket closed, or the server
//   terminating it: 57P01 admin shutdown, 57P02 crash,
//   57P03 cannot connect now)                                → 503 DBRST001 (the SQLSTATE in details)
//   any other server error                                   → errors/from-pg.ts (SQLSTATE table)
// Every connection failure also tells the app, which starts its recovery loop.
import { errors } from '../errors/catalog.js';
import { apiErrorFromPg } from '../errors/from-pg.js';
import type { ApiError } from '../errors/types.js';
import type { TxOutcome } from '../db/transaction.js';
import type { AppState } from './app.js';

const ACQUIRE_TIMEOUT = /timeout exceeded/i;
/**
 * Server errors that end the session rather than the statement: the database is going away (a
 * fast shutdown answers an in-flight statement with 57P01), so the request is told to retry (503),
 * as PostgREST answers 57P01, instead of the 500 of the generic 57* row.
 */
const SESSION_TERMINATED = /^57P0[123]$/;

/** `app` is told about lost connections so it can start recovering. */
export function apiErrorFromTx(outcome: Exclude<TxOutcome, { ok: true }>, authenticated: boolean, app: Pick<AppState, 'connectionLost'>): ApiError {
  switch (outcome.kind) {
    case 'database': {
      const e = outcome.error;
      if (/^08/.test(e.code) || SESSION_TERMINATED.test(e.code)) app.connectionLost();
      if (SESSION_TERMINATED.test(e.code)) {
        return errors.DBRST001('Database client error. Retrying the connection.', { details: `${e.code}: ${e.message}` });
      }
      return apiErrorFromPg(e, authenticated);
    }
    case 'acquire':
      if (ACQUIRE_TIMEOUT.test(outcome.error.message)) {
        return errors.DBRST003('Timed out acquiring connection from connection pool.');
      }
      app.connectionLost();
      return errors.DBRST000('Database connection error. Retrying the connection.', { details: outcome.error.message });
    case 'connection':
      app.connectionLost();
      return errors.DBRST001('Database client error. Retrying the connection.', { details: outcome.error.message });
  }
}
