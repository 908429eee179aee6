// Runs one request's transaction in a single round trip (db/batch.ts): the context settings, the
// optional pre-request call and the main statements go out together before one Sync, so they form
// one implicit transaction. A failure anywhere rolls all of it back: nothing partial is ever kept.
// A request that must end in ROLLBACK (db-tx-end / Prefer: tx=rollback) is wrapped in an explicit
// BEGIN … ROLLBACK inside the same batch.
import { performance } from 'node:perf_hooks';
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Statement } from '../sql/fragment.js';
import { BatchError, runBatch, type BatchResult, type BatchStatement } from './batch.js';
import { watchDisconnect } from './cancel-watch.js';
import { leases, type Lease, type LeaseManager } from './leases.js';
import { toPgError, type PgError } from './pg-error.js';
import type { GoneSignal } from '../request/gone.js';
import { opsCounters } from '../observe/counters.js';

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
  /** Aborted when the client went away: the batch is then cancelled (db/cancel-watch.ts). */
  readonly signal?: GoneSignal | undefined;
  /**
   * Its statements may run twice (a read of tables and views): when a stalled batch holds it up on
   * a shared connection, it is also run on another one and the first answer wins (db/leases.ts,
   * hedging). Only honoured for a read-only transaction that commits and has no pre-request call,
   * which may do things outside the database.
   */
  readonly hedge?: boolean;
}

export type TxOutcome =
  /** leasedAt: performance.now() when the connection (or batch slot) was in hand (the acquire span's end). */
  | { readonly ok: true; readonly results: ReadonlyArray<BatchResult>; readonly ms: number; readonly leasedAt: number }
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
const settingsSql: Array<{ readonly text: string; readonly name: string }> = [];
function settingsStatement(n: number): { readonly text: string; readonly name: string } {
  let st = settingsSql[n];
  if (!st) {
    const calls = Array.from({ length: n }, (_, i) => `pg_catalog.set_config($${2 * i + 1}, $${2 * i + 2}, true)`);
    const text = `SELECT pg_catalog.num_nulls(${calls.join(', ')})`;
    st = { text, name: statementName(text) };
    settingsSql[n] = st;
  }
  return st;
}

const names = new Map<string, string>();
/** A stable prepared-statement name per SQL text, so each request shape is parsed once per connection. */
export function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = 'dbrest_' + createHash('sha1').update(text).digest('hex').slice(0, 20);
    if (names.size > 10_000) names.clear();
    names.set(text, name);
  }
  return name;
}

/** A statement as sent: named (parsed once per connection) when prepared statements are on. */
export const asBatch = (st: Statement & Pick<BatchStatement, 'rawColumn'>, prepared: boolean): BatchStatement =>
  prepared
    ? { text: st.text, values: st.values, name: st.name ?? statementName(st.text), rawColumn: st.rawColumn }
    : { text: st.text, values: st.values, rawColumn: st.rawColumn };

/**
 * What goes before a request's main statements (buffered or cursor, db/stream-tx.ts): its context
 * settings in one statement (read-only first, the role last) and its pre-request call.
 */
export function contextPrelude(tx: Pick<RequestTransaction, 'readOnly' | 'settings' | 'preRequest' | 'prepared'>): BatchStatement[] {
  const prelude: BatchStatement[] = [];
  const count = tx.settings.length + (tx.readOnly ? 1 : 0);
  if (count > 0) {
    // name, value, name, value, … (a plain loop: this runs for every request)
    const values: string[] = new Array<string>(count * 2);
    let i = 0;
    if (tx.readOnly) {
      values[i++] = 'transaction_read_only';
      values[i++] = 'on';
    }
    for (const [name, value] of tx.settings) {
      values[i++] = name;
      values[i++] = value;
    }
    const { text, name } = settingsStatement(count);
    prelude.push(tx.prepared ? { text, values, name, discard: true } : { text, values, discard: true });
  }
  if (tx.preRequest) prelude.push(asBatch(tx.preRequest, tx.prepared));
  return prelude;
}

const CANCELLED_IN_TRANSACTION = new Error('a request inside BEGIN … ROLLBACK was cancelled: its connection is closed');

/**
 * `again`: this is the second run of a batch that a cancel request meant for another batch on its
 * connection may have hit (Lease.hitByCancel); it is not run a third time.
 */
export function runTransaction(pool: pg.Pool, tx: RequestTransaction, again = false): Promise<TxOutcome> {
  // The request's class for the sharing policy: the shape of its (first) main statement.
  const key = tx.statements[0]?.text ?? null;
  const manager = leases(pool);
  // Its commit may have WAL to flush (a table write, or a volatile call that may write): such
  // batches are spread over connections so that their commits flush together (db/share-policy.ts).
  const writes = !tx.readOnly && tx.end === 'commit';
  // Joining a busy connection is synchronous: then no promise of our own around runOn's.
  const lease = manager.tryShare(key, writes);
  if (lease !== null) return runLeased(pool, tx, manager, key, lease, again);
  return manager.connect(key, writes).then(
    (l) => runLeased(pool, tx, manager, key, l, again),
    (e: Error): TxOutcome => ({ ok: false, kind: 'acquire', error: e }),
  );
}

function runLeased(pool: pg.Pool, tx: RequestTransaction, manager: LeaseManager, key: string | null, lease: Lease, again: boolean): Promise<TxOutcome> {
  if (tx.hedge && tx.readOnly && tx.end === 'commit' && tx.preRequest === null && !again) return hedged(pool, tx, manager, key, lease);
  return runOn(pool, tx, lease, again);
}

const HEDGE_ABANDONED = new Error('the other run answered first');

/**
 * Runs a hedgeable transaction on its lease; if the lease reports it stalled, on a second
 * connection too. The first answer wins (a failure to connect or a broken connection waits for the
 * other run); the run left behind still ends and releases its lease.
 */
function hedged(pool: pg.Pool, tx: RequestTransaction, manager: LeaseManager, key: string | null, lease: Lease): Promise<TxOutcome> {
  return new Promise<TxOutcome>((resolve) => {
    let running = 1;
    let settled = false;
    let abandon: (() => void) | null = null;
    const settle = (outcome: TxOutcome) => {
      running--;
      if (settled || (!outcome.ok && outcome.kind !== 'database' && running > 0)) return;
      settled = true;
      abandon?.();
      resolve(outcome);
    };
    lease.whenStalled(() => {
      if (settled) return;
      running++;
      const second = manager.hedge(key, lease.client);
      abandon = second.abandon;
      const settleSecond = (outcome: TxOutcome) => {
        if (!settled && outcome.ok) opsCounters.hedgesWon++;
        settle(outcome);
      };
      second.lease.then(
        (l) => (l === null ? settle({ ok: false, kind: 'acquire', error: HEDGE_ABANDONED }) : void runOn(pool, tx, l, false).then(settleSecond)),
        (e: Error) => settle({ ok: false, kind: 'acquire', error: e }),
      );
    });
    void runOn(pool, tx, lease, false).then(settle);
  });
}

/** Runs the transaction on a lease it was given, and releases it. */
async function runOn(pool: pg.Pool, tx: RequestTransaction, lease: Lease, again: boolean): Promise<TxOutcome> {
  const started = performance.now();
  const prelude = contextPrelude(tx);
  const batch: BatchStatement[] = tx.end === 'rollback' ? [{ text: 'BEGIN', values: [] }, ...prelude] : prelude;
  const firstMain = batch.length;
  for (const st of tx.statements) batch.push(asBatch(st, tx.prepared));
  if (tx.end === 'rollback') batch.push({ text: 'ROLLBACK', values: [] });

  const running = runBatch(lease.client, batch);
  // A client that goes away gets its batch cancelled (db/cancel-watch.ts); the lease goes back
  // only once no cancel request is in flight.
  const watch = watchDisconnect(lease, tx.signal);
  const leased = lease;
  // Waits only when a cancel request is in flight (the client went away): otherwise no await.
  // Inside BEGIN … ROLLBACK a cancel that lands on one of the closing ROLLBACKs could leave the
  // explicit transaction open, so that connection is closed instead of going back to the pool
  // (the cancel found it alone, so no other request is on it).
  const release = (broken?: Error, bytes?: number): Promise<void> | void => {
    const cancelling = watch?.finish();
    if (cancelling) return cancelling.then(() => leased.release(broken ?? (tx.end === 'rollback' ? CANCELLED_IN_TRANSACTION : undefined), bytes));
    leased.release(broken, bytes);
  };
  // A failure inside BEGIN … ROLLBACK leaves the explicit transaction open and aborted, and other
  // batches may be pipelined behind this one on the connection: a second ROLLBACK, queued right
  // behind it, always closes it (outside a transaction it is only a warning).
  const closing = tx.end === 'rollback' ? runBatch(lease.client, [{ text: 'ROLLBACK', values: [] }]).catch(() => undefined) : null;
  try {
    const results = await running;
    if (closing) await closing;
    let bytes = 0;
    for (const r of results) bytes += r.bytes;
    const releasing = release(undefined, bytes);
    if (releasing) await releasing;
    return { ok: true, results: results.slice(firstMain, firstMain + tx.statements.length), ms: performance.now() - started, leasedAt: started };
  } catch (e) {
    await closing;
    const cause = e instanceof BatchError ? e.cause : e;
    const pgError = toPgError(cause);
    if (pgError) {
      // A server error ends the batch's implicit transaction (rolled back); the connection is fine.
      await release();
      // Cancelled by a request that went away ahead of it on the connection (db/cancel-watch.ts):
      // nothing of it was kept, so it runs again, on another connection.
      if (pgError.code === '57014' && !again && leased.hitByCancel()) return runTransaction(pool, tx, true);
      return { ok: false, kind: 'database', error: pgError };
    }
    await release(cause instanceof Error ? cause : new Error(String(cause)));
    return { ok: false, kind: 'connection', error: cause as Error };
  }
}
