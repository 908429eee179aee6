// The running server's state, handed to every request. The schema cache is swapped whole on reload
// (a request keeps the cache it started with), so a reload never disturbs requests in flight.
import type { Authenticator } from '../auth/jwt.js';
import type { SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import type { Pool } from '../db/pool.js';
import type { ReadReplicas } from '../db/replicas.js';
import type { RoleSettings } from '../db/role-settings.js';
import type { Logger } from '../observe/log.js';

export interface AppState {
  readonly config: AppConfig;
  readonly pool: Pool;
  /** db-read-uris: replicas for reads (http/read-route.ts); null without any. */
  readonly replicas?: ReadReplicas | null;
  readonly auth: Authenticator;
  readonly log: Logger;
  /** The current schema cache, or null while it is (re)loading after a lost connection. */
  cache(): SchemaCache | null;
  /** db-hoisted-tx-settings values per role, loaded with the schema cache. */
  roleSettings(): RoleSettings;
  /** Called when a request could not reach the database: starts the recovery loop. */
  connectionLost(): void;
}
