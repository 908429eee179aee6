// Wires a running server: pool, schema cache (with reload on NOTIFY and on demand), authenticator,
// HTTP and admin listeners, connection recovery, and graceful shutdown. Used by `dbrest serve` and
// by the tests.
//
// The database may be down at start or go away while serving: the server never exits for that.
// Requests then get 503s in the error model and /ready says 503, while one recovery loop retries
// with capped exponential backoff; once the database answers, the schema cache is rebuilt (it may
// have changed) and requests are served again.
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { createAuthenticator } from '../auth/jwt.js';
import { loadSchemaCache } from '../catalog/load.js';
import { listenForNotifications } from '../catalog/reload.js';
import type { SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import { createPool } from '../db/pool.js';
import { toPgError } from '../db/pg-error.js';
import { fetchRoleSettings, type RoleSettings } from '../db/role-settings.js';
import type { Logger } from '../observe/log.js';
import { createAdminServer } from './admin.js';
import type { AppState } from './app.js';
import { createHttpServer } from './server.js';

export interface RunningServer {
  /** `http://host:port` the API listens on. */
  readonly url: string;
  readonly port: number;
  readonly adminUrl: string | null;
  readonly app: AppState;
  /** Rebuild the schema cache; requests keep being served from the old one meanwhile. */
  reloadSchemaCache(): Promise<void>;
  /** Resolves once a schema cache is loaded (at once if it already is). */
  ready(): Promise<void>;
  /** Stop accepting, finish in-flight requests, close the pool. */
  close(): Promise<void>;
}

function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

const urlHost = (h: string) => (h.includes(':') ? `[${h}]` : h);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/** Backoff between reconnection attempts: 0.5 s doubling up to 8 s (PostgREST caps at 32 s). */
export const RETRY_INITIAL_MS = 500;
export const RETRY_MAX_MS = 8000;

export async function startServer(config: AppConfig, dbUri: string, log: Logger): Promise<RunningServer> {
  const pool = createPool(dbUri, config, (e) => log.debug(`pooled connection lost: ${e.message}`));
  let cache: SchemaCache | null = null;
  let roleSettings: RoleSettings = new Map();
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

  const load = async () => {
    const client = await pool.connect();
    try {
      const loaded = await loadSchemaCache(client, config.dbSchemas);
      roleSettings = await fetchRoleSettings(client, config.dbHoistedTxSettings);
      cache = loaded.cache;
      connected = true;
      log.info(`schema cache loaded: ${loaded.cache.relations.length} relations, ${loaded.cache.relationships.length} relationships, ${loaded.cache.routines.length} functions (${(loaded.fetchMs + loaded.buildMs).toFixed(0)} ms)`);
      readyWaiters.forEach((w) => w());
      readyWaiters = [];
    } finally {
      client.release();
    }
  };

  // Reloads are serialised and coalesced: a burst of NOTIFYs costs one or two rebuilds.
  let reloading: Promise<void> | null = null;
  let again = false;
  const reloadSchemaCache = async (): Promise<void> => {
    if (reloading) {
      again = true;
      return reloading;
    }
    reloading = (async () => {
      do {
        again = false;
        await load().catch((e) => {
          log.error(`schema cache reload failed: ${(e as Error).message}`);
          if (!toPgError(e)) connectionLost();
        });
      } while (again);
    })().finally(() => (reloading = null));
    return reloading;
  };

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
          await load();
          if (attempt > 1) log.info('database connection recovered');
          return;
        } catch (e) {
          const pgErr = toPgError(e);
          log.error(`database unavailable (attempt ${attempt}, next in ${(delay / 1000).toFixed(1)} s): ${pgErr ? `${pgErr.code} ${pgErr.message}` : (e as Error).message}`);
        }
        await backoff(delay);
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    })().finally(() => (recovering = null));
  };

  const auth = await createAuthenticator(config);
  const app: AppState = {
    config,
    pool,
    auth,
    log,
    cache: () => {
      if (cache === null) poke(); // the request gets DBRST002; the next one may find the cache
      return cache;
    },
    roleSettings: () => roleSettings,
    connectionLost,
  };
  let loadedAtStart = false;
  try {
    await load();
    loadedAtStart = true;
  } catch (e) {
    const pgErr = toPgError(e);
    log.error(`could not load the schema cache: ${pgErr ? `${pgErr.code} ${pgErr.message}` : (e as Error).message}; retrying`);
    connectionLost();
  }

  const { server, inFlight } = createHttpServer(app);
  const port = await listen(server, config.serverHost, config.serverPort);

  // Wait (briefly) for LISTEN to be in place, so a NOTIFY sent right after start-up is not missed.
  let listening: () => void = () => undefined;
  const listenerReady = new Promise<void>((r) => (listening = r));
  let listenerConnects = 0;
  const listener = config.dbChannelEnabled
    ? listenForNotifications({
        uri: dbUri,
        channel: config.dbChannel,
        onNotify: (payload) => {
          if (payload === '' || payload === 'reload schema') void reloadSchemaCache();
        },
        onConnected: () => {
          // A reconnection means the database was away: what we cached may be stale.
          if (++listenerConnects > 1) void reloadSchemaCache();
          listening();
        },
        onError: (e) => log.warn(`listener: ${e.message}`),
      })
    : null;
  // With the database down there is nothing to wait for: the listener connects when it comes back.
  if (listener && loadedAtStart) await Promise.race([listenerReady, sleep(2000)]);

  let admin: http.Server | null = null;
  let adminUrl: string | null = null;
  if (config.adminServerPort !== null) {
    admin = createAdminServer(async () => {
      const ready = cache !== null && connected;
      if (!ready) poke();
      return ready;
    });
    const adminHost = config.adminServerHost ?? config.serverHost;
    const adminPort = await listen(admin, adminHost, config.adminServerPort);
    adminUrl = `http://${urlHost(adminHost)}:${adminPort}`;
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
      await recovering;
      await pool.end().catch(() => undefined);
    })();
    return closing;
  };

  const ready = () => (cache !== null ? Promise.resolve() : new Promise<void>((r) => readyWaiters.push(r)));
  return { url: `http://${urlHost(config.serverHost)}:${port}`, port, adminUrl, app, reloadSchemaCache, ready, close };
}
