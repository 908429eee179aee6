// `dbrest check-config [config-file]`: print the resolved configuration with the source of every key and secrets
// masked (exit 0), or one line per problem (exit 1). Route mounts are also checked against the database's schema
// cache when it can be reached (and it says so when it cannot). Wiring only; the rules are in src/config/ and
// src/mount/check.ts.

import path from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { embeddedConfig, exampleRoutes, runningEmbeddedDefault } from '../embedded/default.js';
import { chalkFor, renderConfig, renderProblems } from '../config/print.js';
import type { AppConfig } from '../config/types.js';
import type { MountProblem } from '../mount/check.js';
import { readInDatabaseConfig } from './in-database-config.js';

export interface CliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** Print the problems (red, stderr); returns 1 when there were any, else 0. */
export function reportProblems(loaded: LoadedConfig, io: CliIo): number {
  if (loaded.problems.length === 0) return 0;
  io.stderr.write(renderProblems(loaded.problems, { chalk: chalkFor('stderr', io.env) }));
  return 1;
}

export async function runCheckConfig(loaded: LoadedConfig, io: CliIo): Promise<number> {
  if (reportProblems(loaded, io) !== 0) return 1;
  const chalk = chalkFor('stdout', io.env);
  if (loaded.config.dbUri !== null) {
    const fromDatabase = await inDatabase(loaded, loaded.config.dbUri, io);
    io.stdout.write(renderConfig(loaded, { chalk, ...(fromDatabase ? { effective: fromDatabase } : {}) }));
    return checkMountsAgainstDatabase(fromDatabase?.config ?? loaded.config, io);
  }
  // The embedded default: show what serve would use, and check the mounts against its database if a serve runs.
  const dataDir = path.resolve(io.cwd, loaded.config.dbEmbeddedDir);
  const quiet = () => undefined;
  const running = await runningEmbeddedDefault(dataDir, quiet).catch(() => null);
  const config = embeddedConfig(loaded.config, running?.uri ?? null, (m) => void io.stderr.write(chalkFor('stderr', io.env).red(`✖ ${m}\n`)));
  const sources: Record<string, string> = {
    'db-uri': running ? `embedded, run by dbrest serve in ${dataDir}` : `embedded: serve starts it in ${dataDir}`,
  };
  if (loaded.config.dbAnonRole === null) sources['db-anon-role'] = 'embedded default';
  sources['routes'] = loaded.config.routes.length > 0 ? `${describeRoutes(loaded)} + the examples'` : "the examples' routes.json";
  const routeSources = [
    ...(loaded.config.routes.length > 0 ? [{ source: describeRoutes(loaded), groups: loaded.config.routes }] : []),
    ...exampleRoutes(quiet),
  ];
  io.stdout.write(renderConfig(loaded, { chalk, effective: { config, sources }, routeSources }));
  if (!running) {
    io.stderr.write(chalkFor('stderr', io.env).yellow(`! routes: not checked against a database (the embedded one runs while dbrest serve runs in this directory)\n`));
    return 0;
  }
  return checkMountsAgainstDatabase(config, io);
}

/**
 * db-config: the values serve would take from the database (the authenticator's `pgrst.*` settings,
 * db-pre-config's), each shown as coming from there; null when db-config is off or nothing applies.
 */
async function inDatabase(loaded: LoadedConfig, dbUri: string, io: CliIo): Promise<{ config: AppConfig; sources: Record<string, string> } | null> {
  if (!loaded.config.dbConfig) return null;
  const warn = chalkFor('stderr', io.env).yellow;
  try {
    const result = await readInDatabaseConfig(loaded.config, dbUri, loaded.sources);
    for (const p of result.problems) io.stderr.write(warn(`! db-config: ignored ${p}\n`));
    if (result.applied.length === 0) return null;
    const source = loaded.config.dbPreConfig ? `in the database (db-config, db-pre-config ${loaded.config.dbPreConfig})` : 'in the database (db-config)';
    return { config: result.config, sources: Object.fromEntries(result.applied.map((k) => [k, source])) };
  } catch (e) {
    io.stderr.write(warn(`! db-config: the database's settings not read, it is not reachable (${(e as Error).message})\n`));
    return null;
  }
}

/** Where the configured `routes` came from: the file, variable or flag. */
const describeRoutes = (loaded: LoadedConfig): string => loaded.origins['routes'] ?? loaded.file ?? 'config';

/** Route mounts against the schema cache: 1 when a mount has a problem, 0 when all are fine or unchecked. */
async function checkMountsAgainstDatabase(config: AppConfig, io: CliIo): Promise<number> {
  if (config.routes.length === 0) return 0;
  const err = chalkFor('stderr', io.env);
  const out = chalkFor('stdout', io.env);
  if (!config.dbUri) {
    io.stderr.write(err.yellow('! routes: not checked against a database (no db-uri; the embedded database is started by serve only)\n'));
    return 0;
  }
  // Loaded on demand: a config without routes (and --help) needs no database modules.
  const [{ default: pg }, { loadSchemaCache }, { cacheSchemas, resolveMounts }] = await Promise.all([
    import('pg'), import('../catalog/load.js'), import('../mount/check.js'),
  ]);
  const client = new pg.Client({ connectionString: config.dbUri, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  let problems: MountProblem[];
  let count = 0;
  try {
    await client.connect();
    const { cache } = await loadSchemaCache(client, cacheSchemas(config));
    const resolved = resolveMounts(config.routes, cache, config.dbSchemas);
    problems = resolved.problems;
    count = resolved.groups.reduce((n, g) => n + g.mounts.length, 0);
  } catch (e) {
    io.stderr.write(err.yellow(`! routes: not checked, the database is not reachable (${(e as Error).message})\n`));
    return 0;
  } finally {
    await client.end().catch(() => undefined);
  }
  if (problems.length === 0) {
    io.stdout.write(out.green(`✔ routes: ${count} mounts checked against the database\n`));
    return 0;
  }
  for (const p of problems) io.stderr.write(err.red(`✖ ${p.where} (${p.what}): ${p.message}\n`));
  return 1;
}
