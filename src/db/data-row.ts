// pg-protocol's DataRow parsing, replaced by one that decodes lazily, and its buffer merging by one
// that never writes into bytes it has handed out. pg-protocol turns each field of a DataRow from
// UTF-8 into a JS string as it parses the message; a read's body (one text field of ~7,300 bytes for
// bench W2) then goes back to UTF-8 for the socket, through Node's http joining it to the head (by
// callgrind: the decoding ~6,600 instructions, the join and flattening ~6,400, the encoding ~3,700 a
// request). Here the message keeps the read's buffer and its offsets: `fields` decodes on first use
// (cached), exactly as pg-protocol does; `row(raw)` gives the fields with one of them as a view of
// its bytes in that buffer (a subarray: no copy), never decoded (db/batch.ts's rawColumn).
//
// Zero copies are safe only while nothing writes into bytes the parser handed out. The buffers it
// parses are the socket's reads (db/socket.ts: a new buffer for each read, never reused; Node's own
// socket, with TLS, also hands out a new buffer per read) and the ones mergeBuffer builds when a
// message is cut by a read's end. pg-protocol's mergeBuffer may move the cut message's bytes to the
// START of its current buffer, over messages already parsed from it; the one here never writes
// before the pending bytes: it appends a read after them when the buffer it built has the room, or
// else copies the pending bytes and the read into a new buffer (at least twice the pending bytes:
// a long message over many reads is copied O(n) times over, not O(n²)). So a message, or a field
// taken as bytes, stays right for as long as anybody holds it, read now or later; nothing is sealed.
// (Holding a view keeps its whole read alive: a read's body is held until the response is written.)
//
// Installed once, on import (db/batch.ts), on the Parser class pg itself uses: pg-protocol is
// resolved from pg's own path.
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';

/** The parser's state that mergeBuffer works on (pg-protocol's Parser fields). */
interface ParserState {
  buffer: Buffer;
  bufferOffset: number;
  bufferLength: number;
}

interface ParserPrototype {
  handlePacket(this: unknown, offset: number, code: number, length: number, bytes: Buffer): unknown;
  mergeBuffer(this: ParserState, buffer: Buffer): void;
}

const DATA_ROW = 68; // 'D'

/** A big-endian int32 at `i` (signed: -1 is a NULL field's length). */
const int32 = (b: Buffer, i: number): number => (b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!;

/** A DataRow message as pg-protocol's (`name`, `length`, `fieldCount`, `fields`), decoded on demand. */
export class DataRow {
  readonly name = 'dataRow';
  readonly fieldCount: number;
  /** Offset of the first field's length word. */
  private readonly start: number;
  private decoded: Array<string | null> | null = null;

  constructor(
    /** The parser's buffer: its bytes never change once parsed (installDataRowParser's mergeBuffer). */
    private readonly bytes: Buffer,
    offset: number,
    /** The message's length word (without the code byte), as pg-protocol sets it. */
    readonly length: number,
  ) {
    this.fieldCount = (bytes[offset]! << 8) | bytes[offset + 1]!;
    this.start = offset + 2;
  }

  /** The fields as pg-protocol gives them: each decoded from UTF-8, null for NULL. */
  get fields(): Array<string | null> {
    return (this.decoded ??= this.row(-1) as Array<string | null>);
  }

  /** The fields, field `raw` as a view of its bytes (null for NULL) rather than decoded; -1: none. */
  row(raw: number): Array<string | Buffer | null> {
    const b = this.bytes;
    const n = this.fieldCount;
    const out = new Array<string | Buffer | null>(n);
    let at = this.start;
    for (let i = 0; i < n; i++) {
      const len = int32(b, at);
      at += 4;
      if (len === -1) out[i] = null;
      else {
        if (i === raw) out[i] = b.subarray(at, at + len);
        else out[i] = this.decoded !== null ? this.decoded[i]! : b.toString('utf-8', at, at + len);
        at += len;
      }
    }
    return out;
  }
}

/**
 * pg-protocol's mergeBuffer without its move: the pending bytes (a message cut by the last read's
 * end) and the new read, appended after them in the room of a buffer built here, else copied into a
 * new one. A read's own buffer is exactly its size, so only a buffer built here has room.
 */
export function mergeBuffer(this: ParserState, chunk: Buffer): void {
  const pending = this.bufferLength;
  if (pending === 0) {
    this.buffer = chunk;
    this.bufferOffset = 0;
    this.bufferLength = chunk.byteLength;
    return;
  }
  const end = this.bufferOffset + pending;
  if (end + chunk.byteLength > this.buffer.byteLength) {
    const grown = Buffer.allocUnsafe(Math.max(pending + chunk.byteLength, 2 * pending));
    this.buffer.copy(grown, 0, this.bufferOffset, end);
    chunk.copy(grown, pending);
    this.buffer = grown;
    this.bufferOffset = 0;
  } else chunk.copy(this.buffer, end);
  this.bufferLength = pending + chunk.byteLength;
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

/** pg-protocol's own handlePacket and mergeBuffer, once replaced. */
let original: Pick<ParserPrototype, 'handlePacket' | 'mergeBuffer'> | null = null;

/** Replaces DataRow parsing and buffer merging in pg's Parser (once). */
export function installDataRowParser(): void {
  if (original !== null) return;
  const proto = pgParser().prototype;
  const { handlePacket } = proto;
  original = { handlePacket, mergeBuffer: proto.mergeBuffer };
  proto.handlePacket = function (this: unknown, offset: number, code: number, length: number, bytes: Buffer): unknown {
    return code === DATA_ROW ? new DataRow(bytes, offset, length) : handlePacket.call(this, offset, code, length, bytes);
  };
  proto.mergeBuffer = mergeBuffer;
}

/**
 * A Parser that parses as pg-protocol does, unpatched (tests compare the two); with `lazyRows`, its
 * DataRows are this module's but its mergeBuffer is still pg-protocol's (tests show its move).
 */
export function originalParser(lazyRows = false): ParserClass {
  const Parser = pgParser();
  if (original === null) return Parser;
  const { handlePacket, mergeBuffer: merge } = original;
  if (lazyRows)
    return class extends (Parser as new () => object) {
      mergeBuffer(buffer: Buffer): void {
        merge.call(this as unknown as ParserState, buffer);
      }
    } as unknown as ParserClass;
  return class extends (Parser as new () => object) {
    handlePacket(offset: number, code: number, length: number, bytes: Buffer): unknown {
      return handlePacket.call(this, offset, code, length, bytes);
    }
    mergeBuffer(buffer: Buffer): void {
      merge.call(this as unknown as ParserState, buffer);
    }
  } as unknown as ParserClass;
}
