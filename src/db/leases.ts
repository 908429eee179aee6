// Connections shared by pipelining. A request's batch goes behind the batches already running on
// a connection when those are young (SHARE_FIRST_*), or, when every connection is busy, on the
// least busy connection instead of waiting for one to be released; otherwise it gets a connection
// of its own, as from any pool. Each batch ends in its own Sync, so it is still its own implicit
// transaction (an error in one batch ends at its Sync and touches no other), and batches written
// in the same tick leave in one write (db/batch.ts corks the socket). PostgreSQL answers them in
// order: fewer system calls and wake-ups on both sides per request.
//
// A connection is shared only while the batch at its head is young (SHARE_WINDOW_MS): a batch
// behind a slow query would wait for it, so once a connection has been busy that long, new
// requests wait for the pool as before (and get DBRST003 when db-pool-acquisition-timeout passes).
import type pg from 'pg';

/** Batches in flight on one connection at most. */
const MAX_DEPTH = 8;
/** A connection whose oldest batch has run longer than this takes no more batches. */
const SHARE_WINDOW_MS = 20;
/**
 * Even with free connections, a batch joins a connection whose head batch is this young and that
 * has fewer than SHARE_FIRST_DEPTH in flight: short requests then share writes and backend
 * wake-ups (on the bench: ~10 µs less CPU per request, server and database together). A slow
 * head stops this within 2 ms, so few requests ever wait behind one.
 */
const SHARE_FIRST_MS = 2;
const SHARE_FIRST_DEPTH = 4;

export interface Lease {
  readonly client: pg.PoolClient;
  /** Give the lease back; pass the error when the connection is broken (it is then discarded). */
  release(broken?: Error): void;
  /**
   * No other batch joins this connection from now until it is released; true when this lease's
   * batch is the only one on it (db/cancel-watch.ts: only then may it be cancelled).
   */
  hold(): boolean;
}

interface Shared {
  readonly client: pg.PoolClient;
  /** Start times of the batches in flight, oldest first (a connection answers in order). */
  readonly started: number[];
  broken: Error | null;
  held?: boolean;
}

export class LeaseManager {
  private readonly busy = new Map<pg.PoolClient, Shared>();

  constructor(private readonly pool: pg.Pool) {}

  async acquire(): Promise<Lease> {
    const shared =
      this.shareable(SHARE_FIRST_DEPTH, SHARE_FIRST_MS) ?? (this.hasFreeConnection() ? null : this.shareable(MAX_DEPTH, SHARE_WINDOW_MS));
    if (shared) return this.lease(shared);
    // The pool hands out only idle clients, and a client leaves `busy` only when it goes back.
    const client = await this.pool.connect();
    const entry: Shared = { client, started: [], broken: null };
    this.busy.set(client, entry);
    return this.lease(entry);
  }

  /** A connection of its own that no batch joins until released (a cursor's: db/cursor.ts). */
  async acquireExclusive(): Promise<Lease> {
    const client = await this.pool.connect();
    return { client, release: (broken?: Error) => client.release(broken), hold: () => true };
  }

  private hasFreeConnection(): boolean {
    const p = this.pool as pg.Pool & { options: { max: number } };
    return p.idleCount > 0 || p.totalCount < p.options.max;
  }

  /** The least busy connection with fewer than `depth` batches, the oldest younger than `window` ms. */
  private shareable(depth: number, window: number): Shared | null {
    const now = performance.now();
    let best: Shared | null = null;
    for (const s of this.busy.values()) {
      if (s.broken || s.held || s.started.length >= depth) continue;
      if (s.started.length > 0 && now - s.started[0]! > window) continue;
      if (!best || s.started.length < best.started.length) best = s;
    }
    return best;
  }

  private lease(entry: Shared): Lease {
    entry.started.push(performance.now());
    let released = false;
    return {
      client: entry.client,
      hold: () => !released && (entry.held = true) && entry.started.length === 1,
      release: (broken?: Error) => {
        if (released) return;
        released = true;
        entry.started.shift();
        if (broken) entry.broken ??= broken;
        if (entry.started.length === 0) {
          this.busy.delete(entry.client);
          entry.client.release(entry.broken ?? undefined);
        }
      },
    };
  }
}

const managers = new WeakMap<pg.Pool, LeaseManager>();

/** The lease manager of a pool (one per pool, made on first use). */
export function leases(pool: pg.Pool): LeaseManager {
  let m = managers.get(pool);
  if (!m) {
    m = new LeaseManager(pool);
    managers.set(pool, m);
  }
  return m;
}
