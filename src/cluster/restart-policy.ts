// When the cluster primary replaces a worker that exited, and when it stops trying. Pure.
//
// A worker that ran STABLE_MS or longer before exiting was serving: it is replaced after
// RESTART_INITIAL_MS. One that exits sooner (during its start, or soon after) is a crash in a row:
// each doubles the delay up to RESTART_MAX_MS, and the GIVE_UP_AFTER-th in a row stops `dbrest serve`
// (exit 1) instead of restarting forever against, say, a database that refuses every connection.

export const STABLE_MS = 10_000;
export const RESTART_INITIAL_MS = 250;
export const RESTART_MAX_MS = 8_000;
export const GIVE_UP_AFTER = 5;

export type RestartDecision =
  | { readonly giveUp: false; readonly crashesInARow: number; readonly delayMs: number }
  | { readonly giveUp: true; readonly crashesInARow: number };

/** `crashesInARow`: quick exits so far; `livedMs`: how long the worker that just exited ran. */
export function onWorkerExit(crashesInARow: number, livedMs: number): RestartDecision {
  const inARow = livedMs >= STABLE_MS ? 1 : crashesInARow + 1;
  if (inARow >= GIVE_UP_AFTER) return { giveUp: true, crashesInARow: inARow };
  return { giveUp: false, crashesInARow: inARow, delayMs: Math.min(RESTART_INITIAL_MS * 2 ** (inARow - 1), RESTART_MAX_MS) };
}
