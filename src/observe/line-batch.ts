// Log lines to a file descriptor, written by a thread of their own (line-writer.ts): each line is
// encoded straight into a ring of shared memory (line-ring.ts), and the writer thread, which looks
// every few ms, writes whatever has gathered with one write(2). The thread that answers requests only
// formats and encodes. Share of the main thread's busy time under json-log's access() in a
// --cpu-prof of the server under W1's load: 4.5 % when it wrote 16 KiB batches itself; 5.2 % when it
// handed them to the writer with a wake-up each (on 2 cores the woken writer took the CPU from it);
// 2.9 % with the writer looking on its own, batches copied in; 3.2 % with each line encoded in place,
// as now (one copy fewer; the two within a run's noise). What is left is written at exit (a crash's
// included) and on flush(); neither waits for more than STALLED_MS.
// (Before those: lines through pino's sonic-boom, an asynchronous fs.write per batch.)
// A reader that stops must not grow the server's memory without end: what the ring cannot take waits
// in a queue up to MAX_QUEUED_BYTES (ring included); past it new lines are dropped, counted, and a
// notice of how many were lost follows once the reader has taken the rest.
import { Worker } from 'node:worker_threads';
import { PUT, TAKEN, writeFromRing, type RingWriter, type WriterData } from './line-ring.js';

/** How often lines waiting on this side (a lagging reader's queue, a drop notice) are handed over. */
export const BATCH_MS = 100;
// flush() and exit wait at most this long for a reader that does not take the lines.
const STALLED_MS = 2000;
/** Encoded bytes kept for a reader that lags (the ring's and the queue's); more are dropped. */
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;
// The ring: what the writer thread can take without the main thread's help. Its pages are touched
// as the ring goes round, so it stays small; the queue holds the rest of a long lag.
const RING_BYTES = 4 * 1024 * 1024;

export interface LineBatch {
  /** One or more whole lines, each ending with its newline. */
  write(lines: string): void;
  /**
   * Encodes one or more whole lines straight into the ring: `encode(ring, at, value)` writes at most
   * `maxBytes` from `at` and returns the end, or -1 to give up. False when it gave up or there was
   * no room in one piece (the ring's end, a queue waiting): then the caller writes a string instead.
   */
  writeEncoded<T>(maxBytes: number, encode: (ring: Buffer, at: number, value: T) => number, value: T): boolean;
  /** Hands over what is waiting and waits until it is written (at most STALLED_MS). */
  flush(): void;
  /** Settles once the writer thread runs (until then lines wait in the ring and the queue). */
  readonly ready: Promise<void>;
}

/** The largest power of two at most n (n ≥ 1). */
const powerOfTwoAtMost = (n: number): number => 2 ** Math.floor(Math.log2(n));

/**
 * `dropNotice(n)`: the line (with its newline) that tells the reader `n` lines were dropped;
 * `maxQueuedBytes`: how much waits for a lagging reader before lines are dropped.
 */
export function lineBatch(fd: number, dropNotice: (lines: number) => string, maxQueuedBytes = MAX_QUEUED_BYTES): LineBatch {
  // At most half the bound, so that the queue, which waits on this side, can hold the other half.
  const ring = Buffer.from(new SharedArrayBuffer(powerOfTwoAtMost(Math.min(RING_BYTES, maxQueuedBytes / 2))));
  const control = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const counters = new Int32Array(control);
  // Not the process's flags (a preloaded --import such as a tracing SDK): the thread only writes.
  const writer = new Worker(new URL('./line-writer.js', import.meta.url), { workerData: { fd, ring: ring.buffer, control } satisfies WriterData, execArgv: [] });
  // Should the thread fail to start or stop, this thread writes the ring out itself at each hand-over,
  // as the writer thread would (without waiting on a full pipe: what is left waits for the next).
  let self: RingWriter | null = null;
  const takeOver = () => {
    self ??= { fd, ring, counters, gone: false };
  };
  writer.once('error', takeOver);
  writer.once('exit', takeOver);
  // Kept referenced until it writes (a process with nothing else to do would exit before), then it
  // never keeps the process alive: exit flushes.
  const ready = new Promise<void>((resolve) => {
    const started = () => {
      writer.unref();
      resolve();
    };
    writer.once('message', started);
    writer.once('error', started);
  });
  const mask = ring.length - 1;
  const maxQueue = maxQueuedBytes - ring.length;
  const wakeAt = ring.length / 4;

  // Bytes the ring could not take yet, copied out, oldest first.
  const queue: Buffer[] = [];
  let queuedBytes = 0;
  let dropped = 0;

  // PUT is only ever written here, so this thread reads its own copy (one atomic load a line, not three).
  let putAt = 0;
  const advance = (n: number): void => {
    putAt = (putAt + n) | 0;
    Atomics.store(counters, PUT, putAt);
  };
  const waiting = (): number => (putAt - Atomics.load(counters, TAKEN)) | 0;

  /** Copies as much of `b` as the ring has room for (wrapping round); returns how much. */
  const put = (b: Buffer): number => {
    const n = Math.min(b.length, ring.length - waiting());
    if (n <= 0) return 0;
    const start = putAt & mask;
    const first = Math.min(n, ring.length - start);
    b.copy(ring, start, 0, first);
    if (first < n) b.copy(ring, 0, first, n);
    advance(n);
    return n;
  };

  /** Hands the queue (and a drop notice) to the writer thread; true when nothing is left on this side. */
  const handOver = (): boolean => {
    while (queue.length > 0) {
      const head = queue[0]!;
      const n = put(head);
      queuedBytes -= n;
      if (n < head.length) {
        queue[0] = head.subarray(n);
        break;
      }
      queue.shift();
    }
    // The reader has been given everything kept: now it learns how much was not.
    if (queue.length === 0 && dropped > 0) {
      const notice = Buffer.from(dropNotice(dropped));
      // Whole or not yet (the next hand-over tries again).
      if (ring.length - waiting() >= notice.length) {
        put(notice);
        dropped = 0;
      }
    }
    if (self !== null) while (writeFromRing(self) === 'wrote');
    return queue.length === 0;
  };

  const flush = (): void => {
    const until = Date.now() + STALLED_MS;
    for (;;) {
      const handed = handOver();
      Atomics.notify(counters, PUT);
      if (handed && waiting() === 0) return;
      const now = Date.now();
      if (now >= until) return;
      Atomics.wait(counters, TAKEN, Atomics.load(counters, TAKEN), Math.min(5, until - now));
    }
  };

  setInterval(handOver, BATCH_MS).unref();
  process.on('exit', flush);

  /** Ring bytes `before` waited, `n` more now do: past a quarter full, the writer is woken (a burst faster than its look). */
  const added = (before: number, n: number): void => {
    advance(n);
    if (before < wakeAt && before + n >= wakeAt) Atomics.notify(counters, PUT);
  };

  return {
    write(lines) {
      if (queue.length === 0) {
        // Encoded in place when it surely fits before the ring's end (UTF-8 takes at most 3 bytes
        // per UTF-16 unit), as nearly every line does.
        const start = putAt & mask;
        const bound = 3 * lines.length;
        const before = waiting();
        if (bound <= ring.length - start && bound <= ring.length - before) {
          added(before, ring.write(lines, start));
          return;
        }
      }
      // Round the ring's end, or behind a queue: copied (wrapping) or queued as its own bytes.
      const b = Buffer.from(lines);
      const n = queue.length === 0 ? put(b) : 0;
      if (n === b.length) return;
      const rest = b.subarray(n);
      if (queuedBytes + rest.length <= maxQueue) {
        queue.push(rest);
        queuedBytes += rest.length;
      } else dropped += countLines(rest);
    },
    writeEncoded(maxBytes, encode, value) {
      if (queue.length !== 0) return false;
      const start = putAt & mask;
      const before = waiting();
      if (maxBytes > ring.length - start || maxBytes > ring.length - before) return false;
      const end = encode(ring, start, value);
      if (end < 0) return false;
      added(before, end - start);
      return true;
    },
    flush,
    ready,
  };
}

function countLines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++;
  return n;
}
