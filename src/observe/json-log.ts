// log-format=json: JSON lines through pino, one object per line. The same Logger as the text format
// (log.ts) plus `access` (one event per request, written at info as the text access line is) and
// `event` (lifecycle events with a name and fields). Callers pass names, codes and counts only;
// `redact` is a second guard should a header object ever be handed to it (access lines skip pino:
// their fields are fixed by AccessEvent, which holds no header; redaction walked every line).
// Lines go to stderr through line-batch.ts: a writer thread writes what has gathered every 20 ms with
// one write(2), not one per request. What waits is written at exit (a crash's included); serve
// flushes it (flush) before a line of its own and on shutdown.
import cluster from 'node:cluster';
import pino from 'pino';
import type { LogLevel } from '../config/types.js';
import type { AccessEvent } from './access.js';
import { lineBatch, type LineBatch } from './line-batch.js';
import type { Logger } from './log.js';

export interface StructuredLogger extends Logger {
  access(e: AccessEvent): void;
  event(name: string, fields: Readonly<Record<string, unknown>>, level?: 'info' | 'warn' | 'error'): void;
  /** Writes out the lines still buffered (before a direct stderr line or the exit code). */
  flush(): void;
}

export function isStructured(log: Logger): log is StructuredLogger {
  return typeof (log as Partial<StructuredLogger>).access === 'function';
}

const PINO_LEVEL: Record<LogLevel, pino.Level> = { crit: 'fatal', error: 'error', warn: 'warn', info: 'info', debug: 'debug' };
const rank: Record<LogLevel, number> = { crit: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** Tests pass `write` to collect lines (without their newline); serve writes to stderr. */
export function createJsonLogger(level: LogLevel, write?: (line: string) => void): StructuredLogger {
  const options = (at: pino.Level): pino.LoggerOptions => ({
      level: at,
      base: { name: 'dbrest' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: ['authorization', 'cookie', 'password', 'secret', 'token', '*.authorization', '*.cookie', '*.password', '*.secret', '*.token'], censor: '********' },
  });
  // pino writes each line whole, with its newline; `write` takes it without. A cluster worker shares
  // its stderr with the others: one write per line keeps lines whole there (a pipe write up to 4 KiB
  // is atomic; a batch of lines is not and could interleave with another worker's).
  const batch: LineBatch | null = write === undefined && !cluster.isWorker ? lineBatch(2, droppedLinesLine) : null;
  const out: pino.DestinationStream = write !== undefined
    ? { write: (s: string) => write(s.endsWith('\n') ? s.slice(0, -1) : s) }
    : batch ?? { write: (s: string) => process.stderr.write(s) };
  const p = pino(options(PINO_LEVEL[level]), out);
  // Lifecycle events are written at info whatever the log-level, as the text format's CLI lines are.
  const lifecycle = level === 'debug' ? p : pino(options('info'), out);
  return {
    level,
    error: (msg) => p.error(msg),
    warn: (msg) => p.warn(msg),
    info: (msg) => p.info(msg),
    debug: (msg) => p.debug(msg),
    // At the configured level itself (log-query's SQL lines), so it shows at any log-level.
    atLevel: (msg) => p[PINO_LEVEL[level]](msg),
    enabled: (l) => rank[l] <= rank[level],
    access(e) {
      if (rank[level] >= (e.status >= 500 ? rank.error : rank.info)) out.write(accessLine(e));
    },
    event(name, fields, at = 'info') {
      lifecycle[at]({ event: name, ...fields });
    },
    flush() {
      batch?.flush();
    },
  };
}

/** The event written once a reader that stopped taking lines (see line-batch.ts) has caught up. */
const droppedLinesLine = (lines: number): string =>
  `{"level":"warn","time":"${isoNow()}","name":"dbrest","event":"log_lines_dropped","lines":${lines}}\n`;

// A busy server answers several requests per millisecond: their lines share one formatted time,
// and the lines of one second share its date and time up to the milliseconds.
let isoMs = 0;
let iso = '';
let secondStart = 0;
let secondIso = ''; // "2026-11-27T10:20:00."
const MILLIS_Z = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, '0')}Z`);
function isoNow(): string {
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
 * instructions as the rest of the line's numbers and strings together (observe-callgrind.ts).
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
const QUOTED_MAX = 4096;
const quotedNames = new Map<string, string>();
function quoted(v: string | null): string {
  if (v === null) return 'null';
  let q = quotedNames.get(v);
  if (q === undefined) {
    if (quotedNames.size >= QUOTED_MAX) quotedNames.clear();
    quotedNames.set(v, (q = JSON.stringify(v)));
  }
  return q;
}

const INFO_HEAD = '{"level":"info","time":"';
const ERROR_HEAD = '{"level":"error","time":"';

/**
 * A request's line as pino writes the other lines (same keys in the same order: level, time, name,
 * then the event's), built in one template: its fields are fixed by AccessEvent, so pino's generic
 * path (level formatter, bindings, a walk over the keys escaping each value) is not needed. The id
 * (ours), the method (a token, by Node's HTTP parser) and the trace id (hex, by traceIdOf) need no
 * escaping; an error code may be any text a function raised (PostgREST's `PGRST` raise), so it is.
 */
function accessLine(e: AccessEvent): string {
  return `${e.status >= 500 ? ERROR_HEAD : INFO_HEAD}${isoNow()}","name":"dbrest","event":"request","id":"${e.id}","method":"${e.method}",`
    + `"route":${quoted(e.route)},"status":${e.status},"code":${str(e.code)},"role":${quoted(e.role)},"duration_ms":${ms3(e.durationMs)},`
    + `"db_ms":${e.dbMs === null ? 'null' : ms3(e.dbMs)},"bytes":${e.bytes === null ? 'null' : e.bytes},"trace_id":${e.traceId === null ? 'null' : `"${e.traceId}"`}}\n`;
}
