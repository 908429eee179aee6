// A cursor over one statement, inside one implicit transaction, on a connection nobody else uses
// (db/leases.ts acquireExclusive). pg-cursor / pg-query-stream cannot run on dbrest's pipelined
// clients (pg refuses them in pipeline mode) nor put the request's context in front of the rows
// in one round trip, so this speaks the extended protocol itself, as db/batch.ts does:
//
//   first write:  [context settings, pre-request]  Parse/Bind/Execute each (rows discarded)
//                 main statement  Bind to portal "dbrest_cursor", Execute(first rows)
//                 `after` statement (the response GUCs), Execute
//                 Flush                                    -- no Sync: the transaction stays open
//   then:         Execute("dbrest_cursor", n) + Flush      -- each time the consumer wants more
//   at the end:   Sync                                     -- ends the implicit transaction
//
// Nothing is ever read that was not asked for: between two Executes the backend waits, so a slow
// consumer costs one batch of rows of memory, never the whole answer. Values are kept as the text
// PostgreSQL sent (no type parsing): they are written out as they are.
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import pg from 'pg';
import type { BatchStatement, Connection as BatchConnection } from './batch.js';
import { sendCancel } from './cancel.js';
import { toPgError } from './pg-error.js';

const require = createRequire(import.meta.url);
const { prepareValue } = require('pg/lib/utils.js') as { prepareValue: (v: unknown) => unknown };

const PORTAL = 'dbrest_cursor';

export type Row = ReadonlyArray<string | null>;

interface Connection extends BatchConnection {
  flush(): void;
  on(event: 'readyForQuery' | 'end' | 'error', fn: () => void): void;
  off(event: 'readyForQuery' | 'end' | 'error', fn: () => void): void;
}

export interface CursorStatements {
  /** Run first, rows discarded: the request's settings and pre-request call. */
  readonly prelude: ReadonlyArray<BatchStatement>;
  /** The rows. */
  readonly main: BatchStatement;
  /** Run once after the first rows (one row kept): what the statements set, e.g. response GUCs. */
  readonly after: BatchStatement;
  /** Rows of the first Execute (at least 1). */
  readonly firstRows: number;
}

export interface FirstBatch {
  /** Column names of the main statement. */
  readonly fields: ReadonlyArray<string>;
  readonly rows: Row[];
  /** The main statement has no more rows. */
  readonly done: boolean;
  /** The `after` statement's row. */
  readonly after: Row;
}

type Slot = 'discard' | 'main' | 'after';

/** Settles a pending step. */
interface Pending<T> {
  resolve(v: T): void;
  reject(e: Error): void;
}

class CursorQuery extends (pg.Query as unknown as new (config: object | string) => object) {
  connection: Connection | null = null;
  fields: string[] = [];
  got: Row[] = [];
  afterRow: Row = [];
  /** What the answers coming in belong to, in order. */
  slots: Slot[] = [];
  mainDone = false;
  /** An Execute (or the first write) is outstanding: the backend is working for us. */
  running = true;
  failed: Error | null = null;
  synced = false;
  pending: Pending<void> | null = null;
  readyForQuery: Promise<void> | null = null;

  constructor(private readonly st: CursorStatements) {
    super(st.main.text);
    (this as unknown as { callback: unknown }).callback = () => undefined;
  }

  submit(connection: Connection): Error | null {
    this.connection = connection;
    const chunks: Buffer[] = [];
    const send = connection._send;
    connection._send = (b: Buffer) => (chunks.push(b), true);
    try {
      const put = (st: BatchStatement, portal: string, rows: number, slot: Slot) => {
        const name = st.name ?? '';
        if (name === '' || connection.parsedStatements[name] !== st.text) {
          if (name !== '') connection.close({ type: 'S', name });
          connection.parse({ text: st.text, name, types: [] });
        }
        connection.bind({ portal, statement: name, values: st.values as unknown[], valueMapper: prepareValue });
        connection.describe({ type: 'P', name: portal });
        connection.execute({ portal, rows });
        this.slots.push(slot);
      };
      for (const st of this.st.prelude) put(st, '', 0, 'discard');
      put(this.st.main, PORTAL, Math.max(1, this.st.firstRows), 'main');
      put(this.st.after, '', 0, 'after');
    } catch (e) {
      connection._send = send;
      return e as Error;
    }
    connection._send = send;
    // Flush writes directly to the stream; the messages before it go out first.
    send.call(connection, Buffer.concat(chunks));
    connection.flush();
    return null;
  }

  handleRowDescription(msg: { fields: ReadonlyArray<{ name: string }> }): void {
    if (this.slots[0] === 'main') this.fields = msg.fields.map((f) => f.name);
  }

  handleDataRow(msg: { fields: Row }): void {
    const slot = this.slots[0];
    if (slot === 'main') this.got.push(msg.fields);
    else if (slot === 'after') this.afterRow = msg.fields;
  }

  handleCommandComplete(): void {
    if (this.slots[0] === 'main') this.mainDone = true;
    this.endSlot();
  }

  handlePortalSuspended(): void {
    this.endSlot();
  }

  handleEmptyQuery(): void {
    this.endSlot();
  }

  private endSlot(): void {
    this.slots.shift();
    if (this.slots.length === 0) {
      this.running = false;
      const p = this.pending;
      this.pending = null;
      p?.resolve();
    }
  }

  handleError(err: Error): void {
    this.failed ??= err;
    this.running = false;
    this.slots.length = 0;
    // A server error: everything up to the Sync is skipped, then ReadyForQuery. pg no longer
    // routes messages to this query, so the Sync's answer is awaited on the connection itself.
    if (toPgError(err) && this.connection) this.sync();
    const p = this.pending;
    this.pending = null;
    p?.reject(err);
  }

  handleReadyForQuery(): void {}

  /** Ask for up to `rows` more rows of the main statement. */
  more(rows: number): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise<void>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.running = true;
      this.slots.push('main');
      const c = this.connection!;
      c.execute({ portal: PORTAL, rows: Math.max(1, rows) });
      c.flush();
    });
  }

  /** Wait for the outstanding step, whatever its outcome. */
  settle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const prev = this.pending;
      this.pending = {
        resolve: () => (prev?.resolve(), resolve()),
        reject: (e) => (prev?.reject(e), resolve()),
      };
    });
  }

  /**
   * End the transaction (Sync); resolves on ReadyForQuery, rejects when the connection ends first
   * (the server shut down: a FATAL error, then the socket closes, no ReadyForQuery).
   */
  sync(): Promise<void> {
    if (!this.synced) {
      this.synced = true;
      const c = this.connection!;
      this.readyForQuery = new Promise<void>((resolve, reject) => {
        if (!c.stream.writable) return reject(new Error('Connection terminated'));
        const done = (e?: Error) => {
          c.off('readyForQuery', ready);
          c.off('end', ended);
          c.off('error', ended);
          if (e) reject(e);
          else resolve();
        };
        const ready = () => done();
        const ended = () => done(new Error('Connection terminated'));
        c.on('readyForQuery', ready);
        c.on('end', ended);
        c.on('error', ended);
        c.sync();
      });
      this.readyForQuery.catch(() => undefined);
    }
    return this.readyForQuery!;
  }

  /** The statements parsed by the first write are known to the connection now (it succeeded). */
  recordParsed(): void {
    const c = this.connection;
    if (!c || this.failed) return;
    for (const st of [...this.st.prelude, this.st.main, this.st.after]) if (st.name) c.parsedStatements[st.name] = st.text;
  }
}

export interface Cursor {
  /** The first rows (and the `after` row), or the error that ended the statement. */
  readonly first: Promise<FirstBatch>;
  /** The next rows; an empty array once the statement has no more. */
  next(rows: number): Promise<{ rows: Row[]; done: boolean }>;
  /**
   * End the transaction and give the connection back. `cancel`: the statement may still be
   * running (the client went away): cancel it first. Never rejects.
   */
  close(cancel?: boolean): Promise<void>;
}

/**
 * Open a cursor on `client`, which must not be shared with other queries until `release` (it is
 * called exactly once, with the error when the connection is broken).
 */
export function openCursor(client: pg.ClientBase, st: CursorStatements, release: (broken?: Error) => void): Cursor {
  const q = new CursorQuery(st);
  let closing: Promise<void> | null = null;
  const first = new Promise<FirstBatch>((resolve, reject) => {
    q.pending = {
      resolve: () => {
        const rows = q.got;
        q.got = [];
        resolve({ fields: q.fields, rows, done: q.mainDone, after: q.afterRow });
      },
      reject,
    };
  });
  first.catch(() => undefined); // the caller awaits it; a close() first must not leave it unhandled
  (client.query as unknown as (q: object) => void)(q);

  return {
    first,
    async next(rows: number) {
      if (q.mainDone) return { rows: [], done: true };
      await q.more(rows);
      const out = q.got;
      q.got = [];
      return { rows: out, done: q.mainDone };
    },
    close(cancel = false) {
      closing ??= (async () => {
        try {
          if (q.running && cancel) {
            // Only this request's statement runs on this connection (an exclusive lease), and the
            // connection is released only after the cancel request was processed and the statement
            // has ended, so the cancel can hit nothing else.
            await sendCancel(client);
          }
          await q.settle();
          if (q.failed && !toPgError(q.failed)) {
            release(q.failed);
            return;
          }
          await q.sync();
          q.recordParsed();
          release();
        } catch (e) {
          release(e instanceof Error ? e : new Error(String(e)));
        }
      })();
      return closing;
    },
  };
}
