// A request's transaction as a cursor (db/cursor.ts): the same context settings and pre-request
// call as db/transaction.ts puts in front of a buffered request's statements, on an exclusive
// connection, then the rows a batch at a time.
import type pg from 'pg';
import type { Statement } from '../sql/fragment.js';
import { openCursor, type Cursor } from './cursor.js';
import { leases } from './leases.js';
import { asBatch, contextPrelude, type RequestTransaction } from './transaction.js';

export interface CursorTransaction extends Pick<RequestTransaction, 'readOnly' | 'settings' | 'preRequest' | 'prepared'> {
  readonly main: Statement;
  /** Read once after the first rows. */
  readonly after: Statement;
  readonly firstRows: number;
}

export type CursorOutcome = { readonly ok: true; readonly cursor: Cursor } | { readonly ok: false; readonly kind: 'acquire'; readonly error: Error };

export async function openRequestCursor(pool: pg.Pool, tx: CursorTransaction): Promise<CursorOutcome> {
  let lease;
  try {
    lease = await leases(pool).acquireExclusive();
  } catch (e) {
    return { ok: false, kind: 'acquire', error: e as Error };
  }
  const cursor = openCursor(lease.client, {
    prelude: contextPrelude(tx),
    // Prepared like a buffered request's statements: parsed and planned once per connection.
    main: asBatch(tx.main, tx.prepared),
    after: asBatch(tx.after, tx.prepared),
    firstRows: tx.firstRows,
  }, (broken) => lease.release(broken));
  return { ok: true, cursor };
}
