// pg-protocol's DataRow parsing, replaced by one that decodes lazily. pg-protocol turns each field
// of a DataRow from UTF-8 into a JS string as it parses the message; a read's body (one text field
// of ~7,300 bytes for bench W2) then goes back to UTF-8 for the socket, through Node's http
// joining it to the head (by callgrind: the decoding ~6,600 instructions, the join and flattening
// ~6,400, the encoding ~3,700 a request). Here the message keeps the read buffer and the offsets:
// `fields` decodes on first use (cached), exactly as pg-protocol does; `row(raw)` gives the fields
// with one of them as a copy of its bytes, never decoded (db/batch.ts's rawColumn).
//
// The parser reuses its buffer between parse() calls (a message cut by a read's end is moved to
// its start, or the next read copied after it), so a message decodes while its bytes hold: the
// previous message is sealed (decoded, unless taken) at the next packet and at the end of each
// parse(). pg's own consumers read `msg.fields` synchronously in the message's callback
// (pg/lib/query.js and pg/lib/result.js, pg-cursor, db/cursor.ts, db/batch.ts), so sealing decodes
// only a message nobody read.
//
// Installed once, on import (db/batch.ts), on the Parser class pg itself uses: pg-protocol is
// resolved from pg's own path.
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';

interface ParserPrototype {
  handlePacket(this: unknown, offset: number, code: number, length: number, bytes: Buffer): unknown;
  parse(this: unknown, buffer: Buffer, callback: (msg: unknown) => void): void;
}

const DATA_ROW = 68; // 'D'

/** A big-endian int32 at `i` (signed: -1 is a NULL field's length). */
const int32 = (b: Buffer, i: number): number => (b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!;

/** A DataRow message as pg-protocol's (`name`, `length`, `fieldCount`, `fields`), decoded on demand. */
export class DataRow {
  readonly name = 'dataRow';
  readonly fieldCount: number;
  /** The parser's buffer, until the message is sealed (then null). */
  private bytes: Buffer | null;
  /** Offset of the first field's length word. */
  private readonly start: number;
  private decoded: Array<string | null> | null = null;
  /** What row() gave, when it was called before `fields` was read. */
  private taken: Array<string | Buffer | null> | null = null;

  constructor(
    bytes: Buffer,
    offset: number,
    /** The message's length word (without the code byte), as pg-protocol sets it. */
    readonly length: number,
  ) {
    this.bytes = bytes;
    this.fieldCount = (bytes[offset]! << 8) | bytes[offset + 1]!;
    this.start = offset + 2;
  }

  /** The fields as pg-protocol gives them: each decoded from UTF-8, null for NULL. */
  get fields(): Array<string | null> {
    if (this.decoded !== null) return this.decoded;
    if (this.taken !== null) {
      this.decoded = this.taken.map((v) => (v === null || typeof v === 'string' ? v : v.toString('utf-8')));
      return this.decoded;
    }
    this.decoded = this.row(-1) as Array<string | null>;
    this.taken = null;
    return this.decoded;
  }

  /**
   * The fields, field `raw` as a copy of its bytes (null for NULL) rather than decoded; -1: none.
   * Read synchronously in the message's callback (its bytes are the parser's buffer).
   */
  row(raw: number): Array<string | Buffer | null> {
    if (this.taken !== null) return this.taken;
    if (this.decoded !== null) return raw < 0 ? this.decoded : this.decoded.map((v, i) => (i === raw && v !== null ? Buffer.from(v, 'utf-8') : v));
    const b = this.bytes!;
    const n = this.fieldCount;
    const out = new Array<string | Buffer | null>(n);
    let at = this.start;
    for (let i = 0; i < n; i++) {
      const len = int32(b, at);
      at += 4;
      if (len === -1) out[i] = null;
      else {
        if (i === raw) {
          const copy = Buffer.allocUnsafe(len);
          b.copy(copy, 0, at, at + len);
          out[i] = copy;
        } else out[i] = b.toString('utf-8', at, at + len);
        at += len;
      }
    }
    this.taken = out;
    this.bytes = null;
    return out;
  }

  /** Decoded now unless read already: the parser's buffer may change after this. */
  seal(): void {
    if (this.bytes === null) return;
    if (this.decoded === null && this.taken === null) void this.fields;
    this.bytes = null;
  }
}

/** The DataRow handed out last and maybe not read yet (parse() runs synchronously, one at a time). */
let pending: DataRow | null = null;

function sealPending(): void {
  if (pending !== null) {
    pending.seal();
    pending = null;
  }
}

interface ParserClass {
  new (): { parse(buffer: Buffer, callback: (msg: unknown) => void): void };
  prototype: ParserPrototype;
}

/** pg-protocol's Parser, as pg resolves it. */
export function pgParser(): ParserClass {
  const fromPg = createRequire(createRequire(import.meta.url).resolve('pg'));
  return (fromPg('pg-protocol/dist/parser.js') as { Parser: ParserClass }).Parser;
}

/** pg-protocol's own handlePacket and parse, once replaced. */
let original: Pick<ParserPrototype, 'handlePacket' | 'parse'> | null = null;

/** Replaces DataRow parsing in pg's Parser (once). */
export function installDataRowParser(): void {
  if (original !== null) return;
  const proto = pgParser().prototype;
  const { handlePacket, parse } = proto;
  original = { handlePacket, parse };
  proto.handlePacket = function (this: unknown, offset: number, code: number, length: number, bytes: Buffer): unknown {
    sealPending();
    if (code !== DATA_ROW) return handlePacket.call(this, offset, code, length, bytes);
    return (pending = new DataRow(bytes, offset, length));
  };
  proto.parse = function (this: unknown, buffer: Buffer, callback: (msg: unknown) => void): void {
    try {
      parse.call(this, buffer, callback);
    } finally {
      sealPending();
    }
  };
}

/** A Parser that parses as pg-protocol does, unpatched (tests compare the two). */
export function originalParser(): ParserClass {
  const Parser = pgParser();
  if (original === null) return Parser;
  const { handlePacket, parse } = original;
  return class extends (Parser as new () => object) {
    handlePacket(offset: number, code: number, length: number, bytes: Buffer): unknown {
      return handlePacket.call(this, offset, code, length, bytes);
    }
    parse(buffer: Buffer, callback: (msg: unknown) => void): void {
      parse.call(this, buffer, callback);
    }
  } as unknown as ParserClass;
}
