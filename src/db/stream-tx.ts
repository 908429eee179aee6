// A request's transaction as a cursor (db/cursor.ts): the same context settings and pre-request
// call as db/transaction.ts puts in front of a buffered request's statements, on an exclusive
// connection, then the rows a batch at a time.
import type pg from 'pg';
import type { Statement } from '../sql/fragment.js';
import type { BatchStatement } from './batch.js';
import { openCursor, type Cursor } from './cursor.js';
import { leases } from './leases.js';
import { statementName, type RequestTransaction } from './transaction.js';

export interface CursorTransaction extends Pick<RequestTransaction, 'readOnly' | 'settings' | 'preRequest' | 'prepared'> {
  readonly main: Statement;
  /** Read once after the first rows. */
  readonly after: Statement;
  readonly firstRows: number;
}

export type CursorOutcome = { readonly ok: true; readonly cursor: Cursor } | { readonly ok: false; readonly kind: 'acquire'; readonly error: Error };

function settingsStatement(tx: CursorTransaction): BatchStatement | null {
  const pairs: Array<readonly [string, string]> = tx.readOnly ? [['transaction_read_only', 'on'], ...tx.settings] : [...tx.settings];
  if (pairs.length === 0) return null;
  // As db/transaction.ts: one statement, arguments evaluated left to right (the role last).
  const calls = pairs.map((_, i) => `pg_catalog.set_config($${2 * i + 1}, $${2 * i + 2}, true)`);
  const text = `SELECT pg_catalog.num_nulls(${calls.join(', ')})`;
  const values = pairs.flatMap(([k, v]) => [k, v]);
  return tx.prepared ? { text, values, name: statementName(text) } : { text, values };
}

const named = (st: Statement, prepared: boolean): BatchStatement =>
  prepared ? { text: st.text, values: st.values, name: st.name ?? statementName(st.text) } : { text: st.text, values: st.values };

export async function openRequestCursor(pool: pg.Pool, tx: CursorTransaction): Promise<CursorOutcome> {
  let lease;
  try {
    lease = await leases(pool).acquireExclusive();
  } catch (e) {
    return { ok: false, kind: 'acquire', error: e as Error };
  }
  const prelude: BatchStatement[] = [];
  const settings = settingsStatement(tx);
  if (settings) prelude.push(settings);
  if (tx.preRequest) prelude.push(named(tx.preRequest, tx.prepared));
  const cursor = openCursor(lease.client, {
    prelude,
    // Prepared like a buffered request's statements: parsed and planned once per connection.
    main: named(tx.main, tx.prepared),
    after: named(tx.after, tx.prepared),
    firstRows: tx.firstRows,
  }, (broken) => lease.release(broken));
  return { ok: true, cursor };
}
