// The extended-query messages of a batch (db/batch.ts) — Close, Parse, Bind, Describe, Execute,
// Sync — written straight into one buffer, byte for byte what pg's serializer writes. pg builds
// each message in a buffer of its own (a new one allocated per message, then a slice of it),
// measures every string's UTF-8 length before encoding it, and the batch's messages were then
// concatenated: for one insert, some 10,000 instructions per request more than this (callgrind).
// One writer serves every batch: a batch is written synchronously and copied out whole.
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import { memoByText } from '../memo.js';

const require = createRequire(import.meta.url);
const { prepareValue } = require('pg/lib/utils.js') as { prepareValue: (v: unknown, seen?: unknown) => unknown };

const INITIAL = 16 * 1024;
/** A writer grown past this by a large batch (a bulk insert) is not kept for the next one. */
const KEPT = 1024 * 1024;
let buf = Buffer.allocUnsafe(INITIAL);
let at = 0;

/** Room for the UTF-8 of `s`: at most 3 bytes a UTF-16 code unit (a pair, 2 units, is 4); exact when long. */
const roomFor = (s: string): void => room(s.length > 4096 ? Buffer.byteLength(s) : s.length * 3);

/** Room for `n` more bytes. */
function room(n: number): void {
  if (at + n <= buf.length) return;
  let size = buf.length * 2;
  while (size < at + n) size *= 2;
  const bigger = Buffer.allocUnsafe(size);
  buf.copy(bigger, 0, 0, at);
  buf = bigger;
}

/**
 * Strings up to this length are copied in a loop (ASCII only); longer ones go to Node's encoder.
 * Under callgrind the loop cost some 150 instructions plus 36 a character, a call into the encoder
 * some 700 plus one a character.
 */
const SHORT = 15;

/** The string's UTF-8 bytes (as Buffer#write encodes them: a lone surrogate becomes U+FFFD). */
function text(s: string): void {
  const n = s.length;
  roomFor(s);
  if (n <= SHORT) {
    const b = buf;
    const o = at;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      b[o + i] = c;
    }
    if (i === n) {
      at = o + n;
      return;
    }
  }
  at += buf.write(s, at);
}

/**
 * The bytes of a statement's name, NUL-terminated, kept by name: each Bind of a prepared statement
 * names it (`dbrest_` and 20 hex digits), and copying its bytes costs less than encoding it again.
 */
const nameBytes = memoByText((name) => Buffer.from(`${name}\0`), 10_000);
function statementName(name: string): void {
  if (name === '') return cstring('');
  const bytes = nameBytes(name);
  room(bytes.length);
  buf.set(bytes, at);
  at += bytes.length;
}

function cstring(s: string): void {
  if (s !== '') text(s);
  room(1);
  buf[at++] = 0;
}

function int16(n: number): void {
  room(2);
  buf[at++] = (n >>> 8) & 0xff;
  buf[at++] = n & 0xff;
}

function int32At(n: number, i: number): void {
  buf[i] = (n >>> 24) & 0xff;
  buf[i + 1] = (n >>> 16) & 0xff;
  buf[i + 2] = (n >>> 8) & 0xff;
  buf[i + 3] = n & 0xff;
}

/** A message's code and room for its length; returns where the length goes. */
function open(code: number): number {
  room(5);
  buf[at] = code;
  const lengthAt = at + 1;
  at += 5;
  return lengthAt;
}

/** The length counts itself and the body, not the code. */
const close = (lengthAt: number): void => int32At(at - lengthAt, lengthAt);

/** Starts a new batch (whatever an unfinished one had written is dropped). */
export function startBatch(): void {
  at = 0;
}

/** Close of a prepared statement (no error when there is none of that name). */
export function writeCloseStatement(name: string): void {
  const l = open(0x43); // C
  room(1);
  buf[at++] = 0x53; // S
  statementName(name);
  close(l);
}

/** Parse of `text` as `name` ('' unnamed), parameter types left to PostgreSQL. */
export function writeParse(name: string, sql: string): void {
  const l = open(0x50); // P
  statementName(name);
  cstring(sql);
  int16(0);
  close(l);
}

/**
 * Bind of statement `name` to the unnamed portal, values through pg's prepareValue as pg does:
 * null/undefined as NULL, Buffers in binary format, everything else as text; results as text.
 */
export function writeBind(name: string, values: ReadonlyArray<unknown>): void {
  const l = open(0x42); // B
  room(1);
  buf[at++] = 0; // portal ''
  statementName(name);
  const n = values.length;
  int16(n);
  const formatsAt = at;
  room(n * 2);
  at += n * 2;
  int16(n);
  if (!allText(values, formatsAt)) writeValues(values, formatsAt);
  int16(1);
  int16(0);
  close(l);
}

/**
 * Values that are all ASCII strings (the request's context settings, a JSON body): encoded in one
 * call into Node's encoder, their length prefixes then filled in — a call per value cost more, and
 * so did a loop per character. False, with nothing written, for any other value or a non-ASCII
 * character (UTF-8 then takes more bytes than the string has characters).
 */
function allText(values: ReadonlyArray<unknown>, formatsAt: number): boolean {
  const n = values.length;
  let joined = '';
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v !== 'string') return false;
    joined += LENGTH_HOLE + v;
  }
  roomFor(joined);
  const start = at;
  if (buf.write(joined, start) !== joined.length) return false;
  const b = buf;
  let o = start;
  for (let i = 0; i < n; i++) {
    const length = (values[i] as string).length;
    int32At(length, o);
    o += 4 + length;
    b[formatsAt + 2 * i] = 0;
    b[formatsAt + 2 * i + 1] = 0;
  }
  at = o;
  return true;
}
const LENGTH_HOLE = '\u0000\u0000\u0000\u0000';

function writeValues(values: ReadonlyArray<unknown>, formatsAt: number): void {
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    // A string is its own prepared value (prepareValue returns its toString()).
    const p = typeof v === 'string' ? v : prepareValue(v, i);
    let format = 0;
    room(4);
    const lengthAt = at;
    at += 4;
    if (p === null || p === undefined) int32At(-1, lengthAt);
    else if (p instanceof Buffer) {
      format = 1;
      room(p.length);
      p.copy(buf, at);
      at += p.length;
      int32At(p.length, lengthAt);
    } else {
      text(p as string);
      int32At(at - lengthAt - 4, lengthAt);
    }
    buf[formatsAt + 2 * i] = 0;
    buf[formatsAt + 2 * i + 1] = format;
  }
}

const DESCRIBE_PORTAL = Buffer.from([0x44, 0, 0, 0, 6, 0x50, 0]); // D, unnamed portal
const EXECUTE = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0]); // E, unnamed portal, all rows
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]); // S

function fixed(b: Buffer): void {
  room(b.length);
  for (let i = 0; i < b.length; i++) buf[at + i] = b[i]!;
  at += b.length;
}

export const writeDescribePortal = (): void => fixed(DESCRIBE_PORTAL);
export const writeExecute = (): void => fixed(EXECUTE);
export const writeSync = (): void => fixed(SYNC);

/** The batch written since startBatch, as a buffer of its own (the writer's is reused). */
export function takeBatch(): Buffer {
  const out = Buffer.allocUnsafe(at);
  buf.copy(out, 0, 0, at);
  at = 0;
  if (buf.length > KEPT) buf = Buffer.allocUnsafe(INITIAL);
  return out;
}
