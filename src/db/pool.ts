// The connection pool. Clients run in pg's pipeline mode: a request's context and statements go out
// together (db/batch.ts), and when every connection is busy several requests' batches can share one
// (db/leases.ts).
import pg from 'pg';
import type { AppConfig } from '../config/types.js';
import { pgStream } from './socket.js';

export type Pool = pg.Pool;

export function createPool(
  uri: string,
  cfg: Pick<AppConfig, 'dbPool' | 'dbPoolAcquisitionTimeout' | 'dbPoolMaxLifetime' | 'dbPoolMaxIdletime'>,
  onConnectionLost: (e: Error) => void = () => undefined,
): Pool {
  const options = {
    connectionString: uri,
    max: cfg.dbPool,
    // pg-pool applies this both to waiting for a free client and to opening a connection.
    connectionTimeoutMillis: Math.max(1, cfg.dbPoolAcquisitionTimeout * 1000),
    idleTimeoutMillis: Math.max(1, cfg.dbPoolMaxIdletime * 1000),
    maxLifetimeSeconds: cfg.dbPoolMaxLifetime,
    application_name: 'dbrest',
    pipeline: true,
    // Reads without Node's zero-filled buffer per read (db/socket.ts).
    stream: pgStream,
  } as pg.PoolConfig;
  const pool = new pg.Pool(options);
  // An idle client whose connection dies emits 'error' on the pool; without a listener Node would
  // crash. The pool drops that client by itself.
  pool.on('error', () => undefined);
  // pg also emits 'error' on a client whose connection dies while a query of it runs (the database
  // stops or restarts); pg-pool listens only while the client is idle. Without this listener a
  // request in flight at that moment would crash the process; its query reports the error itself.
  pool.on('connect', (client) => client.on('error', onConnectionLost));
  return pool;
}
