// Wires a running server: pool, schema cache (with reload on NOTIFY and on demand), authenticator,
// HTTP and admin listeners, and graceful shutdown. Used by `dbrest serve` and by the tests.
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { createAuthenticator } from '../auth/jwt.js';
import { loadSchemaCache } from '../catalog/load.js';
import { listenForNotifications } from '../catalog/reload.js';
import type { SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import { createPool } from '../db/pool.js';
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

export async function startServer(config: AppConfig, dbUri: string, log: Logger): Promise<RunningServer> {
  const pool = createPool(dbUri, config);
  let cache: SchemaCache | null = null;

  const load = async () => {
    const client = await pool.connect();
    try {
      const loaded = await loadSchemaCache(client, config.dbSchemas);
      cache = loaded.cache;
      log.info(`schema cache loaded: ${loaded.cache.relations.length} relations, ${loaded.cache.relationships.length} relationships, ${loaded.cache.routines.length} functions (${(loaded.fetchMs + loaded.buildMs).toFixed(0)} ms)`);
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
        await load().catch((e) => log.error(`schema cache reload failed: ${(e as Error).message}`));
      } while (again);
    })().finally(() => (reloading = null));
    return reloading;
  };

  try {
    await load();
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw e;
  }

  const auth = await createAuthenticator(config);
  const app: AppState = { config, pool, auth, log, cache: () => cache };
  const { server, inFlight } = createHttpServer(app);
  const port = await listen(server, config.serverHost, config.serverPort);

  const listener = config.dbChannelEnabled
    ? listenForNotifications({
        uri: dbUri,
        channel: config.dbChannel,
        onNotify: (payload) => {
          if (payload === '' || payload === 'reload schema') void reloadSchemaCache();
        },
        onError: (e) => log.warn(`listener: ${e.message}`),
      })
    : null;

  let admin: http.Server | null = null;
  let adminUrl: string | null = null;
  if (config.adminServerPort !== null) {
    admin = createAdminServer(async () => {
      if (cache === null) return false;
      const c = await pool.connect();
      c.release();
      return true;
    });
    const adminHost = config.adminServerHost ?? config.serverHost;
    const adminPort = await listen(admin, adminHost, config.adminServerPort);
    adminUrl = `http://${urlHost(adminHost)}:${adminPort}`;
  }

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      // server.close resolves once in-flight requests have answered; wait for their handlers too.
      while (inFlight() > 0) await new Promise((r) => setTimeout(r, 10));
      if (admin) await new Promise<void>((r) => admin!.close(() => r()));
      await listener?.close();
      await pool.end().catch(() => undefined);
    })();
    return closing;
  };

  return { url: `http://${urlHost(config.serverHost)}:${port}`, port, adminUrl, app, reloadSchemaCache, close };
}
