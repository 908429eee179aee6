// The JSON access line of one request, in two forms with the same bytes: `accessLineText` (a
// string, for a caller that takes strings) and `encodeAccessLine`, which writes the UTF-8 bytes
// straight into a buffer (the line batch's ring). The second skips what the string cost per line
// (observe-callgrind.ts): concatenating it, flattening it, then encoding it to UTF-8; its constant
// parts, routes and roles are encoded once, its numbers written digit by digit. Same keys in the
// same order as pino writes the other lines (level, time, name, then the event's).
import type { AccessEvent } from './access.js';

// A busy server answers several requests per millisecond: their lines share one formatted time,
// and the lines of one second share its date and time up to the milliseconds.
let isoMs = 0;
let iso = '';
const isoBytes = new Uint8Array(24); // iso's bytes ("2026-11-27T10:20:00.123Z", ASCII)
let secondStart = 0;
let secondIso = ''; // "2026-11-27T10:20:00."
const MILLIS_Z = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, '0')}Z`);

/** The clock's time as `Date.prototype.toISOString` writes it. */
export function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    const ms = now - secondStart;
    if (ms >= 0 && ms < 1000) iso = secondIso + MILLIS_Z[ms]!;
    else {
      iso = new Date(now).toISOString();
      secondStart = now - (now % 1000);
      secondIso = iso.slice(0, 20);
    }
    // Years past 9999 write more than 24 characters: those lines take the string path.
    if (iso.length === 24) for (let i = 0; i < 24; i++) isoBytes[i] = iso.charCodeAt(i);
  }
  return iso;
}

// ".001" … ".999" without trailing zeros ("" for 0), by thousandths: a duration's decimals.
const THOUSANDTHS = Array.from({ length: 1000 }, (_, i) => (i === 0 ? '' : `.${String(i).padStart(3, '0').replace(/0+$/, '')}`));

/**
 * Milliseconds to 3 decimals, as `String(Math.round(ms * 1000) / 1000)` writes them (no trailing
 * zeros), from an integer and a table: a double's shortest form (V8's FastDtoa) cost about as many
 * instructions as the rest of the line's numbers and strings together.
 */
function ms3(ms: number): string {
  const us = Math.round(ms * 1000);
  if (!(us >= 0 && us <= 0x3fffffff)) return String(us / 1000); // past a small integer, or NaN
  const whole = Math.floor(us / 1000);
  return `${whole}${THOUSANDTHS[us - whole * 1000]!}`;
}

const str = (v: string | null): string => (v === null ? 'null' : JSON.stringify(v));

// Routes and roles come from a small set (the schema cache's names, the database's roles): each is
// quoted and encoded once. Emptied when it grows past its bound (names churning over many reloads).
const QUOTED_MAX = 4096;
interface Quoted {
  readonly text: string;
  readonly bytes: Uint8Array;
}
const quotedNames = new Map<string, Quoted>();
const NULL: Quoted = { text: 'null', bytes: Buffer.from('null') };
function quoted(v: string | null): Quoted {
  if (v === null) return NULL;
  let q = quotedNames.get(v);
  if (q === undefined) {
    if (quotedNames.size >= QUOTED_MAX) quotedNames.clear();
    const text = JSON.stringify(v);
    quotedNames.set(v, (q = { text, bytes: Buffer.from(text) }));
  }
  return q;
}

const INFO_HEAD = '{"level":"info","time":"';
const ERROR_HEAD = '{"level":"error","time":"';

/**
 * The line as a string (with its newline). The id (ours), the method (a token, by Node's HTTP
 * parser) and the trace id (hex, by traceIdOf) need no escaping; an error code may be any text a
 * function raised (PostgREST's `PGRST` raise), so it is.
 */
export function accessLineText(e: AccessEvent): string {
  return `${e.status >= 500 ? ERROR_HEAD : INFO_HEAD}${isoNow()}","name":"dbrest","event":"request","id":"${e.id}","method":"${e.method}",`
    + `"route":${quoted(e.route).text},"status":${e.status},"code":${str(e.code)},"role":${quoted(e.role).text},"duration_ms":${ms3(e.durationMs)},`
    + `"db_ms":${e.dbMs === null ? 'null' : ms3(e.dbMs)},"bytes":${e.bytes === null ? 'null' : e.bytes},"trace_id":${e.traceId === null ? 'null' : `"${e.traceId}"`}}\n`;
}

const bytes = (s: string): Uint8Array => Buffer.from(s, 'latin1');
const INFO_HEAD_BYTES = bytes(INFO_HEAD);
const ERROR_HEAD_BYTES = bytes(ERROR_HEAD);
const AFTER_TIME = bytes('","name":"dbrest","event":"request","id":"');
const AFTER_ID = bytes('","method":"');
const AFTER_METHOD = bytes('","route":');
const AFTER_ROUTE = bytes(',"status":');
const AFTER_STATUS = bytes(',"code":');
const AFTER_CODE = bytes(',"role":');
const AFTER_ROLE = bytes(',"duration_ms":');
const AFTER_DURATION = bytes(',"db_ms":');
const AFTER_DB = bytes(',"bytes":');
const AFTER_BYTES = bytes(',"trace_id":');
const END = bytes('}\n');
const NULL_BYTES = NULL.bytes;
// The constant parts together, and room for the numbers (each at most 24 bytes as String writes
// them) and the time: with the variable parts' own lengths, a bound on the line's bytes.
const FIXED_BYTES = [ERROR_HEAD_BYTES, AFTER_TIME, AFTER_ID, AFTER_METHOD, AFTER_ROUTE, AFTER_STATUS, AFTER_CODE, AFTER_ROLE,
  AFTER_DURATION, AFTER_DB, AFTER_BYTES, END].reduce((n, b) => n + b.length, 0) + isoBytes.length + 4 * 24;

/** An upper bound on the bytes of `e`'s line, for a caller that reserves room before encoding. */
export function accessLineBound(e: AccessEvent): number {
  return FIXED_BYTES + e.id.length + e.method.length + quoted(e.route).bytes.length + quoted(e.role).bytes.length
    + (e.code === null ? 4 : 6 * e.code.length + 2) + (e.traceId === null ? 4 : e.traceId.length + 2);
}

/** Copies `src` into `buf` at `at`; returns the end. A loop for short parts: set() costs a builtin's call. */
function put(buf: Buffer, at: number, src: Uint8Array): number {
  const n = src.length;
  if (n > 24) buf.set(src, at);
  else for (let i = 0; i < n; i++) buf[at + i] = src[i]!;
  return at + n;
}

/** Writes an ASCII string; -1 if it holds any other character (the caller then takes the string path). */
function putAscii(buf: Buffer, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return -1;
    buf[at + i] = c;
  }
  return at + s.length;
}

/** A non-negative integer below 2^30, digit by digit. */
function putSmallInt(buf: Buffer, at: number, n: number): number {
  let digits = 1;
  for (let m = n; m >= 10; m = (m / 10) | 0) digits++;
  for (let i = at + digits - 1, m = n; i >= at; i--, m = (m / 10) | 0) buf[i] = 48 + (m % 10);
  return at + digits;
}

/** A number as String writes it (integers as they are; milliseconds through ms3's rule). */
function putNumber(buf: Buffer, at: number, n: number): number {
  return n >= 0 && n <= 0x3fffffff && n === Math.floor(n) ? putSmallInt(buf, at, n) : putAscii(buf, at, String(n));
}

/** Milliseconds as ms3 writes them: whole, then up to three decimals without trailing zeros. */
function putMs(buf: Buffer, at: number, ms: number): number {
  const us = Math.round(ms * 1000);
  if (!(us >= 0 && us <= 0x3fffffff)) return putAscii(buf, at, String(us / 1000));
  const whole = Math.floor(us / 1000);
  let frac = us - whole * 1000;
  at = putSmallInt(buf, at, whole);
  if (frac === 0) return at;
  buf[at++] = 46; // .
  buf[at++] = 48 + ((frac / 100) | 0);
  frac %= 100;
  if (frac === 0) return at;
  buf[at++] = 48 + ((frac / 10) | 0);
  frac %= 10;
  if (frac !== 0) buf[at++] = 48 + frac;
  return at;
}

/**
 * Writes `e`'s line (with its newline) into `buf` from `at`, which must have room for
 * accessLineBound(e) bytes; returns the end, or -1 when the line must take the string path (an id
 * or method that is not ASCII, a time past year 9999): what was written then is to be ignored.
 */
export function encodeAccessLine(buf: Buffer, at: number, e: AccessEvent): number {
  if (isoNow().length !== 24) return -1;
  at = put(buf, at, e.status >= 500 ? ERROR_HEAD_BYTES : INFO_HEAD_BYTES);
  at = put(buf, at, isoBytes);
  at = put(buf, at, AFTER_TIME);
  if ((at = putAscii(buf, at, e.id)) < 0) return -1;
  at = put(buf, at, AFTER_ID);
  if ((at = putAscii(buf, at, e.method)) < 0) return -1;
  at = put(buf, at, AFTER_METHOD);
  at = put(buf, at, quoted(e.route).bytes);
  at = put(buf, at, AFTER_ROUTE);
  at = putNumber(buf, at, e.status);
  at = put(buf, at, AFTER_STATUS);
  // Codes are few (DBRSTnnn, SQLSTATEs) but a raised one may be any text: written as the string path does.
  if (e.code === null) at = put(buf, at, NULL_BYTES);
  else at += buf.write(JSON.stringify(e.code), at);
  at = put(buf, at, AFTER_CODE);
  at = put(buf, at, quoted(e.role).bytes);
  at = put(buf, at, AFTER_ROLE);
  at = putMs(buf, at, e.durationMs);
  at = put(buf, at, AFTER_DURATION);
  at = e.dbMs === null ? put(buf, at, NULL_BYTES) : putMs(buf, at, e.dbMs);
  at = put(buf, at, AFTER_DB);
  at = e.bytes === null ? put(buf, at, NULL_BYTES) : putNumber(buf, at, e.bytes);
  at = put(buf, at, AFTER_BYTES);
  if (e.traceId === null) at = put(buf, at, NULL_BYTES);
  else {
    buf[at++] = 34; // "
    if ((at = putAscii(buf, at, e.traceId)) < 0) return -1;
    buf[at++] = 34;
  }
  return put(buf, at, END);
}
