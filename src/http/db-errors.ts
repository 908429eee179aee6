// Turns a failed transaction (pool, connection or server error) into the error model.
import { errors } from '../errors/catalog.js';
import { apiErrorFromPg } from '../errors/from-pg.js';
import type { ApiError } from '../errors/types.js';
import type { TxOutcome } from '../db/transaction.js';
import type { AppState } from './app.js';

/** `app` is told about lost connections so it can start recovering. */
export function apiErrorFromTx(outcome: Exclude<TxOutcome, { ok: true }>, authenticated: boolean, app: Pick<AppState, 'connectionLost'>): ApiError {
  if (outcome.kind === 'connection' || (outcome.kind === 'acquire' && !/timeout exceeded/i.test(outcome.error.message))) {
    app.connectionLost();
  }
  if (outcome.kind === 'database' && /^(08|57P0)/.test(outcome.error.code)) app.connectionLost();
  switch (outcome.kind) {
    case 'database':
      return apiErrorFromPg(outcome.error, authenticated);
    case 'acquire':
      if (/timeout exceeded/i.test(outcome.error.message)) {
        return errors.DBRST003('Timed out acquiring connection from connection pool.');
      }
      return errors.DBRST000('Database connection error. Retrying the connection.', { details: outcome.error.message });
    case 'connection':
      return errors.DBRST001('Database client error. Retrying the connection.', { details: outcome.error.message });
  }
}
