// The first schema-cache load of `dbrest serve`, started before the HTTP server's modules are
// loaded: on a big catalog PostgreSQL spends longer on the catalog queries than Node spends
// loading the server, so the two overlap instead of running one after the other. It reads on two
// short-lived connections of its own (the pool does not exist yet) and also reads the role
// settings the first load needs; start.ts takes the result as its first load, or, if this one
// failed, loads again the ordinary way (and reports the error from there).
import { fetchRoleSettings, fetchSessionUser, type RoleSettings } from '../db/role-settings.js';
import type { CatalogProgress } from './fetch.js';
import { loadSchemaCache, openCatalogHelper, type LoadedSchemaCache } from './load.js';

export interface PrefetchedSchemaCache {
  readonly loaded: LoadedSchemaCache;
  readonly roleSettings: RoleSettings;
  /** The authenticator role (session_user). */
  readonly sessionUser: string | null;
}

export async function prefetchSchemaCache(
  uri: string,
  schemas: readonly string[],
  hoistedSettings: ReadonlyArray<string>,
  connectTimeoutMs: number,
  onProgress: ((p: CatalogProgress) => void) | null = null,
): Promise<PrefetchedSchemaCache> {
  const [main, helper] = await Promise.all([openCatalogHelper(uri, connectTimeoutMs), openCatalogHelper(uri, connectTimeoutMs)]);
  try {
    if (main === null) throw new Error('could not connect to read the schema cache');
    const loaded = await loadSchemaCache(main.client, schemas, helper?.client ?? null, onProgress);
    const roleSettings = await fetchRoleSettings(main.client as Parameters<typeof fetchRoleSettings>[0], hoistedSettings);
    const sessionUser = await fetchSessionUser(main.client as Parameters<typeof fetchSessionUser>[0]);
    return { loaded, roleSettings, sessionUser };
  } finally {
    await Promise.all([main?.close(), helper?.close()]);
  }
}
