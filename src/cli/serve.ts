// `dbrest serve`: start (or connect to) the database, serve HTTP, print the URL, and shut down
// gracefully on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the pool, stop the
// embedded database). SIGUSR1 reloads the schema cache, SIGUSR2 the configuration; with --watch, so
// does a change to the config file. With server-workers > 1 this process is the cluster's primary
// (cluster/primary.ts) after starting the embedded database, if any, and each worker runs this
// function again without one (cluster/worker.ts).
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
import { catalogProgress, NO_PROGRESS, terminalProgress } from '../observe/progress.js';
import { stripVTControlCharacters } from 'node:util';
import { EMBEDDED_DATABASE } from '../embedded/bootstrap.js';
import { withDatabase } from '../embedded/uri.js';
import { watchConfigFile, type ConfigWatcher } from './watch-config.js';
import { ensureSchemaWatch } from '../catalog/schema-watch.js';
import { workerCount } from '../cluster/protocol.js';
import { joinCluster, leaveCluster, reportStarted } from '../cluster/worker.js';

/** What main.ts hands every command besides the config: `reload` re-reads file, env and flags. */
export interface ServeContext {
  readonly reload?: () => Promise<LoadedConfig>;
  /** `serve --watch`: re-read the config file when it changes, and db-schema-watch unless configured. */
  readonly watch?: boolean;
}

/** --watch turns db-schema-watch on unless the configuration says otherwise. */
function watchDefaults(config: AppConfig, sources: Readonly<Record<string, ConfigSource>> | undefined, watch: boolean): AppConfig {
  const set = sources?.['db-schema-watch'] !== undefined && sources['db-schema-watch'] !== 'default';
  return watch && !set ? { ...config, dbSchemaWatch: true } : config;
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
  // The first schema-cache load's progress, on a terminal only (observe/progress.ts); cleared before any line.
  const progress = isStructured(log) ? NO_PROGRESS : terminalProgress(process.stderr, chalk.dim('dbrest'));
  const say = isStructured(log)
    ? (m: string) => log.event('serve', { msg: stripVTControlCharacters(m) })
    : (m: string) => {
        progress.clear();
        process.stderr.write(`${chalk.dim('dbrest')} ${m}\n`);
      };
  let embedded: EmbeddedDefault | null = null;
  let dbUri = config.dbUri;
  let effective = watchDefaults(config, loaded?.sources, ctx.watch === true);
  let embeddedUri: string | null = null;
  let startupChecks = true;
  const started = Date.now();
  const worker = cluster.isWorker;
  const workers = worker ? 1 : workerCount(config);

  if (worker) {
    // The primary runs the embedded database, if any, and says so; a worker is told its URI.
    ({ embeddedUri, startupChecks } = await joinCluster());
    if (embeddedUri !== null) {
      dbUri = embeddedUri;
      effective = embeddedConfig(effective, dbUri, (m) => log.error(m));
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
    effective = embeddedConfig(effective, dbUri, (m) => log.error(m));
  }
  if (dbUri === null) {
    process.stderr.write(chalk.red('✖ could not start: the cluster primary sent no database') + '\n');
    return 1;
  }
  const announce = (url: string, adminUrl: string | null): void => {
    const n = workers > 1 ? `${workers} workers, ` : '';
    // server-docs-path: the API explorer's address (not on a unix socket: no browser reaches it there).
    const docsPath = effective.serverDocsPath;
    const docsUrl = docsPath && url.startsWith('http') ? `${url}${docsPath}/` : null;
    if (isStructured(log)) lifecycle(log, 'start', `listening on ${url}`, { url, admin_url: adminUrl, docs_url: docsUrl, workers, ready_ms: Date.now() - started });
    else say(`${chalk.bold('listening on')} ${chalk.green(url)} ${chalk.dim(`(${n}ready in ${Date.now() - started} ms)`)}`);
    if (docsUrl && !isStructured(log)) say(`API explorer: ${chalk.green(docsUrl)}`);
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
    // Installed once here, as the embedded superuser; the workers then find it present.
    if (embedded && effective.dbSchemaWatch === true && effective.dbChannelEnabled) {
      await ensureSchemaWatch(withDatabase(embedded.superuserUri, EMBEDDED_DATABASE), effective.dbChannel);
    }
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
    const watched = watchDefaults(next.config, next.sources, ctx.watch === true);
    const base = embeddedUri ? embeddedConfig(watched, embeddedUri, (m) => log.error(m)) : watched;
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
    const prefetched = prefetchSchemaCache(dbUri, cacheSchemas(effective), effective.dbHoistedTxSettings, Math.max(1, effective.dbPoolAcquisitionTimeout * 1000), catalogProgress(progress));
    prefetched.catch(() => undefined).finally(() => progress.clear());
    const { startServer } = await import('../http/start.js');
    // The embedded database's event triggers are installed as its superuser (dbrest connects as the authenticator).
    const schemaWatchUri = embedded ? withDatabase(embedded.superuserUri, EMBEDDED_DATABASE) : dbUri;
    server = await startServer(effective, dbUri, log, { rereadConfig, prefetched, onGiveUp, schemaWatchUri, clusterWorker: worker, startupChecks, ...(loaded ? { loaded } : {}) });
  } catch (e) {
    progress.clear();
    await embedded?.close();
    if (isStructured(log)) log.flush(); // its lines before this one
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
    let watcher: ConfigWatcher | null = null;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      watcher?.close();
      if (!worker) say(`${signal}: finishing in-flight requests…`);
      await server.close();
      await embedded?.close();
      // The primary says it once for all its workers.
      if (!worker) {
        if (isStructured(log)) lifecycle(log, 'shutdown', 'stopped', { signal });
        else say('stopped');
      }
      // Every access line of the requests just finished is out before serve returns.
      if (isStructured(log)) log.flush();
      resolve(0);
    };
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
    process.on('SIGUSR1', () => {
      if (!worker) say('SIGUSR1: reloading the schema cache');
      void server.reloadSchemaCache('SIGUSR1');
    });
    // SIGUSR2 and --watch take the same path: file, env and flags read again, then applied.
    const reloadConfig = (trigger: string) =>
      void rereadConfig()
        .then((next) => (next ? server.reloadConfig(next, trigger) : null))
        .catch((e) => log.error(`config not reloaded: ${(e as Error).message}`));
    process.on('SIGUSR2', () => {
      if (!worker) say('SIGUSR2: reloading the configuration');
      reloadConfig('SIGUSR2');
    });
    if (ctx.watch) {
      const file = loaded?.file ?? null;
      if (file === null) say('--watch: no config file to watch (the settings come from the environment and flags)');
      else {
        watcher = watchConfigFile(file, () => {
          say(`--watch: ${file} changed, reloading the configuration`);
          reloadConfig('config file changed');
        }, (e) => log.error(`--watch: cannot watch ${file}: ${e.message}`));
        say(`--watch: reloading the configuration when ${file} changes`);
      }
    }
  });
}
