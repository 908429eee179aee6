// Several statements, one Sync: a request's context settings, pre-request call and main statements
// are written as Parse/Bind/Describe/Execute messages followed by a single Sync. PostgreSQL runs
// everything before a Sync as one implicit transaction, so SET LOCAL-style settings hold for the
// main statement without BEGIN/COMMIT messages, and an error anywhere rolls all of it back. One
// round trip, two statements for a typical read instead of four.
//
// pg has no public API for this, so this is a pg Query subclass that writes the messages itself
// (db/wire.ts) and sorts the answers per statement. Named statements are parsed once per connection; a name
// is recorded as parsed only when the whole batch succeeded (an error could have hit its Parse),
// and a name not yet recorded is sent with a Close first (Close of an unknown name is no error).
import pg from 'pg';
import { installDataRowParser, type DataRow } from './data-row.js';
import { startBatch, takeBatch, writeBind, writeCloseStatement, writeDescribePortal, writeExecute, writeParse, writeSync } from './wire.js';

interface TypeParsers {
  getTypeParser(oid: number, format: string): (text: string) => unknown;
}

// DataRow messages decoded lazily, so a statement's rawColumn is never decoded (db/data-row.ts).
installDataRowParser();

const isLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * One statement's rows as arrays, values through pg's type parsers (what pg's own Result does in
 * array mode, without the per-result row-object template it also builds).
 */
class ArrayResult {
  command: string | null = null;
  rowCount: number | null = null;
  readonly rows: unknown[][] = [];
  /** Bytes of its DataRow messages. */
  bytes = 0;
  /** One per column, from its RowDescription (none after NoData), or from an earlier run's (`described`). */
  parsers: ReadonlyArray<(text: string) => unknown> = [];

  constructor(
    private readonly types: TypeParsers,
    /** The column kept as its bytes when its parser is the identity (BatchStatement.rawColumn), or -1. */
    private readonly rawColumn: number,
  ) {}

  addFields(fields: ReadonlyArray<{ dataTypeID: number; format?: string }>): void {
    this.parsers = fields.map((f) => this.types.getTypeParser(f.dataTypeID, f.format || 'text'));
  }

  addRow(msg: DataRow | { readonly fields: ReadonlyArray<string | null>; readonly length: number }): void {
    this.bytes += msg.length;
    // Decided by the column's parser, known from its RowDescription or from an earlier run's
    // (`described`): raw only when the text would be kept as it is (text, varchar, xml, …: pg's
    // parser for a type it does not parse, as for OID 0), never for json, bytea, numbers.
    const raw = this.rawColumn >= 0 && this.parsers[this.rawColumn] === this.types.getTypeParser(0, 'text') ? this.rawColumn : -1;
    const values: ReadonlyArray<string | Buffer | null> = raw >= 0 && 'row' in msg ? msg.row(raw) : msg.fields;
    const row = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      row[i] = v === null || v === undefined ? null : i === raw ? v : this.parsers[i]!(v as string);
    }
    this.rows.push(row);
  }

  /**
   * A command tag (`INSERT 0 1`, `SELECT 5`, `CREATE TABLE`): its leading word, and as the row
   * count the last of up to two numbers after it, as /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/ reads
   * it. Scanned by character: the regexp's exec cost some 1,000 instructions a statement.
   */
  addCommandComplete(msg: { text?: string }): void {
    const text = msg.text ?? '';
    let i = 0;
    while (i < text.length && isLetter(text.charCodeAt(i))) i++;
    if (i === 0) return;
    this.command = text.slice(0, i);
    let count: string | undefined;
    for (let k = 0; k < 2 && text.charCodeAt(i) === 0x20; k++) {
      let j = i + 1;
      while (j < text.length && isDigit(text.charCodeAt(j))) j++;
      if (j === i + 1) break;
      count = text.slice(i + 1, j);
      i = j;
    }
    if (count !== undefined) this.rowCount = parseInt(count, 10);
  }
}

/** The subset of pg's Connection used to write protocol messages (db/cursor.ts uses it too). */
export interface Connection {
  stream: { cork?(): void; uncork?(): void; writableCorked?: number; destroy(): void; writable: boolean; write(b: Buffer): boolean };
  _send(buffer: Buffer): boolean;
  parsedStatements: Record<string, string>;
  parse(q: { text: string; name: string; types: unknown[] }): void;
  bind(c: { portal: string; statement: string; values: unknown[]; valueMapper: (v: unknown) => unknown }): void;
  describe(c: { type: 'P'; name: string }): void;
  execute(c: { portal: string; rows: number }): void;
  close(c: { type: 'S'; name: string }): void;
  sync(): void;
}

export interface BatchStatement {
  readonly text: string;
  readonly values: ReadonlyArray<unknown>;
  /** Prepared-statement name; omitted for a one-off (unnamed) statement. */
  readonly name?: string;
  /** Its rows are not wanted (the context settings): they are not parsed. */
  readonly discard?: boolean;
  /**
   * This column (0-based) of its rows comes as a Buffer of the bytes PostgreSQL sent, never decoded
   * to a string, when its type's parser is the identity (text and the like); else it is parsed as
   * the others. For a body handed to the HTTP response as it is (http/read.ts).
   */
  readonly rawColumn?: number;
}

export interface BatchResult {
  readonly rows: unknown[][];
  /** Size of the rows as PostgreSQL sent them (DataRow messages, bytes). */
  readonly bytes: number;
  readonly rowCount: number | null;
  readonly command: string | null;
}

export class BatchError extends Error {
  constructor(
    override readonly cause: unknown,
    /** Index of the statement that failed (best effort: the one being answered). */
    readonly statementIndex: number,
  ) {
    super((cause as Error)?.message ?? String(cause));
  }
}

type Parsers = ReadonlyArray<(text: string) => unknown>;

/**
 * The column parsers of each named statement a connection has run: its rows come back without a
 * Describe. A prepared statement's columns cannot change (PostgreSQL answers "cached plan must not
 * change result type" rather than return others), and a name is its text's hash (statementName), so
 * an entry holds while the connection has the statement parsed: it is recorded, as parsedStatements
 * is, only once a batch that described it succeeded.
 */
const described = new WeakMap<Connection, Map<string, Parsers>>();

/** What a statement whose rows are discarded reports. */
const NO_ROWS: BatchResult = { rows: [], bytes: 0, rowCount: null, command: null };

// Extends pg.Query because pg's pipeline mode refuses other submittables (pg-cursor & co.).
class BatchQuery extends (pg.Query as unknown as new (config: object | string) => object) {
  /** Per statement; null for one whose rows are discarded. */
  private readonly results: Array<ArrayResult | null>;
  private current = 0;
  private readonly done: (err: Error | null, results?: BatchResult[]) => void;

  constructor(
    private readonly statements: ReadonlyArray<BatchStatement>,
    types: TypeParsers,
    done: (err: Error | null, results?: BatchResult[]) => void,
  ) {
    // A plain string: pg copies a config object on every query, which a batch does not need.
    super(statements[0]?.text ?? '');
    this.results = statements.map((st) => (st.discard ? null : new ArrayResult(types, st.rawColumn ?? -1)));
    this.done = done;
    (this as unknown as { callback: unknown }).callback = () => undefined; // pg checks a callback exists
  }

  submit(connection: Connection): Error | null {
    // The messages are written into one buffer (db/wire.ts) and sent as one: the batch goes out
    // whole, and if serialising a value throws, nothing has been written and the connection stays in sync.
    try {
      startBatch();
      const known = described.get(connection);
      for (let i = 0; i < this.statements.length; i++) {
        const st = this.statements[i]!;
        const name = st.name ?? '';
        const parsed = name !== '' && connection.parsedStatements[name] === st.text;
        if (!parsed) {
          if (name !== '') writeCloseStatement(name);
          writeParse(name, st.text);
        }
        writeBind(name, st.values);
        // A description only when its rows are wanted and not known from an earlier run: one
        // message less each way, and no RowDescription for PostgreSQL to build nor for pg to parse.
        if (!st.discard) {
          const parsers = parsed ? known?.get(name) : undefined;
          if (parsers) this.results[i]!.parsers = parsers;
          else writeDescribePortal();
        }
        writeExecute();
      }
      writeSync();
    } catch (e) {
      return e as Error; // nothing was written yet
    }
    const message = takeBatch();
    // Batches submitted in the same tick (several requests pipelined on this connection,
    // db/leases.ts) leave in one write: cork until the event loop's check phase. A batch alone on
    // an idle connection waits too: written at once (or at the end of its callback, nextTick), it
    // left the CPU less idle but cost more of it, and W2 (50 rows, never stacked) was no faster.
    const stream = connection.stream;
    if (stream.cork && stream.uncork && !stream.writableCorked) {
      stream.cork();
      setImmediate(() => stream.uncork!());
    }
    connection._send(message);
    return null;
  }

  handleRowDescription(msg: { fields: ReadonlyArray<{ dataTypeID: number; format?: string }> }): void {
    this.results[this.current]?.addFields(msg.fields);
  }

  handleDataRow(msg: DataRow): void {
    this.results[this.current]?.addRow(msg);
  }

  handleCommandComplete(msg: { text?: string }): void {
    this.results[this.current]?.addCommandComplete(msg);
    this.current++;
  }

  handleEmptyQuery(): void {
    this.current++;
  }

  handleError(err: Error): void {
    this.done(new BatchError(err, this.current));
  }

  handleReadyForQuery(connection: Connection): void {
    let known = described.get(connection);
    for (let i = 0; i < this.statements.length; i++) {
      const name = this.statements[i]!.name;
      if (!name) continue;
      connection.parsedStatements[name] = this.statements[i]!.text;
      // What it was described as (no columns: NoData), unless already known.
      const result = this.results[i];
      if (!result || known?.get(name) === result.parsers) continue;
      if (!known) described.set(connection, (known = new Map()));
      known.set(name, result.parsers);
    }
    this.done(null, this.results.map((r) => (r ? { rows: r.rows, bytes: r.bytes, rowCount: r.rowCount, command: r.command } : NO_ROWS)));
  }

  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}

/** Runs the statements as one implicit transaction in one round trip. */
export function runBatch(client: pg.ClientBase, statements: ReadonlyArray<BatchStatement>): Promise<BatchResult[]> {
  return new Promise((resolve, reject) => {
    const types = ((client as unknown as { _types?: TypeParsers })._types ?? pg.types) as TypeParsers;
    const query = new BatchQuery(statements, types, (err, results) => (err ? reject(err) : resolve(results!)));
    (client.query as unknown as (q: object) => void)(query);
  });
}
