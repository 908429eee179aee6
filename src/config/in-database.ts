// In-database configuration (db-config, db-pre-config), as PostgREST reads it: the authenticator
// role's settings named `pgrst.<key>` (`ALTER ROLE authenticator IN DATABASE app SET
// pgrst.db_max_rows = '100'`; a database-specific setting beats one for all databases), and the
// `pgrst.*` settings a db-pre-config function makes with set_config, which role settings beat.
// They override the config file and the environment (PostgREST's precedence); dbrest's command-line
// flags still win over them. Only PostgREST's reloadable keys may be set this way: a database cannot
// move the server's own connection, port or pool.
//
// Split in two: the statement (pure) and applying its answer to a config (pure); serve.ts does the I/O.
import { compile, ident, qualified, sql, type Statement } from '../sql/fragment.js';
import { findKey } from './keys.js';
import type { ConfigSource } from './load.js';
import type { AppConfig } from './types.js';
import { coerceValue, validateConfig } from './validate.js';

/** PostgREST's list of keys in-database configuration may set (its dbSettingsNames, `_` for `-`). */
export const IN_DATABASE_KEYS: ReadonlyArray<string> = [
  'db_aggregates_enabled', 'db_anon_role', 'db_pre_config', 'db_extra_search_path', 'db_hoisted_tx_settings',
  'db_max_rows', 'db_plan_enabled', 'db_pre_request', 'db_prepared_statements', 'db_root_spec', 'db_schemas',
  'db_tx_end', 'jwt_aud', 'jwt_role_claim_key', 'jwt_secret', 'jwt_secret_is_base64', 'jwt_cache_max_lifetime',
  'openapi_mode', 'openapi_security_active', 'openapi_server_proxy_uri', 'raw_media_types',
  'server_cors_allowed_origins', 'server_trace_header', 'server_timing_enabled',
];

const PREFIX = 'pgrst.';

/** The one statement: role settings of current_user here, plus the pre-config function's `pgrst.*` settings. */
export function inDatabaseStatement(preConfig: string | null): Statement {
  const names = IN_DATABASE_KEYS.map((k) => PREFIX + k);
  const dot = preConfig?.indexOf('.') ?? -1;
  const fn = preConfig === null ? null
    : dot === -1 ? ident(preConfig) : qualified({ schema: preConfig.slice(0, dot), name: preConfig.slice(dot + 1) });
  const fromPreConfig = fn === null ? sql`` : sql`
      UNION ALL
      SELECT NULL::oid, x, current_setting(x, true) FROM unnest(${names}::text[]) x JOIN ${fn}() _ ON true`;
  return compile(sql`
    WITH role_setting AS (
      SELECT setdatabase AS database, unnest(setconfig) AS setting
      FROM pg_catalog.pg_db_role_setting
      WHERE setrole = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)
        AND setdatabase IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))
    ), kv AS (
      SELECT database, substr(setting, 1, strpos(setting, '=') - 1) AS k, substr(setting, strpos(setting, '=') + 1) AS v
      FROM role_setting${fromPreConfig}
    )
    SELECT DISTINCT ON (k) k AS key, v AS value FROM kv
    WHERE k = ANY(${names}::text[]) AND v IS NOT NULL
    ORDER BY k, database DESC NULLS LAST`);
}

export interface InDatabaseResult {
  readonly config: AppConfig;
  /** Key names the database set (`db-max-rows`), for the log. */
  readonly applied: ReadonlyArray<string>;
  /** Values that did not coerce or validate: left out, the file/env value kept. */
  readonly problems: ReadonlyArray<string>;
}

/** Lay the database's `pgrst.*` rows over a config; keys given as flags are kept. */
export function applyInDatabase(
  config: AppConfig,
  rows: ReadonlyArray<{ key: string; value: string }>,
  sources: Readonly<Record<string, ConfigSource>> = {},
): InDatabaseResult {
  const next = { ...config } as Record<string, unknown>;
  const applied: string[] = [];
  const problems: string[] = [];
  for (const row of rows) {
    const name = row.key.slice(PREFIX.length).replace(/_/g, '-');
    const found = findKey(name);
    if (found === null) continue; // raw_media_types: PostgREST's, nothing here
    if (sources[found.key.name] === 'flag') continue;
    const coerced = coerceValue(found.key, row.value);
    if (!coerced.ok) {
      problems.push(`${row.key} = ${JSON.stringify(row.value)}: ${coerced.issues.map((i) => i.message).join('; ')}`);
      continue;
    }
    next[found.key.field] = coerced.value;
    applied.push(found.key.name);
  }
  const config2 = next as unknown as AppConfig;
  // A value that breaks a rule across keys (a short jwt-secret) is dropped, as a bad type is.
  const invalid = validateConfig(config2).filter((p) => applied.includes(p.key));
  if (invalid.length === 0) return { config: config2, applied, problems };
  const dropped = new Set(invalid.map((p) => p.key));
  for (const p of invalid) problems.push(`pgrst.${p.key.replace(/-/g, '_')}: ${p.message}`);
  const kept = { ...config2 } as Record<string, unknown>;
  for (const name of dropped) {
    const k = findKey(name)!.key;
    kept[k.field] = config[k.field];
  }
  return { config: kept as unknown as AppConfig, applied: applied.filter((a) => !dropped.has(a)), problems };
}
