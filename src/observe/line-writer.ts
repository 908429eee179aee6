// The thread that writes a line batch's ring (line-batch.ts, line-ring.ts) to its file descriptor, so
// that the write(2) calls, and any wait on a reader that lags, happen off the thread that answers
// requests. It sleeps while the ring is empty, and retries a few ms later while the descriptor takes
// nothing (EAGAIN: a non-blocking pipe that is full).
import { parentPort, workerData } from 'node:worker_threads';
import { PUT, writeFromRing, type RingWriter, type WriterData } from './line-ring.js';

const data = workerData as WriterData;
const writer: RingWriter = { fd: data.fd, ring: Buffer.from(data.ring), counters: new Int32Array(data.control), gone: false };
const pause = new Int32Array(new SharedArrayBuffer(4));
// How often it looks for lines when none were there: a few batches' worth at a busy server's pace.
const POLL_MS = 20;

// Loaded and about to write ('online' comes before the module has even been read).
parentPort!.postMessage('ready');

for (;;) {
  const done = writeFromRing(writer);
  // Woken by its own clock, not by the main thread per batch: on few cores a woken thread took the
  // CPU from the one that woke it, which then waited out the write it had handed over (a --cpu-prof
  // of W1 put 169 of 9,593 ms of the main thread in the wake-ups). flush() wakes it at once.
  if (done === 'empty') Atomics.wait(writer.counters, PUT, Atomics.load(writer.counters, PUT), POLL_MS);
  else if (done === 'busy') Atomics.wait(pause, 0, 0, 5);
}
