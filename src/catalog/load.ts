// Fetch the catalog and build the schema cache, timing each half. Accepts a pool (a connection is
// borrowed for the duration) or a connected client.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { buildSchemaCache } from './build.js';
import { fetchCatalog, type CatalogClient } from './fetch.js';
import type { SchemaCache } from './types.js';

export interface LoadedSchemaCache {
  readonly cache: SchemaCache;
  readonly fetchMs: number;
  readonly buildMs: number;
}

export async function loadSchemaCache(db: pg.Pool | CatalogClient, schemas: readonly string[]): Promise<LoadedSchemaCache> {
  let fetched;
  if (db instanceof pg.Pool) {
    const client = await db.connect();
    try {
      fetched = await fetchCatalog(client, schemas);
    } finally {
      client.release();
    }
  } else {
    fetched = await fetchCatalog(db, schemas);
  }
  const started = performance.now();
  const cache = buildSchemaCache(fetched.raw, schemas);
  return { cache, fetchMs: fetched.ms, buildMs: performance.now() - started };
}
