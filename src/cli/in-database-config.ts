// db-config as the commands read it: the authenticator's `pgrst.*` settings (and db-pre-config's),
// asked on a short connection of their own and laid over the config (src/config/in-database.ts holds
// the statement and the rules). Used by `serve` at start and on every config reload, and by
// `check-config`, which shows the values serve would take from the database.
import pg from 'pg';
import { applyInDatabase, inDatabaseStatement, type InDatabaseResult } from '../config/in-database.js';
import type { ConfigSource } from '../config/load.js';
import type { AppConfig } from '../config/types.js';

/**
 * The config with the database's settings laid over it; with db-config off, the config unchanged.
 * Throws when the database cannot be asked.
 */
export async function readInDatabaseConfig(
  config: AppConfig, dbUri: string, sources: Readonly<Record<string, ConfigSource>>,
): Promise<InDatabaseResult> {
  if (!config.dbConfig) return { config, applied: [], problems: [] };
  const client = new pg.Client({ connectionString: dbUri, application_name: 'dbrest', connectionTimeoutMillis: Math.max(1, config.dbPoolAcquisitionTimeout * 1000) });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const st = inDatabaseStatement(config.dbPreConfig);
    // Its own read-only transaction: db-pre-config's set_config calls end with it.
    await client.query('BEGIN READ ONLY');
    const { rows } = await client.query<{ key: string; value: string }>(st.text, st.values as unknown[]);
    await client.query('COMMIT');
    return applyInDatabase(config, rows, sources);
  } finally {
    await client.end().catch(() => undefined);
  }
}
