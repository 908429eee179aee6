// When may a request's batch be pipelined onto a connection that is already running batches
// (db/leases.ts)? Sharing a connection saves writes and backend wake-ups, but a batch behind a slow
// one waits for it. So sharing is judged by measured batch times per statement class (the request's
// shape): a class is "fast" once it has a few samples, a low moving average and no recent slow
// sample. Batches of fast classes stack up to a depth (deeper for a database on this machine with
// few cores: LOCAL_SHARE_POLICY) while those ahead usually take a few ms at most altogether; any
// batch not known fast (unknown, slow, or recently slow) shares its connection with at most one
// other batch, so a slow statement holds up at most one other request. A head batch running longer
// than its class's usual time stops all joining, however it was judged.
//
// Pure: the caller records times and asks; nothing here reads a clock.

export interface SharePolicyOptions {
  /** A class whose moving average of batch times is at most this is fast (ms). */
  readonly fastMs: number;
  /**
   * One batch slower than this marks its class not fast for the next `slowMemory` samples (ms).
   * Well above what a busy event loop adds to every batch (tens of ms under overload on 2 cores).
   */
  readonly slowMs: number;
  readonly slowMemory: number;
  /** Samples a class needs before it can be judged fast. */
  readonly minSamples: number;
  /** Weight of a new sample in the moving average. */
  readonly alpha: number;
  /** Batches in flight at most on a connection of fast batches: with a free connection / without. */
  readonly firstDepth: number;
  readonly maxDepth: number;
  /** Batches in flight at most on a connection with any batch not known fast. */
  readonly guardedDepth: number;
  /**
   * A batch joins only while the usual answer sizes of the batches on the connection, its own
   * included, add up to at most this (bytes). Building and sending an answer costs the backend CPU
   * in proportion to its size, and on a busy machine a backend kept busy with a long run of batches
   * loses the CPU to others while every batch of the run waits with it: batches with small answers
   * stack several deep, those with big ones do not stack.
   */
  readonly maxAheadBytes: number;
  /**
   * A fast batch joins fast batches only while their usual times (moving averages) add up to at most
   * this (ms): what it will wait for. A class that is fast by `fastMs` but takes a few ms does not
   * stack as deep as one that takes tens of µs.
   */
  readonly maxAheadMs: number;
  /**
   * Connections at most that run batches of fast classes at once; a fast batch that can join none
   * then waits for one of them instead of taking another from the pool (Infinity: no bound).
   * Batches not known fast are not bounded by it, so a slow statement never keeps a fast one waiting.
   */
  readonly maxFastConnections: number;
  /** With a free connection, a head batch serving longer than this takes no company (ms). */
  readonly firstMs: number;
  /** Without: a head batch serving longer than `stallFactor` × its class average (within the bounds) takes none (ms). */
  readonly stallFactor: number;
  readonly stallMinMs: number;
  readonly stallMaxMs: number;
  /**
   * A read-only batch held up by a stalled head (or a stalled head of a fast class) is also run on
   * another connection (db/leases.ts, hedging) once the head has been served longer than
   * `hedgeFactor` × its class average within these bounds (ms); a head not known fast gets `hedgeMinMs`.
   */
  readonly hedgeFactor: number;
  readonly hedgeMinMs: number;
  readonly hedgeMaxMs: number;
  /** Classes remembered at most (the statistics are dropped when this is passed). */
  readonly maxClasses: number;
}

export const DEFAULT_SHARE_POLICY: SharePolicyOptions = {
  fastMs: 10,
  slowMs: 100,
  slowMemory: 64,
  minSamples: 3,
  alpha: 0.1,
  // As deep as with every connection busy: on 2 cores, fewer busy backends beat spreading (bench
  // W1/W4/W5, two runs each: W4 p99 ratio 1.50/1.40 against 1.43/1.67 at depth 4).
  firstDepth: 8,
  maxDepth: 8,
  guardedDepth: 2,
  maxAheadBytes: 8 * 1024,
  maxAheadMs: 8,
  maxFastConnections: Infinity,
  firstMs: 2,
  stallFactor: 4,
  stallMinMs: 2,
  stallMaxMs: 20,
  hedgeFactor: 8,
  hedgeMinMs: 20,
  hedgeMaxMs: 40,
  maxClasses: 10_000,
};

/**
 * For a PostgreSQL on this machine with few cores (db/locality.ts). Every backend woken to run a
 * batch then competes with dbrest itself for the same cores, and a long pipeline on one backend
 * beats the same batches spread over several: no wake-up per batch, and the backend keeps its cache.
 * Under load (W4, 2 cores) a pipelined insert kept its connection 0.03 ms at depth 32 on one
 * connection, 0.17 ms at depth 8 over two to four. `BENCH_CASES=W1,W2,W3,W4,W5 node
 * dist/test/bench/run.js`, req/s ratio to the floor: at depth 8 (three runs) W1 1.30–1.39, W4
 * 0.81–0.99 (p99 ratio up to 1.72), W5 0.94–0.97; with this policy W1 1.37, W4 1.08, W5 1.15 with
 * p99 ratios 0.85–1.04. W2 and W3 stack little either way (big answers: maxAheadBytes).
 * A stalled head stops joining and hedges reads as before; `maxAheadMs` bounds the wait.
 * db/locality.ts's sharePolicyFor adds `maxFastConnections` from the machine's cores.
 */
export const LOCAL_SHARE_POLICY: SharePolicyOptions = {
  ...DEFAULT_SHARE_POLICY,
  firstDepth: 32,
  maxDepth: 32,
};

interface ClassStats {
  samples: number;
  ewma: number;
  /** Samples recorded since the last slow one (Infinity when none was slow). */
  sinceSlow: number;
  /** Moving average of its answers' sizes (bytes). */
  bytes: number;
}

/** What a caller knows of one busy connection at the moment of choosing. */
export interface ConnectionState {
  /** Batches in flight. */
  readonly depth: number;
  /** How long its head batch has been served (since it was sent or its predecessor answered), ms. */
  readonly headServingMs: number;
  /** Class of the head batch (null when unknown). */
  readonly headClass: string | null;
  /** Batches in flight that were not known fast when they joined. */
  readonly guarded: number;
  /** The usual answer sizes (SharePolicy.size) of the batches in flight, added up (bytes). */
  readonly aheadBytes: number;
  /** The usual times (SharePolicy.average) of the batches in flight, added up (ms). */
  readonly aheadMs: number;
  /** Batches in flight that commit a write (their commit waits for its WAL flush). */
  readonly writes: number;
}

export class SharePolicy {
  private readonly stats = new Map<string, ClassStats>();

  constructor(readonly options: SharePolicyOptions = DEFAULT_SHARE_POLICY) {}

  /** A batch of `key` took `ms` from reaching the head of its connection to its answer of `bytes`. */
  record(key: string | null, ms: number, bytes = 0): void {
    if (key === null) return;
    let s = this.stats.get(key);
    if (!s) {
      if (this.stats.size >= this.options.maxClasses) this.stats.clear();
      s = { samples: 0, ewma: ms, sinceSlow: Infinity, bytes };
      this.stats.set(key, s);
    }
    s.ewma = s.samples === 0 ? ms : s.ewma + this.options.alpha * (ms - s.ewma);
    s.bytes = s.samples === 0 ? bytes : s.bytes + this.options.alpha * (bytes - s.bytes);
    s.samples++;
    s.sinceSlow = ms > this.options.slowMs ? 0 : s.sinceSlow + 1;
  }

  /** Whether batches of this class are known to be fast. */
  fast(key: string | null): boolean {
    if (key === null) return false;
    const s = this.stats.get(key);
    const o = this.options;
    return !!s && s.samples >= o.minSamples && s.ewma <= o.fastMs && s.sinceSlow >= o.slowMemory;
  }

  /** The moving average of a class's answer sizes (bytes; 0 before its first sample). */
  size(key: string | null): number {
    return key === null ? 0 : (this.stats.get(key)?.bytes ?? 0);
  }

  /** The moving average of a class's batch times (undefined before its first sample). */
  average(key: string | null): number | undefined {
    return key === null ? undefined : this.stats.get(key)?.ewma;
  }

  /**
   * How long a head batch of class `key` may be served before the batches it holds up are run
   * elsewhere too (ms).
   */
  hedgeAfter(key: string | null): number {
    const o = this.options;
    const usual = this.fast(key) ? this.average(key) : undefined;
    return usual === undefined ? o.hedgeMinMs : Math.min(o.hedgeMaxMs, Math.max(o.hedgeMinMs, o.hedgeFactor * usual));
  }

  /**
   * Whether a batch (known fast or not) may join the connection. `freeConnection`: the pool could
   * give it one of its own at once, so only the cheapest sharing is worth it. `joiningWrites`: the
   * batch commits a write.
   */
  mayJoin(c: ConnectionState, joiningFast: boolean, freeConnection: boolean, joiningBytes = 0, joiningWrites = false): boolean {
    const o = this.options;
    if (c.depth === 0) return true;
    // While a connection is free, a write gets one of its own and nothing waits behind a write: a
    // commit waits for its WAL flush, and commits on one connection flush one after the other while
    // commits on several flush together (group commit). With none free, writes pipeline as reads do.
    if (freeConnection && (joiningWrites || c.writes > 0)) return false;
    if (c.aheadBytes + joiningBytes > o.maxAheadBytes) return false;
    const guarded = !joiningFast || c.guarded > 0;
    // Fast behind fast only while those ahead usually take little time altogether (a batch not
    // known fast is bounded by guardedDepth instead).
    if (!guarded && c.aheadMs > o.maxAheadMs) return false;
    if (freeConnection) {
      // Sharing is only an optimisation here: fast behind fast, while the head is fresh.
      return !guarded && c.depth < o.firstDepth && c.headServingMs <= o.firstMs;
    }
    if (c.depth >= (guarded ? o.guardedDepth : o.maxDepth)) return false;
    // A head not known fast gets the shortest patience: it may be the slow one.
    const usual = this.fast(c.headClass) ? this.average(c.headClass) : undefined;
    const stall = usual === undefined ? o.stallMinMs : Math.min(o.stallMaxMs, Math.max(o.stallMinMs, o.stallFactor * usual));
    return c.headServingMs <= stall;
  }
}
