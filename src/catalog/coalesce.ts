// Coalesces a burst of events into one call: a migration's 100 DDL statements send 100 NOTIFYs (one
// per transaction), an editor's save fires several file events; either should cost one reload. `fire`
// runs once no event has come for `quietMs`, or `maxWaitMs` after the first of the burst (so a steady
// stream still reloads now and then), with the number of events it stands for.
export interface Coalescer {
  /** One more event. */
  add(): void;
  /** Drop a pending call (on close). */
  cancel(): void;
}

export function coalesce(fire: (count: number) => void, quietMs: number, maxWaitMs: number): Coalescer {
  let count = 0;
  let first = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    timer = null;
    const n = count;
    count = 0;
    if (n > 0) fire(n);
  };
  return {
    add() {
      const now = performance.now();
      if (count === 0) first = now;
      count++;
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(flush, Math.max(0, Math.min(quietMs, first + maxWaitMs - now)));
      timer.unref?.();
    },
    cancel() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      count = 0;
    },
  };
}
