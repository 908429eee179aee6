// The memory a line batch (line-batch.ts) shares with its writer thread (line-writer.ts): a ring of
// bytes and two counters of bytes, both wrapping at 2^32: PUT, advanced by the main thread once it has
// copied lines in, and TAKEN, advanced by whoever wrote them out (the writer thread; the main thread
// itself should that thread be gone). The bytes between them are waiting; the ring's size is a power
// of two, so a counter masked is a position in it.
import { writeSync } from 'node:fs';

export const PUT = 0;
export const TAKEN = 1;

export interface WriterData {
  readonly fd: number;
  readonly ring: SharedArrayBuffer;
  /** Int32 PUT and TAKEN. */
  readonly control: SharedArrayBuffer;
}

export interface RingWriter {
  readonly fd: number;
  readonly ring: Buffer;
  readonly counters: Int32Array;
  /** The descriptor is gone (EPIPE, EBADF): what waits is discarded. */
  gone: boolean;
}

/**
 * One write(2) of what waits in the ring (up to its end, where it wraps): 'empty' when nothing
 * waits, 'busy' when the descriptor takes nothing for now (EAGAIN on a full non-blocking pipe).
 */
export function writeFromRing(w: RingWriter): 'empty' | 'busy' | 'wrote' {
  const put = Atomics.load(w.counters, PUT);
  const taken = Atomics.load(w.counters, TAKEN);
  if (put === taken) return 'empty';
  const start = taken & (w.ring.length - 1);
  const length = Math.min((put - taken) | 0, w.ring.length - start);
  let written = length;
  if (!w.gone) {
    try {
      written = writeSync(w.fd, w.ring, start, length);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return 'busy';
      w.gone = true;
    }
  }
  Atomics.store(w.counters, TAKEN, (taken + written) | 0);
  Atomics.notify(w.counters, TAKEN);
  return 'wrote';
}
