// Fetch the catalog and build the schema cache, timing each half. Accepts a pool (a connection is
// borrowed for the duration) or a connected client.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { buildSchemaCache } from './build.js';
import { fetchCatalog, type CatalogClient, type CatalogHelper, type CatalogProgress } from './fetch.js';
import type { SchemaCache } from './types.js';

export interface LoadedSchemaCache {
  readonly cache: SchemaCache;
  readonly fetchMs: number;
  readonly buildMs: number;
}

/** `helper`: a second connection to read the catalog in parallel (fetch.ts); optional. */
/** `onProgress`: told each phase and the counts read so far (a terminal's progress line). */
export async function loadSchemaCache(
  db: pg.Pool | CatalogClient,
  schemas: readonly string[],
  helper: CatalogHelper | null = null,
  onProgress: ((p: CatalogProgress) => void) | null = null,
): Promise<LoadedSchemaCache> {
  let fetched;
  if (db instanceof pg.Pool) {
    const client = await db.connect();
    try {
      fetched = await fetchCatalog(client, schemas, helper, onProgress);
    } finally {
      client.release();
    }
  } else {
    fetched = await fetchCatalog(db, schemas, helper, onProgress);
  }
  onProgress?.({ phase: 'building', relations: fetched.raw.relations.length, functions: fetched.raw.routines.length, columnsRead: true });
  const started = performance.now();
  const cache = buildSchemaCache(fetched.raw, schemas);
  return { cache, fetchMs: fetched.ms, buildMs: performance.now() - started };
}

/**
 * A short-lived second connection for fetchCatalog's parallel half, outside the pool (borrowing two
 * pooled connections at once could wait on itself with db-pool=1). Null when it cannot connect:
 * the catalog is then read on one connection, as before.
 */
export async function openCatalogHelper(uri: string, connectTimeoutMs: number): Promise<{ client: CatalogHelper; close(): Promise<void> } | null> {
  // Bounded like the pool's connections: a database that does not answer must not hold up the load.
  const client = new pg.Client({ connectionString: uri, application_name: 'dbrest', connectionTimeoutMillis: connectTimeoutMs });
  client.on('error', () => undefined); // a dying helper fails its query; that is reported there
  try {
    await client.connect();
  } catch {
    await client.end().catch(() => undefined);
    return null;
  }
  return { client, close: () => client.end().catch(() => undefined) };
}
