// Wires a running server: pool, schema cache (with reload on NOTIFY and on demand), authenticator,
// HTTP and admin listeners, connection recovery, and graceful shutdown. Used by `dbrest serve` and
// by the tests.
//
// The database may be down at start or go away while serving: the server never exits for that.
// Requests then get 503s in the error model and /ready says 503, while one recovery loop retries
// with capped exponential backoff; once the database answers, the schema cache is rebuilt (it may
// have changed) and requests are served again.
import type http from 'node:http';
import { createAuthenticator } from '../auth/jwt.js';
import { loadSchemaCache, openCatalogHelper, type LoadedSchemaCache } from '../catalog/load.js';
import type { PrefetchedSchemaCache } from '../catalog/prefetch.js';
import { coalesce } from '../catalog/coalesce.js';
import { listenForNotifications } from '../catalog/reload.js';
import { poolThroughPooler, throughPooler } from '../db/pooler.js';
import { ensureSchemaWatch, WATCH_SCHEMA } from '../catalog/schema-watch.js';
import type { SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import { createPool, type Pool } from '../db/pool.js';
import { startReadReplicas } from '../db/replicas.js';
import { toPgError } from '../db/pg-error.js';
import { fetchRoleSettings, fetchSessionUser, type RoleSettings } from '../db/role-settings.js';
import type { Logger } from '../observe/log.js';
import { cacheSchemas } from '../mount/check.js';
import { mountTable } from './mount.js';
import { createAdminServer } from './admin.js';
import { listen, listenAdmin, listenUnix, urlHost } from './listen.js';
import { mountsShadowedByDocs, shadowedByDocs } from './docs.js';
import { adminRoutes, type AdminRoute } from './admin-routes.js';
import type { LoadedConfig } from '../config/load.js';
import { createMetrics, type Metrics } from '../observe/metrics.js';
import { registerReplicaMetrics } from '../observe/replica-metrics.js';
import { lifecycle } from '../observe/lifecycle.js';
import type { AppState } from './app.js';
import { createHttpServer } from './server.js';

export interface RunningServer {
  /** `http://host:port` the API listens on. */
  readonly url: string;
  readonly port: number;
  readonly adminUrl: string | null;
  readonly app: AppState;
  /**
   * Rebuild the schema cache; requests keep being served from the old one meanwhile. `trigger`
   * (SIGUSR1, NOTIFY, …) is named in the log line.
   */
  reloadSchemaCache(trigger?: string): Promise<void>;
  /** Resolves once a schema cache is loaded (at once if it already is). */
  ready(): Promise<void>;
  /**
   * Apply a new configuration without a restart (SIGUSR2, NOTIFY 'reload config'). Keys that
   * shape listeners or the pool (db-uri, db-pool*, server-*, admin-*) need a restart and are
   * kept; the names of such keys that changed are returned.
   */
  reloadConfig(next: AppConfig, trigger?: string): Promise<string[]>;
  /** Stop accepting, finish in-flight requests, close the pool. */
  close(): Promise<void>;
  /** What the admin server answers from (null without one configured); a cluster primary asks a worker's over IPC. */
  readonly admin: AdminHandlers | null;
}

export interface AdminHandlers {
  isReady(): Promise<boolean>;
  readonly route: AdminRoute;
  readonly metrics: Metrics | null;
}

/** Keys whose new value only takes effect after a restart. */
const RESTART_FIELDS: ReadonlyArray<keyof AppConfig> = [
  'dbUri', 'dbPool', 'dbPoolAcquisitionTimeout', 'dbPoolMaxLifetime', 'dbPoolMaxIdletime', 'dbChannel', 'dbChannelEnabled',
  'serverHost', 'serverPort', 'serverUnixSocket', 'serverUnixSocketMode', 'serverReuseport', 'adminServerHost', 'adminServerPort',
  'adminServerUnixSocket', 'adminServerUnixSocketMode', 'dbEmbeddedDir', 'dbEmbeddedDurable', 'dbPoolAutomaticRecovery', 'dbSchemaWatch',
  'serverWorkers', 'dbReadUris', 'dbChannelUri',
];

export interface StartOptions {
  /** Re-read the configuration (for NOTIFY 'reload config'); null when it has problems. */
  readonly rereadConfig?: () => Promise<AppConfig | null>;
  /** A first schema-cache load already under way (catalog/prefetch.ts); if it fails, the first load runs as usual. */
  readonly prefetched?: Promise<PrefetchedSchemaCache>;
  /**
   * db-pool-automatic-recovery = false and the database is lost while serving: called once the
   * server is closed (`dbrest serve` exits 1, so an orchestrator restarts it). Default: nothing more.
   */
  readonly onGiveUp?: (reason: string) => void;
  /** The configuration as the CLI loaded it (its sources), for the admin server's /config. */
  readonly loaded?: LoadedConfig;
  /** db-schema-watch: the URI to install the event triggers with (the embedded superuser's); default the server's. */
  readonly schemaWatchUri?: string;
  /**
   * A node:cluster worker (server-workers > 1): the primary removed any stale server-unix-socket
   * (a worker removing it would unlink the socket the primary already serves) and runs the admin
   * server itself, asking each worker's `admin` handlers over IPC. Default: false.
   */
  readonly clusterWorker?: boolean;
  /**
   * Run the start-up checks whose outcome is the database's, not this process's: the pooler
   * warnings and db-schema-watch's install. False in every cluster worker but the first, so that
   * each line is printed once, not once per worker. Default: true.
   */
  readonly startupChecks?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());


/** Backoff between reconnection attempts: 0.5 s doubling up to 8 s (PostgREST caps at 32 s). */
export const RETRY_INITIAL_MS = 500;
export const RETRY_MAX_MS = 8000;

/**
 * NOTIFY 'reload schema' bursts (a migration run statement by statement: one NOTIFY per commit) are
 * coalesced: the reload starts once they stop for NOTIFY_QUIET_MS, or NOTIFY_MAX_WAIT_MS after the
 * first, whichever comes first.
 */
export const NOTIFY_QUIET_MS = 50;
export const NOTIFY_MAX_WAIT_MS = 1000;

/**
 * db-schema-watch at start: install the event triggers, or say once why they are not there. True when
 * the install failed for a reason other than privilege (the database was down): worth another try
 * once the connection recovers.
 */
async function installSchemaWatch(uri: string, config: AppConfig, log: Logger): Promise<boolean> {
  if (!config.dbChannelEnabled) {
    log.warn('db-schema-watch: nothing installed, db-channel-enabled is false (no NOTIFY would be heard)');
    return false;
  }
  const outcome = await ensureSchemaWatch(uri, config.dbChannel, Math.max(1, config.dbPoolAcquisitionTimeout * 1000));
  if (outcome.kind === 'installed') log.info(`db-schema-watch: event triggers installed (schema ${WATCH_SCHEMA}): DDL reloads the schema cache`);
  else if (outcome.kind === 'present') log.debug('db-schema-watch: event triggers already installed');
  else {
    const why = outcome.privilege ? 'only a superuser may create event triggers' : `${outcome.reason}; tried again when the database answers`;
    log.warn(`db-schema-watch: event triggers not installed (${why}); DDL reaches the API after NOTIFY ${config.dbChannel}, 'reload schema' or SIGUSR1, or once a superuser runs the SQL the README gives`);
    return !outcome.privilege;
  }
  return false;
}

/** Start-up warnings for what a transaction-pooling PgBouncer breaks: LISTEN, and named prepared statements. */
async function warnAboutPoolers(config: AppConfig, dbUri: string, pool: Pool, log: Logger): Promise<void> {
  const timeout = Math.max(1000, config.dbPoolAcquisitionTimeout * 1000);
  const channelUri = config.dbChannelUri ?? dbUri;
  const [pooled, channelPooled] = await Promise.all([
    config.dbPreparedStatements || (config.dbChannelEnabled && channelUri === dbUri) ? poolThroughPooler(pool) : null,
    config.dbChannelEnabled && channelUri !== dbUri ? throughPooler(channelUri, timeout) : null,
  ]);
  if (config.dbPreparedStatements && pooled === true) {
    log.warn('db-prepared-statements is on but db-uri goes through a connection pooler (PgBouncer?): in transaction mode its prepared statements go missing; set db-prepared-statements = false');
  }
  const listenPooled = channelUri === dbUri ? pooled : channelPooled;
  if (config.dbChannelEnabled && listenPooled === true) {
    log.warn(`db-channel-enabled is on but LISTEN ${config.dbChannel} goes through a connection pooler (PgBouncer?), which may not deliver NOTIFY; set db-channel-uri to a direct connection (or db-channel-enabled = false)`);
  }
}

export async function startServer(initial: AppConfig, dbUri: string, log: Logger, opts: StartOptions = {}): Promise<RunningServer> {
  let config = initial;
  const pool = createPool(dbUri, config, (e) => log.debug(`pooled connection lost: ${e.message}`));
  // Read replicas (db-read-uris): their own pools and health check; the schema cache is read from the primary.
  const replicas = config.dbReadUris.length > 0 ? startReadReplicas(config.dbReadUris, config, () => config.dbReadMaxLag, log) : null;
  // Metrics are served by the admin server: without one, none are collected.
  const metrics = config.adminServerPort !== null || config.adminServerUnixSocket !== null ? createMetrics(pool, config.dbPool) : null;
  if (metrics !== null) registerReplicaMetrics(metrics.registry, replicas);
  let cache: SchemaCache | null = null;
  let roleSettings: RoleSettings = new Map();
  // The authenticator role, learnt with the schema cache; no JWT may name it (auth/jwt.ts).
  let authenticatorRole: string | null = null;
  let closed = false;
  let connected = false;
  let readyWaiters: Array<() => void> = [];
  // The recovery loop sleeps between attempts; close() ends the sleep (closing never waits for a
  // retry), and so does poke() once RETRY_INITIAL_MS have passed since the last attempt: a request
  // that finds no schema cache, a request that loses its connection, or a /ready probe asks for an
  // attempt now rather than at the end of a backoff grown to seconds. Traffic therefore makes dbrest
  // notice a returning database within about RETRY_INITIAL_MS, at most one attempt per that period.
  let wake: (() => void) | null = null;
  let lastAttempt = 0;
  const backoff = (ms: number) =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  const poke = (): void => {
    if (wake !== null && performance.now() - lastAttempt >= RETRY_INITIAL_MS) wake();
  };

  const use = (loaded: LoadedSchemaCache, settings: RoleSettings, sessionUser: string | null, trigger: string | null): void => {
    // Relationships are worked out on first use (catalog/build.ts). A reload does it before the
    // swap, so that no request pays for it; the first load leaves it: serving does not wait for it.
    const reload = cache !== null;
    const relationships = reload ? `, ${loaded.cache.relationships.length} relationships` : '';
    roleSettings = settings;
    authenticatorRole = sessionUser;
    cache = loaded.cache;
    connected = true;
    const ms = loaded.fetchMs + loaded.buildMs;
    metrics?.schemaCacheLoaded(ms / 1000, { relations: loaded.cache.relations.length, functions: loaded.cache.routines.length });
    const what = reload ? `schema cache reloaded${trigger ? ` (${trigger})` : ''}` : 'schema cache loaded';
    lifecycle(log, 'schema_cache_loaded', `${what}: ${loaded.cache.relations.length} relations${relationships}, ${loaded.cache.routines.length} functions (${ms.toFixed(0)} ms)`,
      { relations: loaded.cache.relations.length, functions: loaded.cache.routines.length, duration_ms: Math.round(ms), reload, trigger });
    mountTable(app, loaded.cache);
    const hidden = shadowedByDocs(config.serverDocsPath, loaded.cache);
    if (hidden.length > 0) log.warn(`server-docs-path ${config.serverDocsPath} hides ${hidden.slice(0, 3).join(', ')}${hidden.length > 3 ? ` and ${hidden.length - 3} more` : ''}: the API explorer answers there first; set server-docs-path to another path to reach them`);
    const hiddenMounts = mountsShadowedByDocs(config.serverDocsPath, config.routes);
    if (hiddenMounts.length > 0) log.warn(`server-docs-path ${config.serverDocsPath} hides the route mount${hiddenMounts.length > 1 ? 's' : ''} ${hiddenMounts.join(', ')} at ${config.serverDocsPath} and below: the API explorer answers there first; set server-docs-path to another path to reach them`);
    readyWaiters.forEach((w) => w());
    readyWaiters = [];
  };
  let prefetched = opts.prefetched ?? null;
  const load = async (trigger: string | null = null) => {
    const first = prefetched;
    prefetched = null;
    if (first !== null) {
      // Failed: load again the ordinary way, which reports why (and retries while the database is away).
      const got = await first.catch(() => null);
      if (got !== null) return use(got.loaded, got.roleSettings, got.sessionUser, trigger);
    }
    // The catalog is read on two connections at once: the pooled one and a short-lived helper
    // outside the pool (with db-pool=1 a second pooled one would wait for the first).
    // Settled both ways: when one fails, the other's connection is closed or released, not leaked
    // (a leaked helper kept a worker alive after SIGTERM; a leaked pooled one would hang pool.end).
    const [pooled, helped] = await Promise.allSettled([pool.connect(), openCatalogHelper(dbUri, Math.max(1, config.dbPoolAcquisitionTimeout * 1000))]);
    if (pooled.status === 'rejected') {
      if (helped.status === 'fulfilled') await helped.value?.close();
      throw pooled.reason;
    }
    const client = pooled.value;
    const helper = helped.status === 'fulfilled' ? helped.value : null;
    try {
      const loaded = await loadSchemaCache(client, cacheSchemas(config), helper?.client ?? null);
      use(loaded, await fetchRoleSettings(client, config.dbHoistedTxSettings), await fetchSessionUser(client), trigger);
    } finally {
      client.release();
      await helper?.close();
    }
  };

  // Reloads are serialised and coalesced: a burst of NOTIFYs costs one or two rebuilds.
  let reloading: Promise<void> | null = null;
  let again: string | null = null;
  const reloadSchemaCache = async (trigger = 'on demand'): Promise<void> => {
    if (reloading) {
      // (bounded: a long reload under a stream of notifications would otherwise grow it without end)
      again = again === null || again === trigger ? trigger : again.endsWith('…') || again.length > 200 ? again.replace(/…?$/, '…') : `${again}, ${trigger}`;
      return reloading;
    }
    reloading = (async () => {
      // A reload asked for while one runs is queued (one, naming every trigger that asked).
      let next: string | null = trigger;
      do {
        const why = next;
        again = null;
        await load(why).catch((e) => {
          metrics?.schemaCacheFailed();
          lifecycle(log, 'schema_cache_reload_failed', `schema cache reload failed: ${(e as Error).message}`, { error: (e as Error).message }, 'error');
          if (!toPgError(e)) connectionLost();
        });
        next = again as string | null;
      } while (next !== null);
    })().finally(() => (reloading = null));
    return reloading;
  };

  // db-schema-watch's install, and whether it waits for the database to come back for another try.
  let watchRetry = false;
  const watchSchema = () => installSchemaWatch(opts.schemaWatchUri ?? dbUri, config, log).then((retry) => void (watchRetry = retry));

  // One recovery loop at a time: retry until the database answers and the cache is rebuilt.
  let recovering: Promise<void> | null = null;
  const connectionLost = (): void => {
    connected = false;
    if (closed) return;
    if (recovering) return poke();
    recovering = (async () => {
      let delay = RETRY_INITIAL_MS;
      for (let attempt = 1; !closed; attempt++) {
        lastAttempt = performance.now();
        try {
          await load('database back');
          // The database was down when the event triggers were to be installed: now it answers.
          if (watchRetry) void watchSchema();
          if (attempt > 1) {
            metrics?.reconnected();
            lifecycle(log, 'reconnected', 'database connection recovered', { attempts: attempt });
          }
          return;
        } catch (e) {
          const pgErr = toPgError(e);
          const why = pgErr ? `${pgErr.code} ${pgErr.message}` : (e as Error).message;
          if (!config.dbPoolAutomaticRecovery) {
            // A lost connection was found gone for good: stop instead of serving 503s.
            log.error(`database unavailable and db-pool-automatic-recovery is false: stopping (${why})`);
            void close().then(() => opts.onGiveUp?.(why));
            return;
          }
          metrics?.connectionError();
          log.error(`database unavailable (attempt ${attempt}, next in ${(delay / 1000).toFixed(1)} s): ${why}`);
        }
        await backoff(delay);
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    })().finally(() => (recovering = null));
  };

  const authenticator = () => authenticatorRole;
  let auth = await createAuthenticator(config, authenticator);
  const app: AppState = {
    // Getters: a config reload swaps both for the requests that start after it.
    get config() {
      return config;
    },
    pool,
    replicas,
    get auth() {
      return auth;
    },
    log,
    cache: () => {
      if (cache === null) poke(); // the request gets DBRST002; the next one may find the cache
      return cache;
    },
    roleSettings: () => roleSettings,
    connectionLost,
  };
  // db-schema-watch: installed while the cache loads and before LISTEN starts, so the install's own
  // DDL (the first time) does not come back as a reload. Failing to install is a warning, not an exit.
  const startupChecks = opts.startupChecks !== false;
  const watchInstalled = config.dbSchemaWatch === true && startupChecks ? watchSchema() : null;
  let loadedAtStart = false;
  try {
    await load();
    loadedAtStart = true;
  } catch (e) {
    const pgErr = toPgError(e);
    const why = pgErr ? `${pgErr.code} ${pgErr.message}` : (e as Error).message;
    if (!config.dbPoolAutomaticRecovery) {
      // Not serving 503s until the database comes: the caller (serve) reports it and exits 1.
      await pool.end().catch(() => undefined);
      await replicas?.close();
      throw new Error(`could not load the schema cache and db-pool-automatic-recovery is false: ${why}`);
    }
    log.error(`could not load the schema cache: ${why}; retrying`);
    connectionLost();
  }

  if (replicas !== null) {
    // The first check before serving, so that the first reads already go to the replicas.
    await replicas.check();
    const up = replicas.replicas.filter((r) => r.healthy).length;
    log.info(`read replicas: ${up} of ${replicas.replicas.length} in the rotation (db-read-max-lag ${config.dbReadMaxLag} s)`);
  }

  const { server, inFlight } = createHttpServer(app, metrics === null ? null : metrics.requestDone);
  // server-unix-socket takes precedence over host and port, as in PostgREST.
  const port = config.serverUnixSocket ? 0 : await listen(server, config.serverHost, config.serverPort, config.serverReuseport);
  if (config.serverUnixSocket) await listenUnix(server, config.serverUnixSocket, config.serverUnixSocketMode, opts.clusterWorker !== true);

  // With the database away they would only wait for a timeout.
  if (loadedAtStart && startupChecks) await Promise.all([warnAboutPoolers(config, dbUri, pool, log), watchInstalled]);
  // A burst of NOTIFYs (one per DDL transaction with db-schema-watch) costs one reload.
  const schemaNotices = coalesce((n) => void reloadSchemaCache(n > 1 ? `NOTIFY ×${n}` : 'NOTIFY'), NOTIFY_QUIET_MS, NOTIFY_MAX_WAIT_MS);
  // Wait (briefly) for LISTEN to be in place, so a NOTIFY sent right after start-up is not missed.
  let listening: () => void = () => undefined;
  const listenerReady = new Promise<void>((r) => (listening = r));
  let listenerConnects = 0;
  const listener = config.dbChannelEnabled
    ? listenForNotifications({
        uri: config.dbChannelUri ?? dbUri,
        channel: config.dbChannel,
        onNotify: (payload) => {
          if (payload === '' || payload === 'reload schema') schemaNotices.add();
          else if (payload === 'reload config' && opts.rereadConfig) {
            void opts.rereadConfig().then((next) => (next ? reloadConfig(next, 'NOTIFY') : null));
          }
        },
        onConnected: () => {
          // A reconnection means the database was away: what we cached may be stale.
          if (++listenerConnects > 1) void reloadSchemaCache('listener reconnected');
          listening();
        },
        onError: (e) => log.warn(`listener: ${e.message}`),
      })
    : null;
  // With the database down there is nothing to wait for: the listener connects when it comes back.
  if (listener && loadedAtStart) await Promise.race([listenerReady, sleep(2000)]);

  let admin: http.Server | null = null;
  let adminUrl: string | null = null;
  // admin-server-unix-socket takes precedence over admin-server-port, as server-unix-socket does.
  const adminHandlers: AdminHandlers | null = config.adminServerPort !== null || config.adminServerUnixSocket !== null
    ? {
        isReady: async () => {
          const ready = cache !== null && connected;
          if (!ready) poke();
          return ready;
        },
        route: adminRoutes({ metrics, config: () => config, loaded: opts.loaded ?? null, cache: () => cache }),
        metrics,
      }
    : null;
  if (adminHandlers !== null && opts.clusterWorker !== true) {
    admin = createAdminServer(adminHandlers.isReady, adminHandlers.route);
    adminUrl = await listenAdmin(admin, config);
  }

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      closed = true;
      wake?.();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      // server.close resolves once in-flight requests have answered; wait for their handlers too.
      while (inFlight() > 0) await sleep(10);
      if (admin) await new Promise<void>((r) => admin!.close(() => r()));
      await listener?.close();
      schemaNotices.cancel();
      await recovering;
      await pool.end().catch(() => undefined);
      await replicas?.close();
    })();
    return closing;
  };

  const reloadConfig = async (next: AppConfig, trigger = 'on demand'): Promise<string[]> => {
    const started = performance.now();
    const kept = RESTART_FIELDS.filter((f) => JSON.stringify(next[f]) !== JSON.stringify(config[f]));
    const merged = { ...next } as Record<keyof AppConfig, unknown>;
    for (const f of kept) merged[f] = config[f];
    const nextAuth = await createAuthenticator(merged as unknown as AppConfig, authenticator);
    const schemasChanged = JSON.stringify(cacheSchemas(next)) !== JSON.stringify(cacheSchemas(config)) ||
      JSON.stringify(next.dbHoistedTxSettings) !== JSON.stringify(config.dbHoistedTxSettings);
    config = merged as unknown as AppConfig;
    auth = nextAuth;
    if (schemasChanged) await reloadSchemaCache(`config ${trigger}`);
    else if (cache !== null) mountTable(app, cache);
    const took = `${trigger}, ${(performance.now() - started).toFixed(0)} ms`;
    if (kept.length > 0) log.warn(`config reloaded (${took}); these keys need a restart to change: ${kept.join(', ')}`);
    else log.info(`config reloaded (${took})`);
    return kept;
  };

  const ready = () => (cache !== null ? Promise.resolve() : new Promise<void>((r) => readyWaiters.push(r)));
  const url = config.serverUnixSocket ? `unix:${config.serverUnixSocket}` : `http://${urlHost(config.serverHost)}:${port}`;
  return { url, port, adminUrl, app, reloadSchemaCache, reloadConfig, ready, close, admin: adminHandlers };
}
