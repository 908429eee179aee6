// The one impure file of the schema cache: runs the catalog queries (src/catalog/sql/*.ts) in one
// read-only, repeatable-read transaction - one consistent snapshot - and returns their rows
// untouched, plus how long it took. Turning rows into a SchemaCache is build.ts's job.
import { performance } from 'node:perf_hooks';
import type { RawCatalog } from './raw.js';
import { COMPUTED_RELATIONSHIPS_SQL } from './sql/computed-relationships.js';
import { FOREIGN_KEYS_SQL } from './sql/foreign-keys.js';
import { MEDIA_HANDLERS_SQL } from './sql/media-handlers.js';
import { RELATIONS_SQL } from './sql/relations.js';
import { REPRESENTATIONS_SQL } from './sql/representations.js';
import { ROUTINES_SQL } from './sql/routines.js';
import { SERVER_VERSION_SQL } from './sql/version.js';
import { VIEW_SOURCES_SQL } from './sql/view-sources.js';

/** What fetchCatalog needs of a connection: a pg.Client or a pg.PoolClient (not a Pool: the
 * queries must share one transaction). */
export interface CatalogClient {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

export async function fetchCatalog(client: CatalogClient, schemas: readonly string[]): Promise<{ raw: RawCatalog; ms: number }> {
  const started = performance.now();
  const params = [[...schemas]];
  const run = async (text: string, values?: unknown[]): Promise<unknown[]> => (await client.query(text, values)).rows;
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  let raw: RawCatalog;
  try {
    // An empty search_path makes format_type() and regprocedure qualify every name outside
    // pg_catalog, so the types and signatures we store are unambiguous (PostgREST does the same).
    await client.query("SELECT set_config('search_path', '', true)");
    raw = {
      version: await run(SERVER_VERSION_SQL),
      relations: await run(RELATIONS_SQL, params),
      foreignKeys: await run(FOREIGN_KEYS_SQL, params),
      viewSources: await run(VIEW_SOURCES_SQL, params),
      routines: await run(ROUTINES_SQL, params),
      computedRelationships: await run(COMPUTED_RELATIONSHIPS_SQL, params),
      mediaHandlers: await run(MEDIA_HANDLERS_SQL, params),
      representations: await run(REPRESENTATIONS_SQL),
    } as RawCatalog;
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
  return { raw, ms: performance.now() - started };
}
