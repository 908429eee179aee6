// `dbrest serve`: start (or connect to) the database, serve HTTP, print the URL, and shut down
// gracefully on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the pool, stop the
// embedded database). SIGUSR1 reloads the schema cache. With server-workers > 1 this process is the
// cluster's primary (cluster/primary.ts) after starting the embedded database, if any, and each worker
// runs this function again without one (cluster/worker.ts).
import cluster from 'node:cluster';
import path from 'node:path';
import chalk from 'chalk';
import type { LoadedConfig } from '../config/load.js';
import { formatProblem } from '../config/print.js';
import type { AppConfig } from '../config/types.js';
import { listExamples } from '../embedded/examples.js';
import { embeddedConfig, openEmbeddedDefault, type EmbeddedDefault } from '../embedded/default.js';
import { prefetchSchemaCache } from '../catalog/prefetch.js';
import { cacheSchemas } from '../mount/check.js';
import { createLogger, maskUri, type Logger } from '../observe/log.js';
import { readInDatabaseConfig } from './in-database-config.js';
import type { ConfigSource } from '../config/load.js';
import { createJsonLogger, isStructured } from '../observe/json-log.js';
import { lifecycle } from '../observe/lifecycle.js';
import { stripVTControlCharacters } from 'node:util';
import { workerCount } from '../cluster/protocol.js';
import { joinCluster, leaveCluster, reportStarted } from '../cluster/worker.js';

/** What main.ts hands every command besides the config: `reload` re-reads file, env and flags. */
export interface ServeContext {
  readonly reload?: () => Promise<LoadedConfig>;
}

/**
 * db-config: the database's settings over the config. A database that cannot be asked leaves the
 * config as it is (the server's own recovery then deals with the database being away).
 */
async function withInDatabaseConfig(
  config: AppConfig, dbUri: string, sources: Readonly<Record<string, ConfigSource>>, log: Logger,
): Promise<AppConfig> {
  try {
    const result = await readInDatabaseConfig(config, dbUri, sources);
    for (const p of result.problems) log.error(`in-database configuration ignored: ${p}`);
    if (result.applied.length > 0) log.info(`in-database configuration: ${result.applied.join(', ')}`);
    return result.config;
  } catch (e) {
    log.error(`in-database configuration not read (db-config): ${(e as Error).message}`);
    return config;
  }
}

export async function runServe(config: AppConfig, loaded?: LoadedConfig, ctx: ServeContext = {}): Promise<number> {
  if (!cluster.isWorker) return serve(config, loaded, ctx);
  // A worker's IPC channel keeps it alive: close it however serving ends, so the process exits.
  try {
    return await serve(config, loaded, ctx);
  } finally {
    leaveCluster();
  }
}

async function serve(config: AppConfig, loaded: LoadedConfig | undefined, ctx: ServeContext): Promise<number> {
  const log = config.logFormat === 'json' ? createJsonLogger(config.logLevel) : createLogger(config.logLevel);
  // log-format=json: the CLI's own lines are JSON events too, so the output stays one JSON object per line.
  const say = isStructured(log)
    ? (m: string) => log.event('serve', { msg: stripVTControlCharacters(m) })
    : (m: string) => process.stderr.write(`${chalk.dim('dbrest')} ${m}\n`);
  let embedded: EmbeddedDefault | null = null;
  let dbUri = config.dbUri;
  let effective = config;
  let embeddedUri: string | null = null;
  const started = Date.now();
  const worker = cluster.isWorker;
  const workers = worker ? 1 : workerCount(config);

  if (worker) {
    // The primary runs the embedded database, if any, and says so; a worker is told its URI.
    embeddedUri = (await joinCluster()).embeddedUri;
    if (embeddedUri !== null) {
      dbUri = embeddedUri;
      effective = embeddedConfig(config, dbUri, (m) => log.error(m));
    }
  } else if (dbUri === null) {
    const dataDir = path.resolve(config.dbEmbeddedDir);
    say(`no db-uri configured: starting the embedded PostgreSQL in ${dataDir}`);
    try {
      embedded = await openEmbeddedDefault({
        dataDir,
        durable: config.dbEmbeddedDurable,
        command: 'serve',
        say: (m) => say(chalk.dim(m)),
        // dbrest keeps the database it started running: a crash is logged and the server restarted;
        // meanwhile requests get 503s and the pool's recovery loop reconnects once it is back.
        supervise: (e) => (e.kind !== 'restarted' ? log.error(e.message)
          : isStructured(log) ? lifecycle(log, 'postmaster_restarted', e.message, {}, 'warn') : say(e.message)),
      });
    } catch (e) {
      process.stderr.write(chalk.red(`✖ could not start: ${(e as Error).message}`) + '\n');
      return 1;
    }
    say(config.dbEmbeddedDurable
      ? chalk.dim('embedded PostgreSQL is durable (fsync on)')
      : chalk.yellow('db-embedded-durable=false: the embedded PostgreSQL runs with fsync=off — faster, but a machine crash can lose committed writes'));
    dbUri = embedded.uri;
    embeddedUri = dbUri;
    effective = embeddedConfig(config, dbUri, (m) => log.error(m));
  }
  if (dbUri === null) {
    process.stderr.write(chalk.red('✖ could not start: the cluster primary sent no database') + '\n');
    return 1;
  }
  const announce = (url: string, adminUrl: string | null): void => {
    const n = workers > 1 ? `${workers} workers, ` : '';
    if (isStructured(log)) lifecycle(log, 'start', `listening on ${url}`, { url, admin_url: adminUrl, workers, ready_ms: Date.now() - started });
    else say(`${chalk.bold('listening on')} ${chalk.green(url)} ${chalk.dim(`(${n}ready in ${Date.now() - started} ms)`)}`);
    if (embedded) {
      say(`try: curl '${url}/films?select=title,year,directors(name)&order=year'`);
      for (const example of listExamples()) {
        if (example.tryPaths.length === 0) continue;
        say(`${chalk.bold(example.title)}: ${example.tryPaths.map((p) => `curl '${url}${p}'`).join('  ·  ')}`);
      }
    }
    if (adminUrl) say(`admin: ${adminUrl}/live ${adminUrl}/ready`);
  };
  if (workers > 1) {
    const { runPrimary } = await import('../cluster/primary.js');
    const db = embedded;
    return runPrimary({ config, workers, embeddedUri, log, say, announce, closeDatabase: async () => void (await db?.close()) });
  }
  effective = await withInDatabaseConfig(effective, dbUri, loaded?.sources ?? {}, log);
  const serverUri = dbUri;
  // Re-read the configuration; the embedded database's settings apply again. Problems keep the old one.
  const rereadConfig = async (): Promise<AppConfig | null> => {
    if (!ctx.reload) return null;
    const next = await ctx.reload();
    if (next.problems.length > 0) {
      for (const p of next.problems) log.error(`config not reloaded: ${formatProblem(p)}`);
      return null;
    }
    const base = embeddedUri ? embeddedConfig(next.config, embeddedUri, (m) => log.error(m)) : next.config;
    return withInDatabaseConfig(base, serverUri, next.sources, log);
  };

  // db-pool-automatic-recovery = false: the server closed itself on losing the database; exit 1.
  let exitWith: ((code: number) => void) | null = null;
  let gaveUp: Promise<void> | null = null;
  const onGiveUp = (): void => {
    gaveUp = (embedded ? embedded.close() : Promise.resolve()).catch(() => undefined).then(() => exitWith?.(1));
  };

  let server;
  try {
    // The schema cache starts loading now, while the server's modules load (startup overlaps the
    // catalog queries: the bulk of a cold start on a big schema). Its failure is handled by startServer.
    const prefetched = prefetchSchemaCache(dbUri, cacheSchemas(effective), effective.dbHoistedTxSettings, Math.max(1, effective.dbPoolAcquisitionTimeout * 1000));
    prefetched.catch(() => undefined);
    const { startServer } = await import('../http/start.js');
    server = await startServer(effective, dbUri, log, { rereadConfig, prefetched, onGiveUp, clusterWorker: worker, ...(loaded ? { loaded } : {}) });
  } catch (e) {
    await embedded?.close();
    process.stderr.write(chalk.red(`✖ could not start: ${(e as Error).message}`) + '\n');
    process.stderr.write(`  database: ${maskUri(dbUri)}\n`);
    return 1;
  }

  // A worker's start is announced by the primary, once every worker serves.
  if (worker) reportStarted(server);
  else announce(server.url, server.adminUrl);

  return new Promise<number>((resolve) => {
    exitWith = resolve;
    if (gaveUp) return void gaveUp.then(() => resolve(1)); // stopped before we got here
    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      if (!worker) say(`${signal}: finishing in-flight requests…`);
      await server.close();
      await embedded?.close();
      // The primary says it once for all its workers.
      if (!worker) {
        if (isStructured(log)) lifecycle(log, 'shutdown', 'stopped', { signal });
        else say('stopped');
      }
      resolve(0);
    };
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
    process.on('SIGUSR1', () => {
      if (!worker) say('SIGUSR1: reloading the schema cache');
      void server.reloadSchemaCache();
    });
    process.on('SIGUSR2', () => {
      if (!worker) say('SIGUSR2: reloading the configuration');
      void rereadConfig()
        .then((next) => (next ? server.reloadConfig(next) : null))
        .catch((e) => log.error(`config not reloaded: ${(e as Error).message}`));
    });
  });
}
