// The admin server's operations endpoints (admin port only, never the API's): /metrics (Prometheus
// text), /config (the resolved configuration as `dbrest check-config` prints it, secrets masked) and
// /schema_cache (the schema cache in use, as `dbrest introspect --json` prints it).
import type http from 'node:http';
import { Chalk } from 'chalk';
import type { SchemaCache } from '../catalog/types.js';
import type { LoadedConfig } from '../config/load.js';
import { renderConfig } from '../config/print.js';
import type { AppConfig } from '../config/types.js';
import type { Metrics } from '../observe/metrics.js';

export interface AdminSources {
  readonly metrics: Metrics | null;
  /** The configuration in use (it changes on reload). */
  config(): AppConfig;
  /** Where each key came from, when the CLI loaded it; null: every key is shown as `default`. */
  readonly loaded: LoadedConfig | null;
  cache(): SchemaCache | null;
}

/** An admin route's handler: answers and returns true, or returns false for a path it does not serve. */
export type AdminRoute = (path: string, res: http.ServerResponse) => Promise<boolean>;

const plain = new Chalk({ level: 0 });

export function adminRoutes(s: AdminSources): AdminRoute {
  return async (path, res) => {
    switch (path) {
      case '/metrics': {
        if (s.metrics === null) return false;
        const text = await s.metrics.render();
        res.writeHead(200, { 'Content-Type': s.metrics.contentType, 'Content-Length': Buffer.byteLength(text) }).end(text);
        return true;
      }
      case '/config': {
        const loaded: LoadedConfig = s.loaded === null
          ? { config: s.config(), sources: {}, origins: {}, file: null, problems: [] }
          : { ...s.loaded, config: s.config() };
        const text = renderConfig(loaded, { chalk: plain });
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) }).end(text);
        return true;
      }
      case '/schema_cache': {
        const cache = s.cache();
        if (cache === null) {
          res.writeHead(503, { 'Content-Length': 0 }).end();
          return true;
        }
        const text = JSON.stringify(cache, null, 2) + '\n';
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) }).end(text);
        return true;
      }
      default:
        return false;
    }
  };
}
