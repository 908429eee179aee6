// Read replicas (db-read-uris): one pool per replica, and a background health check that keeps a
// replica in the rotation only while it answers and its replay lag is within db-read-max-lag.
//
// The check runs every HEALTH_INTERVAL_MS on a connection of its own (outside the replica's pool,
// so it never waits behind requests): one cheap query per replica. A request that cannot reach a
// replica marks it down at once (http/read-route.ts), without waiting for the next check; only a
// check brings it back. Timers are unref'd and stopped by close().
import pg from 'pg';
import type { AppConfig } from '../config/types.js';
import type { Logger } from '../observe/log.js';
import { createPool, type Pool } from './pool.js';

export const HEALTH_INTERVAL_MS = 500;
/** How long before a lag over the limit is measured again (see probeOne). */
const LAG_RECHECK_MS = 100;

/**
 * The replica's lag in seconds. A standby that has replayed all the WAL it received is caught up (0):
 * on an idle primary pg_last_xact_replay_timestamp() stops advancing, so `now() - replay time` alone
 * would grow forever. Received below replayed happens too: a restarted standby replays its own pg_wal
 * ahead of where its receiver starts streaming. Otherwise the age of the last replayed commit; none replayed yet: unknown
 * (Infinity, kept out). A server not in recovery (a promoted standby) has no lag.
 */
const LAG_SQL = `SELECT CASE
  WHEN NOT pg_catalog.pg_is_in_recovery() THEN 0
  WHEN pg_catalog.pg_last_wal_receive_lsn() <= pg_catalog.pg_last_wal_replay_lsn() THEN 0
  ELSE COALESCE(EXTRACT(epoch FROM pg_catalog.now() - pg_catalog.pg_last_xact_replay_timestamp())::float8, 'Infinity'::float8)
END AS lag`;

export interface Replica {
  /** `host:port` of its URI, for log lines and metric labels (no credentials); `#n` added to a repeated one. */
  readonly label: string;
  readonly pool: Pool;
  /** In the rotation: the last check reached it within the lag limit, and no request failed on it since. */
  readonly healthy: boolean;
  /** Seconds behind the primary at the last check; null when the check could not reach it. */
  readonly lag: number | null;
  /** Reads started on it (counted by http/read-route.ts, read by observe/replica-metrics.ts). */
  readonly reads: number;
}

export interface ReadReplicas {
  readonly replicas: ReadonlyArray<Replica>;
  /** The next healthy replica, round-robin; null when none is (the read then runs on the primary). */
  pick(): Replica | null;
  /** Count a read that may run on a replica where it runs: on `replica`, or on the primary (null). */
  routed(replica: Replica | null): void;
  /** Reads that may run on a replica and ran on the primary (none healthy, or run again after a replica failed). */
  readonly primaryReads: number;
  /** A request could not use `replica`: out of the rotation until a health check finds it well. */
  failed(replica: Replica, why: string): void;
  /** Run one health check of every replica now (start-up, tests). */
  check(): Promise<void>;
  /** Stop the checks and close the pools. */
  close(): Promise<void>;
}

interface State {
  label: string;
  uri: string;
  pool: Pool;
  healthy: boolean;
  lag: number | null;
  /** The health check's connection; null until (re)connected. */
  probe: pg.Client | null;
  /** Last reason it was out, so a state change is logged once, not every check. */
  down: string | null;
  reads: number;
}

function labelOf(uri: string): string {
  try {
    const u = new URL(uri);
    return u.host || uri.replace(/^[a-z]+:\/\/([^@/]*@)?/i, '').split('/')[0]!;
  } catch {
    return 'replica';
  }
}

export function startReadReplicas(
  uris: ReadonlyArray<string>,
  cfg: Pick<AppConfig, 'dbPool' | 'dbPoolAcquisitionTimeout' | 'dbPoolMaxLifetime' | 'dbPoolMaxIdletime'>,
  maxLag: () => number,
  log: Logger,
): ReadReplicas {
  const labels = uris.map(labelOf);
  const states: State[] = uris.map((uri, i) => ({
    // Two URIs on one host:port (two databases of one server) get told apart by their position.
    label: labels.indexOf(labels[i]!) === i ? labels[i]! : `${labels[i]}#${i + 1}`,
    uri,
    pool: createPool(uri, cfg, (e) => log.debug(`read replica connection lost: ${e.message}`)),
    // Out until the first check has seen it answer.
    healthy: false,
    lag: null,
    probe: null,
    down: null,
    reads: 0,
  }));
  let primaryReads = 0;
  let next = 0;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  const setDown = (s: State, why: string): void => {
    s.healthy = false;
    if (s.down === null) log.warn(`read replica ${s.label} left out of the rotation: ${why}; reads go to the other replicas or the primary`);
    s.down = why;
  };
  const setUp = (s: State, lag: number): void => {
    s.lag = lag;
    s.healthy = true;
    if (s.down !== null) log.info(`read replica ${s.label} back in the rotation (lag ${lag.toFixed(1)} s)`);
    s.down = null;
  };

  const probeOne = async (s: State): Promise<void> => {
    try {
      if (s.probe === null) {
        const c = new pg.Client({
          connectionString: s.uri,
          application_name: 'dbrest health check',
          connectionTimeoutMillis: Math.max(1, Math.min(cfg.dbPoolAcquisitionTimeout * 1000, 2000)),
          query_timeout: 2000,
        });
        c.on('error', () => undefined); // the next query reports it
        try {
          await c.connect();
        } catch (e) {
          await c.end().catch(() => undefined);
          throw e;
        }
        if (closed) return void (await c.end().catch(() => undefined));
        s.probe = c;
      }
      const limit = maxLag();
      let lag = Number((await s.probe.query<{ lag: number }>(LAG_SQL)).rows[0]?.lag);
      // WAL that carries no commit (a checkpoint, another database's idle traffic) is briefly
      // received and not yet replayed while the last replayed commit is old: asked again a moment
      // later, a replica that is only replaying reads as caught up; one that lags still lags.
      if (limit > 0 && !(lag <= limit) && !closed) {
        await new Promise((r) => setTimeout(r, LAG_RECHECK_MS));
        lag = Number((await s.probe.query<{ lag: number }>(LAG_SQL)).rows[0]?.lag);
      }
      if (limit > 0 && !(lag <= limit)) {
        s.lag = lag;
        setDown(s, `lag ${Number.isFinite(lag) ? lag.toFixed(1) + ' s' : 'unknown'} over db-read-max-lag (${limit} s)`);
      } else setUp(s, lag);
    } catch (e) {
      const c = s.probe;
      s.probe = null;
      await c?.end().catch(() => undefined);
      s.lag = null;
      setDown(s, `unreachable (${(e as Error).message})`);
    }
  };

  const runOnce = (): Promise<void> =>
    (running = Promise.all(states.map(probeOne)).then(() => undefined).finally(() => (running = null)));
  // A check asked for while one runs is a new one after it: the running one may have measured
  // before what the caller waits for (a write replayed, a replica restarted).
  let queued: Promise<void> | null = null;
  const check = (): Promise<void> => {
    if (running === null) return runOnce();
    queued ??= running.then(() => {
      queued = null;
      return runOnce();
    });
    return queued;
  };
  const loop = (): void => {
    if (closed) return;
    timer = setTimeout(() => {
      void check().finally(loop);
    }, HEALTH_INTERVAL_MS);
    timer.unref();
  };
  loop();

  return {
    replicas: states,
    routed(replica) {
      if (replica === null) primaryReads++;
      else (replica as State).reads++;
    },
    get primaryReads() {
      return primaryReads;
    },
    pick() {
      for (let i = 0; i < states.length; i++) {
        const s = states[(next + i) % states.length]!;
        if (s.healthy) {
          next = (next + i + 1) % states.length;
          return s;
        }
      }
      return null;
    },
    failed(replica, why) {
      const s = states.find((x) => x === replica);
      if (s) setDown(s, why);
    },
    check,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await running;
      await Promise.all(states.map(async (s) => {
        await s.probe?.end().catch(() => undefined);
        s.probe = null;
        await s.pool.end().catch(() => undefined);
      }));
    },
  };
}
