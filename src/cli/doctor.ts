// `dbrest doctor [config-file] [--json]`: connects as serve would (db-uri's role, the authenticator;
// the embedded default when db-uri is unset), runs the checks of src/doctor/ and prints each finding
// with the SQL that fixes it. Exit 1 when there is an error or a warning, 0 when only notes remain.
// Wiring only.
import pg from 'pg';
import type { LoadedConfig } from '../config/load.js';
import { chalkFor } from '../config/print.js';
import type { AppConfig } from '../config/types.js';
import { databaseFindings } from '../doctor/checks.js';
import { configFindings, isProblem } from '../doctor/findings.js';
import { formatJson, formatText } from '../doctor/format.js';
import { cacheSchemas } from '../mount/check.js';
import type { CliIo } from './check-config.js';
import { withCommandDatabase } from './database.js';
import { readInDatabaseConfig } from './in-database-config.js';

export async function runDoctor(loaded: LoadedConfig, io: CliIo, opts: { readonly json: boolean }): Promise<number> {
  return withCommandDatabase(loaded.config, 'doctor', io.stderr, async (config, embedded) => {
    const effective = embedded === null ? await withInDatabaseConfig(loaded, config) : config;
    return doctor(effective, embedded !== null, io, opts);
  });
}

/** db-config: the authenticator's pgrst.* settings change what serve exposes, so doctor checks those. */
async function withInDatabaseConfig(loaded: LoadedConfig, config: AppConfig): Promise<AppConfig> {
  if (!config.dbConfig || config.dbUri === null) return config;
  try {
    return (await readInDatabaseConfig(config, config.dbUri, loaded.sources)).config;
  } catch {
    return config; // unreachable: doctor's own connection reports it
  }
}

async function doctor(config: AppConfig, embedded: boolean, io: CliIo, opts: { readonly json: boolean }): Promise<number> {
  const client = new pg.Client({ connectionString: config.dbUri!, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  const schemas = cacheSchemas(config);
  try {
    await client.connect();
    const who = (await client.query<{ role: string; database: string }>('SELECT current_user AS role, current_database() AS database')).rows[0]!;
    const findings = [...configFindings(config), ...(await databaseFindings(client, { schemas, anonRole: config.dbAnonRole, embedded }))];
    const report = { role: who.role, database: who.database, schemas, findings };
    io.stdout.write(opts.json ? formatJson(report) : formatText(report, chalkFor('stdout', io.env)));
    return findings.some(isProblem) ? 1 : 0;
  } catch (e) {
    io.stderr.write(chalkFor('stderr', io.env).red(`✖ doctor: ${(e as Error).message}\n`));
    return 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}
