// Cleanup for the bench scripts: every resource registers its release; they run once, in reverse
// order, on every exit path (the end of the run, an error, SIGINT/SIGTERM, a watchdog).

export interface ExitCleanup {
  /** Registers a release; the last registered runs first. */
  add(fn: () => Promise<void> | void): void;
  /** Runs every release once (later calls get the same promise). */
  run(): Promise<void>;
  /** Logs the reason, cleans up, and exits with `code`. */
  abort(reason: string, code: number): void;
}

/** `first` runs before the releases (e.g. stopping a load generator). Installs SIGINT/SIGTERM handlers. */
export function exitCleanup(log: (m: string) => void, first: () => void = () => undefined): ExitCleanup {
  const releases: Array<() => Promise<void> | void> = [];
  let cleaning: Promise<void> | null = null;
  const run = (): Promise<void> =>
    (cleaning ??= (async () => {
      first();
      for (const fn of releases.splice(0).reverse()) {
        try {
          await fn();
        } catch (e) {
          log(`cleanup: ${(e as Error).message}`);
        }
      }
    })());
  const abort = (reason: string, code: number): void => {
    log(`\n${reason}: stopping…`);
    void run().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => abort('SIGINT', 130));
  process.once('SIGTERM', () => abort('SIGTERM', 143));
  return { add: (fn) => releases.push(fn), run, abort };
}
