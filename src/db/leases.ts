// Connections shared by pipelining. A request's batch goes behind the batches already running on
// a connection when those are fast, or, when every connection is busy, on the least busy connection
// that may take it instead of waiting for one to be released; otherwise it gets a connection of its
// own, as from any pool. Each batch ends in its own Sync, so it is still its own implicit
// transaction (an error in one batch ends at its Sync and touches no other), and batches written
// in the same tick leave in one write (db/batch.ts corks the socket). PostgreSQL answers them in
// order: fewer system calls and wake-ups on both sides per request.
//
// Which connection may be joined is db/share-policy.ts's call, from measured batch times per
// request class: a batch waits behind at most one batch not known to be fast, and a connection
// whose head batch runs longer than usual takes no more, so those requests wait for the pool as
// before (and get DBRST003 when db-pool-acquisition-timeout passes). Those that wait are served in
// the order they came, by a connection they may join or one of the pool's, whichever is first; a
// request that comes while others wait queues behind them instead of joining past them.
//
// For a database on this machine (db/locality.ts) fast batches also run on a bounded number of
// connections at once (SharePolicyOptions.maxFastConnections): one that can join none waits in line
// without asking the pool ("parked") until one of them is released. Batches not known fast are not
// bounded, so a slow statement never keeps a fast one waiting for the bound.
//
// Hedging: a batch, once sent, can only wait for the batches ahead of it, and on a busy machine a
// backend that loses the CPU for tens of ms holds up every batch behind it. So a batch whose caller
// said it may run twice (a read-only one: Lease.whenStalled) and that a head serving longer than
// SharePolicy.hedgeAfter holds up is handed back to its caller to be run on another connection too,
// first in line; the first answer wins (db/transaction.ts). The copy left behind still runs, and
// its lease ends as usual.
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { poolHost, sharePolicyFor } from './locality.js';
import { SharePolicy, type ConnectionState } from './share-policy.js';
import { opsCounters } from '../observe/counters.js';

export interface Lease {
  readonly client: pg.PoolClient;
  /**
   * Give the lease back; pass the error when the connection is broken (it is then discarded), or
   * the size of the answer (bytes) when the batch succeeded.
   */
  release(broken?: Error, bytes?: number): void;
  /**
   * No other batch joins this connection from now until it is released; true when this lease's
   * batch is the only one on it (db/cancel-watch.ts: only then may it be cancelled).
   */
  hold(): boolean;
  /** This lease's batch is the oldest in flight on its connection: the one PostgreSQL is running. */
  head(): boolean;
  /**
   * A cancel request is about to be sent for this lease's batch while other batches follow it on
   * the connection (db/cancel-watch.ts): the signal may land on one of them instead (if ours ends
   * first). Those are retried (hitByCancel), and the connection is discarded after its last batch,
   * so nothing of the cancel (a signal still pending) can reach a later request.
   */
  cancelWithOthers(): void;
  /** A cancel sent for another batch on this connection may have hit this one (see cancelWithOthers). */
  hitByCancel(): boolean;
  /**
   * Call `hedge` (once) if this batch is held up by a stalled head batch, or is a stalled head of a
   * class known fast: the caller may then run it on another connection too (hedged). Only for a
   * batch that may run twice: read-only, with nothing outside the database to repeat.
   */
  whenStalled(hedge: () => void): void;
}

/** A connection for a hedged batch (LeaseManager.hedge): null when abandoned before one came. */
export interface HedgeLease {
  readonly lease: Promise<Lease | null>;
  /** The other run answered first: leave the line if still in it. */
  abandon(): void;
}

interface InFlight {
  /** Request class (statement shape) of the batch; null when the caller gave none. */
  readonly key: string | null;
  /** When it was sent. */
  readonly started: number;
  /** It was not known fast when it joined. */
  readonly guarded: boolean;
  /** Its class's usual answer size when it joined (bytes). */
  readonly bytes: number;
  /** Its class's usual time when it joined (ms; 0 when not known). */
  readonly ms: number;
  /** It commits a write (SharePolicy.mayJoin). */
  readonly writes: boolean;
  /** Lease.whenStalled's callback, until called or released. */
  onStall?: (() => void) | undefined;
}

interface Shared {
  readonly client: pg.PoolClient;
  /** Batches in flight, oldest first (a connection answers in order). */
  readonly inFlight: InFlight[];
  /** When the previous batch was answered (the head has been served since then, or since it was sent). */
  lastDone: number;
  guarded: number;
  /** The usual answer sizes of its batches in flight, added up (bytes). */
  aheadBytes: number;
  /** The usual times of its batches in flight, added up (ms). */
  aheadMs: number;
  /** Its batches in flight that commit a write. */
  writes: number;
  broken: Error | null;
  held?: boolean;
  /** The batch a cancel request was sent for while others followed it (cancelWithOthers). */
  cancelled?: InFlight;
  /** When the pool gave the connection: it is handed on without the pool only for so long (handOn). */
  readonly fromPool: number;
}

/**
 * A connection whose last batch is answered goes straight to the next request in line instead of
 * back to the pool, for at most this long after the pool gave it (ms). The pool then sees it again,
 * so its lifetime (db-pool-max-lifetime) and other users of the pool are not put off for longer.
 */
const HAND_ON_MAX_MS = 1000;

/**
 * How long a batch has been served by its connection: since it was sent, or since the batch ahead
 * of it was answered (PostgreSQL answers in order, so before that it only waited).
 */
const servedMs = (s: Shared, b: InFlight, now: number): number => now - Math.max(b.started, s.lastDone);

/** One connection's state as the policy is asked about it, refilled for each (no object per look). */
const scratch: { -readonly [K in keyof ConnectionState]: ConnectionState[K] } = { depth: 0, headServingMs: 0, headClass: null, guarded: 0, aheadBytes: 0, aheadMs: 0, writes: 0 };

const CANCELLED_WITH_OTHERS = new Error('a cancel request was sent while other batches followed on this connection: it is not reused');

/** A request waiting for a connection (to join or of its own), first come first served. */
interface Waiter {
  readonly key: string | null;
  /** Its batch commits a write: never parked (see enqueue). */
  readonly writes: boolean;
  readonly resolve: (lease: Lease | null) => void;
  readonly reject: (e: Error) => void;
  served: boolean;
  /** Its class was known fast when it came (counts towards maxFastConnections once it asks the pool). */
  readonly fast: boolean;
  /**
   * A fast batch that came while SharePolicyOptions.maxFastConnections connections ran fast
   * batches: it has not asked the pool, and may only join, until one of those is released.
   */
  parked?: boolean;
  /**
   * Its acquisition timeout, from when it was parked: kept once it asks the pool, whose own timeout
   * starts only then, so that the whole wait stays within one timeout.
   */
  deadline?: NodeJS.Timeout;
}

/** What pg-pool rejects with when its acquisition timeout passes (http/db-errors.ts: DBRST003). */
const PARKED_TIMEOUT = 'timeout exceeded when trying to connect (waiting for a connection of fast batches)';

export class LeaseManager {
  private readonly busy = new Map<pg.PoolClient, Shared>();
  /**
   * Requests that could not join a connection when they came, oldest first. While any waits, a
   * new request does not join a connection either but queues behind it: otherwise requests that
   * keep arriving keep busy connections busy (a connection goes back to the pool only once its
   * last batch is answered) and a waiting one could be overtaken again and again — a long tail.
   * A waiter is served by whichever comes first: a connection it may join (checked each time a
   * batch is answered) or a connection from the pool.
   */
  private readonly waiting: Waiter[] = [];
  /** Batches with a whenStalled callback not called yet; the timer checks for stalls while any. */
  private stallWatched = 0;
  private stallTimer: NodeJS.Timeout | null = null;
  /** Waiters parked (Waiter.parked). */
  private parkedCount = 0;
  /** Requests to the pool made by `ask` and not answered yet (in pool.waitingCount with others'). */
  private asking = 0;
  /** Batches run a second time by hedging (tests, metrics). */
  hedges = 0;

  constructor(
    private readonly pool: pg.Pool,
    readonly policy: SharePolicy = new SharePolicy(),
  ) {}

  /**
   * A connection for one batch of request class `key` (e.g. its main statement's text); `writes`:
   * the batch commits a write (SharePolicy.mayJoin).
   */
  async acquire(key: string | null = null, writes = false): Promise<Lease> {
    return this.tryShare(key, writes) ?? this.connect(key, writes);
  }

  /**
   * A busy connection the batch may join right now, or null (then `connect`). Split from acquire
   * so the common case, joining, costs the caller no promise and no await.
   */
  tryShare(key: string | null, writes = false): Lease | null {
    if (this.waiting.length > 0) return null; // no overtaking those that wait
    const shared = this.shareable(key, this.hasFreeConnection(), writes);
    return shared ? this.lease(shared, key, writes) : null;
  }

  /**
   * Wait in line for a connection: one of the pool's, or a busy one the batch may join once it is
   * first in line. Rejects when the pool's acquisition timeout passes first.
   */
  connect(key: string | null, writes = false): Promise<Lease> {
    return this.enqueue(key, false, writes).promise as Promise<Lease>;
  }

  /**
   * Connections running only batches known fast, and those asked of the pool for fast batches:
   * what SharePolicyOptions.maxFastConnections bounds. Writes are not bounded by it, and a
   * connection running one is not counted: its backend mostly waits for the WAL flush of its
   * commit, not for a core, and commits flush together only when they run on several connections.
   */
  private fastConnections(): number {
    let n = 0;
    for (const s of this.busy.values()) if (s.guarded === 0 && s.writes === 0) n++;
    for (const w of this.waiting) if (w.fast && !w.parked && !w.writes) n++;
    return n;
  }

  /**
   * A connection for the second run of a stalled batch (whenStalled): one it may join other than
   * `avoid`'s, or the pool's, ahead of those waiting (it has waited already).
   */
  hedge(key: string | null, avoid: pg.PoolClient): HedgeLease {
    this.hedges++;
    opsCounters.hedgesSent++;
    const shared = this.shareable(key, this.hasFreeConnection(), false, avoid);
    if (shared) return { lease: Promise.resolve(this.lease(shared, key, false)), abandon: () => undefined };
    const { promise, waiter } = this.enqueue(key, true, false);
    return {
      lease: promise,
      abandon: () => {
        if (waiter.served) return;
        waiter.served = true;
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        waiter.resolve(null);
      },
    };
  }

  /** In line for a connection; `first` (a hedge: it has waited already) goes ahead and is never parked. */
  private enqueue(key: string | null, first: boolean, writes: boolean): { promise: Promise<Lease | null>; waiter: Waiter } {
    const fast = this.policy.fast(key);
    const bound = this.policy.options.maxFastConnections;
    // Counted before this waiter is in line (fastConnections counts waiters not parked).
    const park = !first && !writes && fast && bound !== Infinity && this.fastConnections() >= bound;
    let waiter!: Waiter;
    const promise = new Promise<Lease | null>((resolve, reject) => {
      const w: Waiter = { key, writes, resolve, reject, served: false, fast };
      waiter = w;
      if (first) this.waiting.unshift(w);
      else this.waiting.push(w);
      if (park) this.park(w);
      else this.ask(w);
    });
    return { promise, waiter };
  }

  /**
   * Every waiter not parked asks the pool once; a connection the pool gives goes to the first in
   * line not parked, or back when there is none (its waiter joined a busy connection meanwhile).
   */
  private ask(w: Waiter): void {
    this.asking++;
    this.pool.connect().then(
      (client) => {
        this.asking--;
        this.granted(client);
      },
      (e: Error) => {
        this.asking--;
        this.fail(w, e);
      },
    );
  }

  private fail(w: Waiter, e: Error): void {
    if (w.served) return;
    this.served(w);
    this.waiting.splice(this.waiting.indexOf(w), 1);
    w.reject(e);
    this.serveWaiting(); // those behind it may be able to join now, or ask the pool
  }

  /** Parked until a connection of fast batches is released, or the pool's acquisition timeout. */
  private park(w: Waiter): void {
    const ms = (this.pool as pg.Pool & { options: { connectionTimeoutMillis?: number } }).options.connectionTimeoutMillis ?? 0;
    this.parkedCount++;
    w.parked = true;
    if (ms <= 0) return;
    w.deadline = setTimeout(() => this.fail(w, new Error(PARKED_TIMEOUT)), ms);
    w.deadline.unref();
  }

  /** Parked waiters ask the pool, in order, while fewer connections than the limit run fast batches. */
  private unpark(): void {
    let room = this.policy.options.maxFastConnections - this.fastConnections();
    for (let i = 0; i < this.waiting.length && room > 0; i++) {
      const w = this.waiting[i]!;
      if (!w.parked) continue;
      w.parked = false;
      this.parkedCount--;
      room--;
      this.ask(w);
    }
  }

  /** A waiter leaves the line served. */
  private served(w: Waiter): void {
    w.served = true;
    if (w.deadline) clearTimeout(w.deadline);
    if (!w.parked) return;
    w.parked = false;
    this.parkedCount--;
  }

  /** Requests waiting in line for a connection (tests, metrics). */
  waitingCount(): number {
    return this.waiting.length;
  }

  private granted(client: pg.PoolClient): void {
    let i = 0;
    while (i < this.waiting.length && this.waiting[i]!.parked) i++;
    if (i === this.waiting.length) {
      client.release();
      return;
    }
    const w = this.waiting.splice(i, 1)[0]!;
    this.served(w);
    const entry = this.busyEntry(client, performance.now());
    w.resolve(this.lease(entry, w.key, w.writes));
    this.serveWaiting();
  }

  private busyEntry(client: pg.PoolClient, fromPool: number): Shared {
    // The pool hands out only idle clients, and a client leaves `busy` only when it goes back to the
    // pool (handOn gives it a fresh entry instead).
    const entry: Shared = { client, inFlight: [], lastDone: 0, guarded: 0, aheadBytes: 0, aheadMs: 0, writes: 0, broken: null, fromPool };
    this.busy.set(client, entry);
    return entry;
  }

  /**
   * A connection whose batches are all answered, handed to the first request in line when that one
   * is parked (SharePolicyOptions.maxFastConnections) instead of going back to the pool. The pool's
   * release and acquire (its idle timer, events and promises) cost such a request 12–18 µs of
   * dbrest's ~140 µs (W2 on 2 cores). Only while nobody but the line waits for the pool (a cursor
   * waiting for its connection is served by the pool first), and for a healthy connection within
   * HAND_ON_MAX_MS of leaving the pool.
   */
  private handOn(entry: Shared, now: number): boolean {
    const w = this.waiting[0];
    // A waiter that asked the pool is served through it (its request cannot be withdrawn). A
    // connection a cancel was sent on is held, and broken when others followed (cancelWithOthers).
    if (w === undefined || !w.parked || entry.broken || entry.held) return false;
    if (now - entry.fromPool > HAND_ON_MAX_MS || this.pool.waitingCount > this.asking) return false;
    this.waiting.shift();
    this.served(w);
    w.resolve(this.lease(this.busyEntry(entry.client, entry.fromPool), w.key, w.writes));
    return true;
  }

  /** Let waiters join busy connections, in order, while the policy allows the first one to. */
  private serveWaiting(): void {
    while (this.waiting.length > 0) {
      const w = this.waiting[0]!;
      const shared = this.shareable(w.key, this.hasFreeConnection(), w.writes);
      if (!shared) break;
      this.waiting.shift();
      this.served(w);
      w.resolve(this.lease(shared, w.key, w.writes));
    }
    // A waiter gone (joined, or failed) may have left room for a parked one.
    if (this.parkedCount > 0) this.unpark();
  }

  /** A connection of its own that no batch joins until released (a cursor's: db/cursor.ts). */
  async acquireExclusive(): Promise<Lease> {
    const client = await this.pool.connect();
    return {
      client,
      release: (broken?: Error) => client.release(broken),
      hold: () => true,
      head: () => true,
      cancelWithOthers: () => undefined,
      hitByCancel: () => false,
      whenStalled: () => undefined,
    };
  }

  private hasFreeConnection(): boolean {
    const p = this.pool as pg.Pool & { options: { max: number } };
    return p.idleCount > 0 || p.totalCount < p.options.max;
  }

  /** The least busy connection the policy lets a batch of `key` join (`writes`: it commits a write). */
  private shareable(key: string | null, free: boolean, writes: boolean, avoid?: pg.PoolClient): Shared | null {
    const now = performance.now();
    const fast = this.policy.fast(key);
    const size = this.policy.size(key);
    let best: Shared | null = null;
    for (const s of this.busy.values()) {
      if (s.broken || s.held || s.client === avoid || (best && s.inFlight.length >= best.inFlight.length)) continue;
      const head = s.inFlight[0];
      const state = scratch;
      state.depth = s.inFlight.length;
      state.headServingMs = head ? servedMs(s, head, now) : 0;
      state.headClass = head?.key ?? null;
      state.guarded = s.guarded;
      state.aheadBytes = s.aheadBytes;
      state.aheadMs = s.aheadMs;
      state.writes = s.writes;
      if (this.policy.mayJoin(state, fast, free, size, writes)) best = s;
    }
    return best;
  }

  private lease(entry: Shared, key: string | null, writes: boolean): Lease {
    const batch: InFlight = { key, started: performance.now(), guarded: !this.policy.fast(key), bytes: this.policy.size(key), ms: this.policy.average(key) ?? 0, writes };
    entry.inFlight.push(batch);
    if (entry.inFlight.length > 1) opsCounters.sharedBatches++;
    entry.aheadBytes += batch.bytes;
    entry.aheadMs += batch.ms;
    if (batch.guarded) entry.guarded++;
    if (writes) entry.writes++;
    let released = false;
    return {
      client: entry.client,
      hold: () => !released && (entry.held = true) && entry.inFlight.length === 1,
      head: () => !released && entry.inFlight[0] === batch,
      cancelWithOthers: () => {
        entry.held = true;
        entry.cancelled = batch;
        entry.broken ??= CANCELLED_WITH_OTHERS;
      },
      hitByCancel: () => entry.cancelled !== undefined && entry.cancelled !== batch,
      whenStalled: (hedge: () => void) => {
        if (released || batch.onStall) return;
        batch.onStall = hedge;
        this.stallWatched++;
        this.armStallTimer();
      },
      release: (broken?: Error, bytes?: number) => {
        if (released) return;
        released = true;
        if (batch.onStall) {
          batch.onStall = undefined;
          this.stallWatched--;
        }
        const now = performance.now();
        // Leases end in answer order; the time this one was served is since it reached the head.
        const i = entry.inFlight.indexOf(batch);
        if (i >= 0) entry.inFlight.splice(i, 1);
        if (batch.guarded) entry.guarded--;
        if (writes) entry.writes--;
        entry.aheadBytes -= batch.bytes;
        entry.aheadMs -= batch.ms;
        if (!broken) this.policy.record(key, servedMs(entry, batch, now), bytes);
        entry.lastDone = now;
        if (broken) entry.broken ??= broken;
        if (entry.inFlight.length === 0) {
          if (this.handOn(entry, now)) return;
          this.busy.delete(entry.client);
          entry.client.release(entry.broken ?? undefined);
          if (this.parkedCount > 0) this.unpark();
        } else if (this.waiting.length > 0) this.serveWaiting();
      },
    };
  }

  /**
   * Hand the batches a stalled head holds up (and a stalled head of a fast class) to their
   * callers' hedge. A head not known fast may simply be a slow statement: it is not hedged itself.
   */
  private checkStalls(now: number): void {
    let due: Array<() => void> | null = null;
    for (const s of this.busy.values()) {
      const head = s.inFlight[0];
      if (!head || (s.inFlight.length === 1 && !head.onStall)) continue;
      if (servedMs(s, head, now) <= this.policy.hedgeAfter(head.key)) continue;
      for (let i = 0; i < s.inFlight.length; i++) {
        const b = s.inFlight[i]!;
        if (!b.onStall || (i === 0 && !this.policy.fast(b.key))) continue;
        (due ??= []).push(b.onStall);
        b.onStall = undefined;
        this.stallWatched--;
      }
    }
    // Called after the loop: a hedge leases a connection, which changes `busy`.
    if (due) for (const hedge of due) hedge();
  }

  /**
   * A timer looks for stalls while batches are watched, every half of the shortest hedging delay:
   * not on each release, which happens thousands of times a second under load.
   */
  private armStallTimer(): void {
    if (this.stallTimer !== null || this.stallWatched === 0) return;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null;
      this.checkStalls(performance.now());
      this.armStallTimer();
    }, this.policy.options.hedgeMinMs / 2);
    this.stallTimer.unref();
  }
}

const managers = new WeakMap<pg.Pool, LeaseManager>();

/** The lease manager of a pool (one per pool, made on first use), its policy by where the database runs. */
export function leases(pool: pg.Pool): LeaseManager {
  let m = managers.get(pool);
  if (!m) {
    m = new LeaseManager(pool, new SharePolicy(sharePolicyFor(poolHost(pool))));
    managers.set(pool, m);
  }
  return m;
}
