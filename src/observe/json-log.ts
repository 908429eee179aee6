// log-format=json: JSON lines through pino, one object per line. The same Logger as the text format
// (log.ts) plus `access` (one event per request, written at info as the text access line is) and
// `event` (lifecycle events with a name and fields). Callers pass names, codes and counts only;
// `redact` is a second guard should a header object ever be handed to it (access lines skip pino,
// access-line.ts writes them: their fields are fixed by AccessEvent, which holds no header;
// redaction walked every line).
// Lines go to stderr through line-batch.ts: a writer thread writes what has gathered every 20 ms with
// one write(2), not one per request. What waits is written at exit (a crash's included); serve
// flushes it (flush) before a line of its own and on shutdown.
import cluster from 'node:cluster';
import pino from 'pino';
import type { LogLevel } from '../config/types.js';
import type { AccessEvent } from './access.js';
import { accessLineBound, accessLineText, encodeAccessLine, isoNow } from './access-line.js';
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
      if (rank[level] < (e.status >= 500 ? rank.error : rank.info)) return;
      // Encoded straight into the batch's ring when it has room; else (tests, workers, a full ring) as a string.
      if (batch === null || !batch.writeEncoded(accessLineBound(e), encodeAccessLine, e)) out.write(accessLineText(e));
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
