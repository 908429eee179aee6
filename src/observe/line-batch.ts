// Log lines to a file descriptor in batches: a line is kept as the string it was built as, and the
// lines gathered are joined, encoded and written with one write(2) once BATCH_BYTES have gathered
// or BATCH_MS have passed, and on flush() and at exit (a crash's included). Each line used to pass
// through pino's sonic-boom: an asynchronous fs.write per batch (a thread-pool round trip), the
// batch grown by string concatenation and measured with Buffer.byteLength on every line, and
// copied again into a Buffer once written; this costs a busy server a push per line.
// The write is synchronous, as Node's own process.stderr is on a pipe, but never waits: when the
// reader is behind (EAGAIN) or took part of a batch, the rest is tried again with the next batch or
// at the next tick; only flush() and exit wait for it (as sonic-boom's exit flush did), a bounded time.
// A reader that stops for good must not grow the server's memory without end: past MAX_QUEUED_BYTES
// new batches are dropped, counted, and a notice of how many lines were lost is written once the
// reader has taken the rest.
import { writeSync } from 'node:fs';

/** Bytes (counted as UTF-16 units: lines are mostly ASCII) that make a batch worth a write. */
export const BATCH_BYTES = 16 * 1024;
/** The longest a line waits on a quiet server. */
export const BATCH_MS = 100;
// flush() and exit wait at most this long for a reader that does not take the lines.
const STALLED_MS = 2000;
/** Encoded bytes kept for a reader that lags; more are dropped. */
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

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
  let pending: string[] = [];
  let size = 0;
  // Batches encoded but not yet taken by the reader (EAGAIN or a partial write), oldest first.
  const queue: Buffer[] = [];
  let queuedBytes = 0;
  let dropped = 0;

  const enqueue = (b: Buffer): void => {
    queue.push(b);
    queuedBytes += b.length;
  };

  /** Writes what it can without waiting; true when nothing is left. */
  const drain = (): boolean => {
    if (pending.length > 0) {
      const b = Buffer.from(pending.length === 1 ? pending[0]! : pending.join(''));
      if (queuedBytes + b.length <= maxQueuedBytes) enqueue(b);
      else dropped += countLines(b);
      pending = [];
      size = 0;
    }
    while (queue.length > 0) {
      const head = queue[0]!;
      try {
        const n = writeSync(fd, head);
        queuedBytes -= n;
        if (n < head.length) queue[0] = head.subarray(n);
        else queue.shift();
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
        queue.length = 0; // stderr closed (EPIPE, EBADF): nowhere to write them.
        queuedBytes = 0;
      }
      if (queue.length === 0 && dropped > 0) {
        enqueue(Buffer.from(dropNotice(dropped)));
        dropped = 0;
      }
    }
    return true;
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
      pending.push(lines);
      size += lines.length;
      // While the reader lags, each further BATCH_BYTES of lines tries again (not every line): a
      // pipe that took part of a batch may take the rest long before the next tick.
      if (size >= BATCH_BYTES) drain();
    },
    flush,
  };
}

function countLines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++;
  return n;
}
