// Log lines to a file descriptor in batches: each line is encoded as it comes into one reusable
// buffer, which is written with one write(2) once BATCH_BYTES have gathered or BATCH_MS have passed,
// and on flush() and at exit (a crash's included). Each line used to pass through pino's sonic-boom
// (an asynchronous fs.write per batch, the batch grown by string concatenation); then lines were
// kept as strings, joined and copied into a new Buffer per batch: under W1's load that garbage cost
// the collector about as much as the writes (a --cpu-prof of both on against both off).
// The write is synchronous, as Node's own process.stderr is on a pipe, but never waits: when the
// reader is behind (EAGAIN) or took part of a batch, the rest is copied aside and tried again with
// the next batch or at the next tick; only flush() and exit wait for it (as sonic-boom's exit flush
// did), a bounded time. A reader that stops for good must not grow the server's memory without end:
// past MAX_QUEUED_BYTES new batches are dropped, counted, and a notice of how many lines were lost
// is written once the reader has taken the rest.
import { writeSync } from 'node:fs';

/** Bytes of encoded lines that make a batch worth a write. */
export const BATCH_BYTES = 16 * 1024;
/** The longest a line waits on a quiet server. */
export const BATCH_MS = 100;
// flush() and exit wait at most this long for a reader that does not take the lines.
const STALLED_MS = 2000;
/** Encoded bytes kept for a reader that lags; more are dropped. */
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;
// The reused buffer: a batch and room for the line that completes it. A line that might not fit
// (UTF-8 takes at most 3 bytes per UTF-16 unit) is encoded on its own.
const BUFFER_BYTES = 4 * BATCH_BYTES;

export interface LineBatch {
  /** One or more whole lines, each ending with its newline. */
  write(lines: string): void;
  /** Writes what is waiting, retrying while the reader is behind (at most STALLED_MS). */
  flush(): void;
}

/**
 * `dropNotice(n)`: the line (with its newline) that tells the reader `n` lines were dropped;
 * `maxQueuedBytes`: how much waits for a lagging reader before lines are dropped.
 */
export function lineBatch(fd: number, dropNotice: (lines: number) => string, maxQueuedBytes = MAX_QUEUED_BYTES): LineBatch {
  const buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  let used = 0;
  // Bytes the reader has not taken yet (EAGAIN or a partial write), copied out, oldest first.
  const queue: Buffer[] = [];
  let queuedBytes = 0;
  let dropped = 0;
  let closed = false;

  const enqueue = (b: Buffer): void => {
    queue.push(b);
    queuedBytes += b.length;
  };

  /** Bytes of `b` written now (0 when the reader is behind); all of it once the fd is gone. */
  const writeNow = (b: Buffer): number => {
    if (closed) return b.length;
    try {
      return writeSync(fd, b);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return 0;
      closed = true; // stderr closed (EPIPE, EBADF): nowhere to write them.
      return b.length;
    }
  };

  /**
   * A batch goes after those waiting, or is written at once when none waits; what the reader does
   * not take is copied aside (`owned`: b is already a copy), or dropped past the bound.
   */
  const send = (b: Buffer, owned: boolean): void => {
    const n = queue.length === 0 ? writeNow(b) : 0;
    if (n === b.length) return;
    const rest = b.subarray(n);
    if (queuedBytes + rest.length <= maxQueuedBytes) enqueue(owned ? rest : Buffer.from(rest));
    else dropped += countLines(rest);
  };

  /** Writes what it can without waiting; true when nothing is left. */
  const drain = (): boolean => {
    if (used > 0) {
      send(buffer.subarray(0, used), false);
      used = 0;
    }
    for (;;) {
      while (queue.length > 0) {
        const head = queue[0]!;
        const n = writeNow(head);
        queuedBytes -= n;
        if (n < head.length) {
          queue[0] = head.subarray(n);
          return false;
        }
        queue.shift();
      }
      if (dropped === 0) return true;
      // The reader has taken everything kept: now it learns how much was not.
      enqueue(Buffer.from(dropNotice(dropped)));
      dropped = 0;
    }
  };

  const flush = (): void => {
    const until = Date.now() + STALLED_MS;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (!drain() && Date.now() < until) Atomics.wait(pause, 0, 0, 5);
  };

  setInterval(drain, BATCH_MS).unref();
  process.on('exit', flush);

  return {
    write(lines) {
      if (used + 3 * lines.length > BUFFER_BYTES) {
        drain();
        if (3 * lines.length > BUFFER_BYTES) {
          send(Buffer.from(lines), true);
          return;
        }
      }
      used += buffer.write(lines, used);
      // While the reader lags, each further BATCH_BYTES of lines tries again (not every line): a
      // pipe that took part of a batch may take the rest long before the next tick.
      if (used >= BATCH_BYTES) drain();
    },
    flush,
  };
}

function countLines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++;
  return n;
}
