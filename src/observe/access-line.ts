// The JSON access line of one request, in two forms with the same bytes: `accessLineText` (a
// string, for a caller that takes strings) and `encodeAccessLine`, which writes the UTF-8 bytes
// straight into a buffer (the line batch's ring). The second skips what the string cost per line:
// concatenating it, flattening it, then encoding it to UTF-8. Same keys in the same order as pino
// writes the other lines (level, time, name, then the event's).
import { memoByText } from '../memo.js';
import type { AccessEvent } from './access.js';

// A busy server answers several requests per millisecond: their lines share one formatted time,
// and the lines of one second share its date and time up to the milliseconds.
let isoMs = 0;
let iso = '';
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
// quoted once. Emptied when it grows past its bound (names churning over many reloads).
const MEMO_MAX = 4096;
const quotedName = memoByText((v) => JSON.stringify(v), MEMO_MAX, 1024);
const quoted = (v: string | null): string => (v === null ? 'null' : quotedName(v));

const INFO_HEAD = '{"level":"info","time":"';
const ERROR_HEAD = '{"level":"error","time":"';

/**
 * The line as a string (with its newline). The id (ours), the method (a token, by Node's HTTP
 * parser) and the trace id (hex, by traceIdOf) need no escaping; an error code may be any text a
 * function raised (PostgREST's `PGRST` raise), so it is.
 */
export function accessLineText(e: AccessEvent): string {
  return `${e.status >= 500 ? ERROR_HEAD : INFO_HEAD}${isoNow()}","name":"dbrest","event":"request","id":"${e.id}","method":"${e.method}",`
    + `"route":${quoted(e.route)},"status":${e.status},"code":${str(e.code)},"role":${quoted(e.role)},"duration_ms":${ms3(e.durationMs)},`
    + `"db_ms":${e.dbMs === null ? 'null' : ms3(e.dbMs)},"bytes":${e.bytes === null ? 'null' : e.bytes},"trace_id":${e.traceId === null ? 'null' : `"${e.traceId}"`}}\n`;
}

// The encoder copies bytes encoded before. A JavaScript loop costs some 15 instructions a byte, a
// native copy (TypedArray set) some 150 a call and, into shared memory, 6 a byte; so a line is a few
// large pieces, each encoded once: its start up to the id (once per millisecond), the fields from
// the method to `"duration_ms":` (once per route, method, status, code and role), and the numbers
// after them, digit by digit. Per line, counted by callgrind in a loop of 100,000 (W1's line):
// 4,112 instructions, against 5,375 to build the string and write it into the ring as UTF-8.
const TIME_AT = INFO_HEAD.length; // where the time starts in the info head (the error head: +1)
const AFTER_TIME = '","name":"dbrest","event":"request","id":"';
const infoHead = Buffer.from(`${INFO_HEAD}${'0'.repeat(24)}${AFTER_TIME}`, 'latin1');
const errorHead = Buffer.from(`${ERROR_HEAD}${'0'.repeat(24)}${AFTER_TIME}`, 'latin1');
let headsMs = -1; // the millisecond whose time the heads hold

/** The info or error head (`{"level":…,"time":"…","name":"dbrest","event":"request","id":"`) of now. */
function head(error: boolean): Buffer | null {
  const time = isoNow();
  if (headsMs !== isoMs) {
    if (time.length !== 24) return null; // past year 9999
    headsMs = isoMs;
    for (let i = 0; i < 24; i++) {
      const c = time.charCodeAt(i);
      infoHead[TIME_AT + i] = c;
      errorHead[TIME_AT + 1 + i] = c;
    }
  }
  return error ? errorHead : infoHead;
}

interface Middle {
  readonly method: string;
  readonly status: number;
  readonly code: string | null;
  readonly role: string | null;
  /** `","method":"GET","route":"/films","status":200,"code":null,"role":"anon","duration_ms":` */
  readonly bytes: Buffer;
}
// By route, the few (method, status, code, role) its requests had, most recent last.
const middles = new Map<string, Middle[]>();
const MIDDLES_PER_ROUTE = 8;

function middle(e: AccessEvent): Buffer {
  let seen = middles.get(e.route);
  if (seen === undefined) {
    if (middles.size >= MEMO_MAX) middles.clear();
    middles.set(e.route, (seen = []));
  }
  for (let i = seen.length - 1; i >= 0; i--) {
    const m = seen[i]!;
    if (m.method === e.method && m.status === e.status && m.code === e.code && m.role === e.role) return m.bytes;
  }
  const text = `","method":"${e.method}","route":${quoted(e.route)},"status":${e.status},"code":${str(e.code)},"role":${quoted(e.role)},"duration_ms":`;
  const m: Middle = { method: e.method, status: e.status, code: e.code, role: e.role, bytes: Buffer.from(text) };
  if (seen.length >= MIDDLES_PER_ROUTE) seen.shift();
  seen.push(m);
  return m.bytes;
}

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');
const AFTER_DURATION = bytes(',"db_ms":');
const AFTER_DB = bytes(',"bytes":');
const AFTER_BYTES = bytes(',"trace_id":');
const NULL_END = bytes('null}\n');
const END = bytes('}\n');
const NULL_BYTES = bytes('null');
// The constant parts and the numbers (each at most 24 bytes as String writes them).
const FIXED_BYTES = errorHead.length + AFTER_DURATION.length + AFTER_DB.length + AFTER_BYTES.length + NULL_END.length + 3 * 24 + 2;
const MIDDLE_FIXED = '","method":"","route":"","status":,"code":"","role":"","duration_ms":'.length;

/** An upper bound on the bytes of `e`'s line, for a caller that reserves room before encoding. */
export function accessLineBound(e: AccessEvent): number {
  // A UTF-16 unit takes at most 3 bytes in UTF-8, 6 when JSON writes it as \uXXXX.
  const names = e.method.length + e.route.length + (e.role === null ? 4 : e.role.length) + (e.code === null ? 4 : e.code.length);
  return FIXED_BYTES + MIDDLE_FIXED + 24 /* status */ + e.id.length + 6 * names + (e.traceId === null ? 0 : e.traceId.length + 2);
}

/** Copies `src` into `buf` at `at`; returns the end. A loop for short parts: set() costs a builtin's call. */
function put(buf: Buffer, at: number, src: Uint8Array): number {
  const n = src.length;
  if (n > 16) buf.set(src, at);
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
  const start = head(e.status >= 500);
  if (start === null) return -1;
  at = put(buf, at, start);
  if ((at = putAscii(buf, at, e.id)) < 0) return -1;
  at = put(buf, at, middle(e));
  at = putMs(buf, at, e.durationMs);
  at = put(buf, at, AFTER_DURATION);
  at = e.dbMs === null ? put(buf, at, NULL_BYTES) : putMs(buf, at, e.dbMs);
  at = put(buf, at, AFTER_DB);
  at = e.bytes === null ? put(buf, at, NULL_BYTES) : putNumber(buf, at, e.bytes);
  at = put(buf, at, AFTER_BYTES);
  if (e.traceId === null) return put(buf, at, NULL_END);
  buf[at++] = 34; // "
  if ((at = putAscii(buf, at, e.traceId)) < 0) return -1;
  buf[at++] = 34;
  return put(buf, at, END);
}
