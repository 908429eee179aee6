// Read-replica metrics (db-read-uris): where reads ran, each replica's health, lag and pool. Read from
// db/replicas.ts at scrape time, so the request path only bumps a number. Registered on every
// server, so /metrics always lists them; without replicas they have no samples. Labels are the
// replica's host:port (Replica.label), never its URI: no user name or password.
import client from 'prom-client';
import type { ReadReplicas } from '../db/replicas.js';

/** The `target` of reads that could have gone to a replica and ran on the primary. */
export const PRIMARY_TARGET = 'primary';

export function registerReplicaMetrics(registry: client.Registry, replicas: ReadReplicas | null): void {
  const all = replicas?.replicas ?? [];
  new client.Counter<'target'>({
    name: 'dbrest_db_replica_reads_total',
    help: 'Reads that may run on a read replica (db-read-uris), by where they ran: a replica\'s host:port, or primary (none healthy, or run again after a replica failed).',
    labelNames: ['target'],
    registers: [registry],
    collect() {
      if (replicas === null) return;
      this.reset();
      for (const r of all) this.labels(r.label).inc(r.reads);
      this.labels(PRIMARY_TARGET).inc(replicas.primaryReads);
    },
  });
  const perReplica = (name: string, help: string, read: (r: ReadReplicas['replicas'][number]) => number | null) =>
    new client.Gauge<'replica'>({
      name,
      help,
      labelNames: ['replica'],
      registers: [registry],
      collect() {
        this.reset();
        for (const r of all) {
          const v = read(r);
          if (v !== null) this.labels(r.label).set(v);
        }
      },
    });
  perReplica('dbrest_db_replica_healthy', 'A read replica is in the rotation (1) or skipped (0: unreachable, or lagging past db-read-max-lag).', (r) => (r.healthy ? 1 : 0));
  perReplica('dbrest_db_replica_lag_seconds', 'A read replica\'s replay lag at its last health check (absent while it cannot be reached).', (r) => (r.lag !== null && Number.isFinite(r.lag) ? r.lag : null));
  perReplica('dbrest_db_replica_pool_connections', 'Connections a read replica\'s pool holds (busy and idle).', (r) => r.pool.totalCount);
  perReplica('dbrest_db_replica_pool_idle_connections', 'Connections idle in a read replica\'s pool.', (r) => r.pool.idleCount);
  perReplica('dbrest_db_replica_pool_waiting_requests', 'Requests waiting for a connection of a read replica\'s pool.', (r) => r.pool.waitingCount);
}
