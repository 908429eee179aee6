// Prometheus metrics of one running server (served at the admin server's /metrics). Each server has
// a registry of its own, not prom-client's global one, so several servers (tests) in one process do
// not clash. Request metrics are labelled by route template, never by raw URL, so their cardinality
// stays bounded by the configuration and the schema cache. Gauges read their values at scrape time.
import client from 'prom-client';
import type { Pool } from '../db/pool.js';
import type { AccessEvent } from './access.js';
import { opsCounters } from './counters.js';
import { SeriesHistogram, type Series } from './series.js';

/** The route label of a request dbrest could not tie to a relation, function or mount. */
export const UNMATCHED_ROUTE = '(unmatched)';

/** What the schema-cache metrics read at scrape time. */
export interface SchemaCacheState {
  readonly relations: number;
  readonly functions: number;
}

export interface Metrics {
  readonly registry: client.Registry;
  /** Counts an answered request (an http/server.ts RequestObserver). */
  requestDone(e: AccessEvent): void;
  schemaCacheLoaded(seconds: number, state: SchemaCacheState): void;
  schemaCacheFailed(): void;
  connectionError(): void;
  reconnected(): void;
  /** Prometheus text exposition of every metric. */
  render(): Promise<string>;
  readonly contentType: string;
}

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
const statusClass = (s: number): string => STATUS_CLASSES[Math.floor(s / 100) - 1] ?? 'other';

// Requests of a PostgREST-style API take from under a millisecond to seconds.
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(pool: Pool, poolMax: number): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });

  // Counted in plain numbers per label tuple (observe/series.ts), read by the registry at scrape time.
  const duration = new SeriesHistogram(
    'dbrest_http_request_duration_seconds',
    'Time from a request read to its answer written, by route template, method, status class and error code.',
    REQUEST_BUCKETS, registry,
  );
  duration.countsAs('dbrest_http_requests_total', 'Requests answered, by route template, method, status class and error code.', registry);
  const dbTime = new SeriesHistogram(
    'dbrest_db_request_duration_seconds',
    "Time a request spent in its database transaction (Server-Timing's `transaction`), by route template.",
    REQUEST_BUCKETS, registry,
  );

  const poolGauge = (name: string, help: string, read: () => number) =>
    new client.Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
  poolGauge('dbrest_db_pool_connections', 'Connections the pool holds (busy and idle).', () => pool.totalCount);
  poolGauge('dbrest_db_pool_idle_connections', 'Connections idle in the pool.', () => pool.idleCount);
  poolGauge('dbrest_db_pool_waiting_requests', 'Requests waiting for a pooled connection.', () => pool.waitingCount);
  poolGauge('dbrest_db_pool_max_connections', 'The pool size limit (db-pool).', () => poolMax);

  const connectionErrors = new client.Counter({ name: 'dbrest_db_connection_errors_total', help: 'Times the database could not be reached (each failed attempt counts).', registers: [registry] });
  const reconnects = new client.Counter({ name: 'dbrest_db_reconnects_total', help: 'Times the connection to the database was recovered after it was lost.', registers: [registry] });

  // Counted where they happen (observe/counters.ts), read here at scrape time.
  const counted = (name: string, help: string, read: () => number) =>
    new client.Counter({ name, help, registers: [registry], collect() { this.reset(); this.inc(read()); } });
  counted('dbrest_db_shared_batches_total', 'Request batches that joined a connection other batches were running on.', () => opsCounters.sharedBatches);
  counted('dbrest_db_hedged_reads_total', 'Stalled reads run a second time on another connection.', () => opsCounters.hedgesSent);
  counted('dbrest_db_hedged_reads_won_total', 'Second runs of a stalled read that answered first.', () => opsCounters.hedgesWon);
  counted('dbrest_db_cancel_requests_total', 'Cancel requests sent to PostgreSQL for a running statement (its client went away).', () => opsCounters.cancelRequests);
  counted('dbrest_jwt_cache_hits_total', 'Bearer tokens found in the JWT cache (jwt-cache-max-entries).', () => opsCounters.jwtCacheHits);
  counted('dbrest_jwt_cache_misses_total', 'Bearer tokens verified because the JWT cache did not hold them.', () => opsCounters.jwtCacheMisses);
  counted('dbrest_http_streamed_responses_total', 'Answers streamed from a cursor (longer than server-stream-threshold rows).', () => opsCounters.streamedResponses);
  counted('dbrest_http_streamed_response_bytes_total', 'Body bytes of streamed answers written after their head.', () => opsCounters.streamedBytes);

  const loadSeconds = new client.Histogram({
    name: 'dbrest_schema_cache_load_duration_seconds',
    help: 'Time to load the schema cache (catalog queries and build).',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const loads = new client.Counter({ name: 'dbrest_schema_cache_loads_total', help: 'Schema cache loads that succeeded (the first and every reload).', registers: [registry] });
  const failures = new client.Counter({ name: 'dbrest_schema_cache_load_failures_total', help: 'Schema cache loads that failed.', registers: [registry] });
  let loadedAt: number | null = null;
  let state: SchemaCacheState = { relations: 0, functions: 0 };
  new client.Gauge({
    name: 'dbrest_schema_cache_age_seconds',
    help: 'Seconds since the schema cache in use was loaded (absent before the first load).',
    registers: [registry],
    collect() {
      if (loadedAt !== null) this.set((performance.now() - loadedAt) / 1000);
    },
  });
  new client.Gauge({ name: 'dbrest_schema_cache_relations', help: 'Relations (tables, views) in the schema cache.', registers: [registry], collect() { this.set(state.relations); } });
  new client.Gauge({ name: 'dbrest_schema_cache_functions', help: 'Functions in the schema cache.', registers: [registry], collect() { this.set(state.functions); } });

  // A series resolved once per (route, method, status class, code) and kept: the hot path is four
  // Map lookups and two observations, no label object built or hashed per request.
  const children = new Map<string, Map<string, Map<string, Map<string, Series>>>>();
  const dbChildren = new Map<string, Series>();
  const child = (route: string, method: string, cls: string, code: string): Series => {
    let byMethod = children.get(route);
    if (byMethod === undefined) children.set(route, (byMethod = new Map()));
    let byClass = byMethod.get(method);
    if (byClass === undefined) byMethod.set(method, (byClass = new Map()));
    let byCode = byClass.get(cls);
    if (byCode === undefined) byClass.set(cls, (byCode = new Map()));
    let c = byCode.get(code);
    if (c === undefined) byCode.set(code, (c = duration.series({ route, method, status_class: cls, code })));
    return c;
  };

  return {
    registry,
    contentType: registry.contentType,
    requestDone(e) {
      duration.observe(child(e.route, e.method, statusClass(e.status), e.code ?? ''), e.durationMs / 1000);
      if (e.dbMs !== null) {
        let d = dbChildren.get(e.route);
        if (d === undefined) dbChildren.set(e.route, (d = dbTime.series({ route: e.route })));
        dbTime.observe(d, e.dbMs / 1000);
      }
    },
    schemaCacheLoaded(seconds, next) {
      loadSeconds.observe(seconds);
      loads.inc();
      loadedAt = performance.now();
      state = next;
    },
    schemaCacheFailed: () => failures.inc(),
    connectionError: () => connectionErrors.inc(),
    reconnected: () => reconnects.inc(),
    render: () => registry.metrics(),
  };
}
