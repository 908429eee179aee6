// `dbrest serve`: start (or connect to) the database, serve HTTP, print the URL, and shut down
// gracefully on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the pool, stop the
// embedded database). SIGUSR1 reloads the schema cache.
import path from 'node:path';
import chalk from 'chalk';
import type { LoadedConfig } from '../config/load.js';
import { formatProblem } from '../config/print.js';
import type { AppConfig, RouteGroup } from '../config/types.js';
import { parseRoutes } from '../config/validate.js';
import { listExamples } from '../embedded/examples.js';
import { bootstrapEmbedded, EMBEDDED_ANON_ROLE } from '../embedded/bootstrap.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../embedded/postgres.js';
import { passwordOf } from '../embedded/uri.js';
import { prefetchSchemaCache } from '../catalog/prefetch.js';
import { cacheSchemas } from '../mount/check.js';
import { createLogger, maskUri } from '../observe/log.js';
import { createJsonLogger, isStructured } from '../observe/json-log.js';
import { lifecycle } from '../observe/lifecycle.js';
import { stripVTControlCharacters } from 'node:util';

/** What main.ts hands every command besides the config: `reload` re-reads file, env and flags. */
export interface ServeContext {
  readonly reload?: () => Promise<LoadedConfig>;
}

/**
 * The embedded default's configuration: the embedded database, its anonymous role, and the route
 * mounts of the bundled examples after any the configuration has. An example whose routes do not
 * parse is reported and left out.
 */
function embeddedConfig(config: AppConfig, dbUri: string, report: (m: string) => void): AppConfig {
  const routes: RouteGroup[] = [...config.routes];
  for (const example of listExamples()) {
    if (example.routes === null) continue;
    const parsed = parseRoutes(example.routes);
    if (parsed.ok) routes.push(...parsed.value);
    else for (const i of parsed.issues) report(`examples/${example.name}/routes.json${i.path ?? ''}: ${i.message}`);
  }
  return { ...config, dbUri, dbAnonRole: config.dbAnonRole ?? EMBEDDED_ANON_ROLE, routes };
}

export async function runServe(config: AppConfig, _loaded?: LoadedConfig, ctx: ServeContext = {}): Promise<number> {
  const log = config.logFormat === 'json' ? createJsonLogger(config.logLevel) : createLogger(config.logLevel);
  // log-format=json: the CLI's own lines are JSON events too, so the output stays one JSON object per line.
  const say = isStructured(log)
    ? (m: string) => log.event('serve', { msg: stripVTControlCharacters(m) })
    : (m: string) => process.stderr.write(`${chalk.dim('dbrest')} ${m}\n`);
  let embedded: EmbeddedPostgres | null = null;
  let dbUri = config.dbUri;
  let effective = config;
  const started = Date.now();

  if (dbUri === null) {
    const dataDir = path.resolve(config.dbEmbeddedDir);
    say(`no db-uri configured: starting the embedded PostgreSQL in ${dataDir}`);
    embedded = await startEmbeddedPostgres({
      dataDir,
      durable: config.dbEmbeddedDurable,
      onProgress: (m) => say(chalk.dim(m)),
      // dbrest keeps the database it started running: a crash is logged and the server restarted;
      // meanwhile requests get 503s and the pool's recovery loop reconnects once it is back.
      supervise: (e) => (e.kind !== 'restarted' ? log.error(e.message)
        : isStructured(log) ? lifecycle(log, 'postmaster_restarted', e.message, {}, 'warn') : say(e.message)),
    });
    say(config.dbEmbeddedDurable
      ? chalk.dim('embedded PostgreSQL is durable (fsync on)')
      : chalk.yellow('db-embedded-durable=false: the embedded PostgreSQL runs with fsync=off — faster, but a machine crash can lose committed writes'));
    dbUri = await bootstrapEmbedded(embedded.uri, passwordOf(embedded.uri), (m) => say(chalk.dim(m)));
    effective = embeddedConfig(config, dbUri, (m) => log.error(m));
  }
  const embeddedUri = embedded ? dbUri : null;
  // Re-read the configuration; the embedded database's settings apply again. Problems keep the old one.
  const rereadConfig = async (): Promise<AppConfig | null> => {
    if (!ctx.reload) return null;
    const next = await ctx.reload();
    if (next.problems.length > 0) {
      for (const p of next.problems) log.error(`config not reloaded: ${formatProblem(p)}`);
      return null;
    }
    return embeddedUri ? embeddedConfig(next.config, embeddedUri, (m) => log.error(m)) : next.config;
  };

  let server;
  try {
    // The schema cache starts loading now, while the server's modules load (startup overlaps the
    // catalog queries: the bulk of a cold start on a big schema). Its failure is handled by startServer.
    const prefetched = prefetchSchemaCache(dbUri, cacheSchemas(effective), effective.dbHoistedTxSettings, Math.max(1, effective.dbPoolAcquisitionTimeout * 1000));
    prefetched.catch(() => undefined);
    const { startServer } = await import('../http/start.js');
    server = await startServer(effective, dbUri, log, { rereadConfig, prefetched, ...(_loaded ? { loaded: _loaded } : {}) });
  } catch (e) {
    await embedded?.stop();
    process.stderr.write(chalk.red(`✖ could not start: ${(e as Error).message}`) + '\n');
    process.stderr.write(`  database: ${maskUri(dbUri)}\n`);
    return 1;
  }

  if (isStructured(log)) lifecycle(log, 'start', `listening on ${server.url}`, { url: server.url, admin_url: server.adminUrl, ready_ms: Date.now() - started });
  else say(`${chalk.bold('listening on')} ${chalk.green(server.url)} ${chalk.dim(`(ready in ${Date.now() - started} ms)`)}`);
  if (embedded) {
    say(`try: curl '${server.url}/films?select=title,year,directors(name)&order=year'`);
    for (const example of listExamples()) {
      if (example.tryPaths.length === 0) continue;
      say(`${chalk.bold(example.title)}: ${example.tryPaths.map((p) => `curl '${server.url}${p}'`).join('  ·  ')}`);
    }
  }
  if (server.adminUrl) say(`admin: ${server.adminUrl}/live ${server.adminUrl}/ready`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      say(`${signal}: finishing in-flight requests…`);
      await server.close();
      await embedded?.stop();
      if (isStructured(log)) lifecycle(log, 'shutdown', 'stopped', { signal });
      else say('stopped');
      resolve(0);
    };
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
    process.on('SIGUSR1', () => {
      say('SIGUSR1: reloading the schema cache');
      void server.reloadSchemaCache();
    });
    process.on('SIGUSR2', () => {
      say('SIGUSR2: reloading the configuration');
      void rereadConfig()
        .then((next) => (next ? server.reloadConfig(next) : null))
        .catch((e) => log.error(`config not reloaded: ${(e as Error).message}`));
    });
  });
}
