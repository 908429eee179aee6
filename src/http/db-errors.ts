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
import { responseCapFailure } from '../sql/response-cap.js';
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

/** PostgreSQL's message for a statement cancelled by statement_timeout (57014 is also a cancel request's). */
const STATEMENT_TIMEOUT = /statement timeout/;

/**
 * A statement that outran statement_timeout (db-statement-timeout or the role's own): the 57* row of
 * the error model (500, as PostgREST answers it), PostgreSQL's code and message kept, and a hint that
 * says what to change.
 */
function statementTimedOut(e: ApiError): ApiError {
  return {
    ...e,
    hint: e.hint ?? 'The request ran longer than the statement timeout (the server\'s db-statement-timeout or the role\'s statement_timeout): narrow it with filters, a limit or fewer embeds',
  };
}

/**
 * 54011 (too_many_columns): `select=id,id,…` past PostgreSQL's 1,664 output columns, a few KB of
 * query string. PostgREST answers the 54 class 500; this one is the request's doing and costs
 * PostgreSQL nothing (refused while parsing), so 400, PostgreSQL's code and message kept.
 */
const TOO_MANY_COLUMNS = '54011';
function tooManyColumns(e: ApiError): ApiError {
  return { ...e, status: 400, hint: e.hint ?? 'Select fewer columns in one request' };
}

/** DBRST702: a buffered answer over server-max-response-bytes, refused in SQL (sql/response-cap.ts). */
function responseTooLarge(bytes: number, cap: number): ApiError {
  return errors.DBRST702(`The response would be ${bytes} bytes; at most ${cap} are sent whole`, {
    details: 'server-max-response-bytes bounds an answer built whole; a write was rolled back',
    hint: 'Ask for less (a limit or Range, fewer columns or embeds), or read it streamed: a read without a limit at or under server-stream-threshold, and without Prefer: count',
  });
}

/** `app` is told about lost connections so it can start recovering. */
export function apiErrorFromTx(outcome: Exclude<TxOutcome, { ok: true }>, authenticated: boolean, app: Pick<AppState, 'connectionLost'>): ApiError {
  switch (outcome.kind) {
    case 'database': {
      const e = outcome.error;
      if (/^08/.test(e.code) || SESSION_TERMINATED.test(e.code)) app.connectionLost();
      if (SESSION_TERMINATED.test(e.code)) {
        return errors.DBRST001('Database client error. Retrying the connection.', { details: `${e.code}: ${e.message}` });
      }
      const capped = responseCapFailure(e);
      if (capped !== null) return responseTooLarge(capped.bytes, capped.cap);
      if (e.code === TOO_MANY_COLUMNS) return tooManyColumns(apiErrorFromPg(e, authenticated));
      if (e.code === '57014' && STATEMENT_TIMEOUT.test(e.message)) return statementTimedOut(apiErrorFromPg(e, authenticated));
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
