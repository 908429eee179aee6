// The one table of configuration keys. Loading, validation, `--help`, the JSON Schema, the example file and
// `check-config` are all driven from CONFIG_KEYS; no other file spells a key name or its default.
// Pure data and lookups; no I/O.

import type { AppConfig } from './types.js';

export type ConfigField = keyof AppConfig;

/** Extra checks a string value gets (validate.ts implements each). */
export type StringFormat =
  | 'db-uri'        // postgres:// or postgresql:// URI, libpq `key=value` string, or `@file`
  | 'http-uri'      // absolute http(s) URI (openapi-server-proxy-uri)
  | 'string-or-uri' // jwt-aud: any string, but a URI when it contains ':'
  | 'file-mode'     // octal unix file mode between 600 and 777
  | 'header-name'   // an HTTP header field name (RFC 9110 token)
  | 'docs-path';    // a URL path (`/_docs`), or false / "" for off (server-docs-path)

export type KeyType =
  | { readonly kind: 'string'; readonly format?: StringFormat }
  | { readonly kind: 'secret' }
  /** `words`: names accepted besides a number (server-workers' `auto`), kept as the word. */
  | { readonly kind: 'int'; readonly min: number; readonly max?: number; readonly words?: ReadonlyArray<string> }
  /** `words`: PostgREST spellings of true and false besides the usual ones (log-query's `main-query` / `disabled`). */
  | { readonly kind: 'bool'; readonly words?: { readonly true: string; readonly false: string } }
  /**
   * Comma-separated in strings (`"public, api"`), or an array in JSON/YAML. `uris`: a list of
   * postgres:// URIs, separated by commas or spaces in strings (a comma inside a multi-host URI stays).
   */
  | { readonly kind: 'list'; readonly emptyable?: boolean; readonly uris?: boolean }
  | { readonly kind: 'enum'; readonly values: ReadonlyArray<string> }
  | { readonly kind: 'json'; readonly shape: 'routes' }
  /** The `app.settings.*` prefix family: one string per name. */
  | { readonly kind: 'map' };

/** How a key is masked when printed: the whole value, or only the password inside a connection string. */
export type SecretKind = 'none' | 'value' | 'uri-password';

export interface ConfigKey<F extends ConfigField = ConfigField> {
  /** The key as written in files and PostgREST's docs: `db-max-rows`. */
  readonly name: string;
  /** The AppConfig field: `dbMaxRows` (also the camelCase flag name commander produces). */
  readonly field: F;
  readonly type: KeyType;
  readonly default: AppConfig[F];
  readonly doc: string;
  readonly secret: SecretKind;
  /** Older PostgREST spellings still accepted (`db-schema`, `max-rows` …). */
  readonly aliases: ReadonlyArray<string>;
  /** `postgrest`: same meaning as PostgREST's key; `dbrest`: dbrest's own. */
  readonly origin: 'postgrest' | 'dbrest';
}

export const APP_SETTINGS_PREFIX = 'app.settings.';

const key = <F extends ConfigField>(k: {
  name: string; field: F; type: KeyType; default: AppConfig[F]; doc: string;
  secret?: SecretKind; aliases?: ReadonlyArray<string>; origin?: 'postgrest' | 'dbrest';
}): ConfigKey<F> => ({
  name: k.name, field: k.field, type: k.type, default: k.default, doc: k.doc,
  secret: k.secret ?? 'none', aliases: k.aliases ?? [], origin: k.origin ?? 'postgrest',
});

const STRING = { kind: 'string' } as const;
const BOOL = { kind: 'bool' } as const;
const SECONDS = { kind: 'int', min: 0 } as const;
const PORT = { kind: 'int', min: 0, max: 65535 } as const;

export const TX_END_VALUES = ['commit', 'commit-allow-override', 'rollback', 'rollback-allow-override'] as const;
export const OPENAPI_MODE_VALUES = ['follow-privileges', 'ignore-privileges', 'disabled'] as const;
export const LOG_LEVEL_VALUES = ['crit', 'error', 'warn', 'info', 'debug'] as const;
export const LOG_FORMAT_VALUES = ['text', 'json'] as const;
export const VERBOSITY_VALUES = ['verbose', 'minimal'] as const;
export const OPENAPI_VERSION_VALUES = ['2.0', '3.1'] as const;

// Sorted by name, as PostgREST's reference lists them.
const KEY_LIST = [
  key({ name: 'admin-server-host', field: 'adminServerHost', type: STRING, default: null,
    doc: 'Host the admin server (/live, /ready) binds to; defaults to server-host.' }),
  key({ name: 'admin-server-port', field: 'adminServerPort', type: PORT, default: null,
    doc: 'Port of the admin server (/live, /ready); disabled unless set.' }),
  key({ name: 'admin-server-unix-socket', field: 'adminServerUnixSocket', type: STRING, default: null,
    doc: 'Unix domain socket the admin server binds to; takes precedence over admin-server-port.' }),
  key({ name: 'admin-server-unix-socket-mode', field: 'adminServerUnixSocketMode',
    type: { kind: 'string', format: 'file-mode' }, default: '660',
    doc: 'Octal file mode of admin-server-unix-socket (600 to 777).' }),
  key({ name: 'app.settings.*', field: 'appSettings', type: { kind: 'map' }, default: {},
    doc: 'Arbitrary settings exposed to SQL as current_setting(\'app.settings.<name>\').' }),
  key({ name: 'client-error-verbosity', field: 'clientErrorVerbosity', type: { kind: 'enum', values: VERBOSITY_VALUES },
    default: 'verbose', doc: 'verbose: errors carry message, details and hint; minimal: code and message only.' }),
  key({ name: 'db-aggregates-enabled', field: 'dbAggregatesEnabled', type: BOOL, default: false,
    doc: 'Allow aggregate functions (count, sum, avg, min, max) in select=.' }),
  key({ name: 'db-anon-role', field: 'dbAnonRole', type: STRING, default: null,
    doc: 'Role for requests without a JWT; anonymous access is refused when unset.' }),
  key({ name: 'db-channel', field: 'dbChannel', type: STRING, default: 'dbrest',
    doc: 'NOTIFY channel for \'reload schema\' and \'reload config\'.' }),
  key({ name: 'db-channel-uri', field: 'dbChannelUri', type: { kind: 'string', format: 'db-uri' }, default: null, secret: 'uri-password', origin: 'dbrest',
    doc: 'Connection string (as db-uri) used only to LISTEN on db-channel: point it straight at PostgreSQL when db-uri goes through a transaction-pooling PgBouncer, which cannot hold a LISTEN. Unset: db-uri.' }),
  key({ name: 'db-channel-enabled', field: 'dbChannelEnabled', type: BOOL, default: true,
    doc: 'Listen on db-channel (behind a transaction-pooling PgBouncer: set db-channel-uri to a direct connection, or turn this off).' }),
  key({ name: 'db-config', field: 'dbConfig', type: BOOL, default: true,
    doc: 'Read in-database configuration (pgrst.* role settings, db-pre-config).' }),
  key({ name: 'db-embedded-dir', field: 'dbEmbeddedDir', type: STRING, default: '.dbrest/pgdata', origin: 'dbrest',
    doc: 'Data directory of the embedded PostgreSQL used when db-uri is unset (relative to the working directory).' }),
  key({ name: 'db-embedded-durable', field: 'dbEmbeddedDurable', type: BOOL, default: true, origin: 'dbrest',
    doc: 'The embedded PostgreSQL flushes commits to disk (fsync); false trades crash safety for speed and says so at start.' }),
  key({ name: 'db-extra-search-path', field: 'dbExtraSearchPath', type: { kind: 'list', emptyable: true },
    default: ['public'], doc: 'Extra schemas appended to every request\'s search_path (comma-separated).' }),
  key({ name: 'db-hoisted-tx-settings', field: 'dbHoistedTxSettings', type: { kind: 'list' },
    default: ['statement_timeout', 'plan_filter.statement_cost_limit', 'default_transaction_isolation'],
    doc: 'Role settings applied as transaction-scoped settings (comma-separated).' }),
  key({ name: 'db-max-embed-depth', field: 'dbMaxEmbedDepth', type: { kind: 'int', min: 0 }, default: 8, origin: 'dbrest',
    doc: 'Deepest embedding a request may ask for (select=a(b(c)) is 3; spreads count); deeper is refused with 400 DBRST700 before any SQL runs. 0: no limit.' }),
  key({ name: 'db-max-embeds', field: 'dbMaxEmbeds', type: { kind: 'int', min: 0 }, default: 64, origin: 'dbrest',
    doc: 'Most embeds a request may ask for, counted at every level (spreads too); more is refused with 400 DBRST701 before any SQL runs. 0: no limit.' }),
  key({ name: 'db-max-rows', field: 'dbMaxRows', type: { kind: 'int', min: 0 }, default: null, aliases: ['max-rows'],
    doc: 'Hard limit on rows a read returns; unlimited when unset.' }),
  key({ name: 'db-plan-enabled', field: 'dbPlanEnabled', type: BOOL, default: false,
    doc: 'Allow EXPLAIN output through Accept: application/vnd.pgrst.plan.' }),
  key({ name: 'db-pool', field: 'dbPool', type: { kind: 'int', min: 1 }, default: 10,
    doc: 'Maximum number of connections in the pool, per worker process (server-workers): N workers hold up to N times this many.' }),
  key({ name: 'db-pool-acquisition-timeout', field: 'dbPoolAcquisitionTimeout', type: SECONDS, default: 10,
    doc: 'Seconds a request waits for a pool connection before a 504.' }),
  key({ name: 'db-pool-automatic-recovery', field: 'dbPoolAutomaticRecovery', type: BOOL, default: true,
    doc: 'Retry the database connection after it is lost instead of exiting.' }),
  key({ name: 'db-pool-max-idletime', field: 'dbPoolMaxIdletime', type: SECONDS, default: 30, aliases: ['db-pool-timeout'],
    doc: 'Seconds after which an idle pool connection is closed.' }),
  key({ name: 'db-pool-max-lifetime', field: 'dbPoolMaxLifetime', type: SECONDS, default: 1800,
    doc: 'Seconds after which a pool connection is recycled.' }),
  key({ name: 'db-pre-config', field: 'dbPreConfig', type: STRING, default: null,
    doc: 'Function that sets in-database configuration with set_config(\'pgrst.<key>\', …).' }),
  key({ name: 'db-pre-request', field: 'dbPreRequest', type: STRING, default: null, aliases: ['pre-request'],
    doc: 'Schema-qualified function called at the start of every request\'s transaction.' }),
  key({ name: 'db-prepared-statements', field: 'dbPreparedStatements', type: BOOL, default: true,
    doc: 'Use prepared statements (turn off behind a transaction-pooling PgBouncer).' }),
  key({ name: 'db-root-spec', field: 'dbRootSpec', type: STRING, default: null, aliases: ['root-spec'],
    doc: 'Function whose result replaces the OpenAPI document at the root path.' }),
  key({ name: 'db-read-max-lag', field: 'dbReadMaxLag', type: SECONDS, default: 5, origin: 'dbrest',
    doc: 'Seconds a read replica (db-read-uris) may lag behind the primary before reads leave it, measured from pg_last_xact_replay_timestamp() (a replica that has replayed all it received counts as 0). 0: no limit.' }),
  key({ name: 'db-read-uris', field: 'dbReadUris', type: { kind: 'list', emptyable: true, uris: true }, default: [], secret: 'uri-password', origin: 'dbrest',
    doc: 'Read replicas (postgres:// URIs, separated by commas or spaces): GET/HEAD on tables and views and calls of STABLE/IMMUTABLE functions run on a healthy one, round-robin, each with a pool of db-pool connections; everything else, and every read while none is healthy, runs on db-uri.' }),
  key({ name: 'db-schema-watch', field: 'dbSchemaWatch', type: BOOL, default: null, origin: 'dbrest',
    doc: 'Install (idempotently, in the dbrest schema) event triggers that send NOTIFY <db-channel>, \'reload schema\' on DDL, so CREATE TABLE, ALTER, CREATE FUNCTION or GRANT reach the API by themselves; needs a superuser (otherwise a warning, and nothing installed). Unset: on for the embedded database, off with a db-uri.' }),
  key({ name: 'db-schemas', field: 'dbSchemas', type: { kind: 'list' }, default: ['public'], aliases: ['db-schema'],
    doc: 'Schemas exposed to clients (comma-separated); the first is the default.' }),
  key({ name: 'db-statement-timeout', field: 'dbStatementTimeout', type: { kind: 'int', min: 0 }, default: null, origin: 'dbrest',
    doc: 'Milliseconds a request\'s statement may run (statement_timeout, set with the request\'s settings) before it is cancelled: 500 57014 with a hint. A role\'s own lower statement_timeout wins; a streamed answer is bounded until its first rows only (then it ends when the client goes away). 0: off. Unset: 10000 for the embedded database, off with a db-uri.' }),
  key({ name: 'db-tx-end', field: 'dbTxEnd', type: { kind: 'enum', values: TX_END_VALUES }, default: 'commit',
    doc: 'How transactions end; the -allow-override values honour Prefer: tx=commit|rollback.' }),
  key({ name: 'db-uri', field: 'dbUri', type: { kind: 'string', format: 'db-uri' }, default: null, secret: 'uri-password',
    doc: 'PostgreSQL connection string (URI or key=value, or @file: a name in the config file is relative to its directory); unset starts the embedded database.' }),
  key({ name: 'jwt-aud', field: 'jwtAud', type: { kind: 'string', format: 'string-or-uri' }, default: null,
    doc: 'Expected JWT audience (aud) claim.' }),
  key({ name: 'jwt-cache-max-entries', field: 'jwtCacheMaxEntries', type: { kind: 'int', min: 0 }, default: 1000,
    doc: 'Maximum number of verified JWTs kept in the cache (each until its exp); 0 disables it.' }),
  key({ name: 'jwt-cache-max-lifetime', field: 'jwtCacheMaxLifetime', type: SECONDS, default: 0,
    doc: 'Maximum seconds a cached JWT is reused; 0: until its exp (PostgREST 13\'s key; 14 caches by jwt-cache-max-entries alone).' }),
  key({ name: 'jwt-role-claim-key', field: 'jwtRoleClaimKey', type: STRING, default: '.role', aliases: ['role-claim-key'],
    doc: 'JSPath of the role claim in the JWT, e.g. .role or .realm_access.roles[0].' }),
  key({ name: 'jwt-secret', field: 'jwtSecret', type: { kind: 'secret' }, default: null, secret: 'value',
    doc: 'HS* secret (32+ characters), JWK or JWKS JSON used to verify JWTs, or @file (relative to the config file\'s directory when written there).' }),
  key({ name: 'jwt-secret-is-base64', field: 'jwtSecretIsBase64', type: BOOL, default: false, aliases: ['secret-is-base64'],
    doc: 'Treat jwt-secret as base64-encoded.' }),
  key({ name: 'log-format', field: 'logFormat', type: { kind: 'enum', values: LOG_FORMAT_VALUES }, default: 'text', origin: 'dbrest',
    doc: 'text (human lines; coloured only when stderr is a terminal) or json (one JSON object per line, for log shippers). The default is text whether or not stderr is a terminal: a format that changes with where output goes would surprise log parsers.' }),
  key({ name: 'log-level', field: 'logLevel', type: { kind: 'enum', values: LOG_LEVEL_VALUES }, default: 'error',
    doc: 'crit, error (5xx), warn (4xx), info (every request) or debug.' }),
  key({ name: 'log-query', field: 'logQuery', type: { kind: 'bool', words: { true: 'main-query', false: 'disabled' } }, default: false,
    doc: 'Log the SQL of each request\'s main statement at the current log-level; PostgREST 13\'s "main-query" and "disabled" mean true and false.' }),
  key({ name: 'openapi-mode', field: 'openapiMode', type: { kind: 'enum', values: OPENAPI_MODE_VALUES },
    default: 'follow-privileges', doc: 'Whether the OpenAPI document follows or ignores role privileges, or is disabled.' }),
  key({ name: 'openapi-security-active', field: 'openapiSecurityActive', type: BOOL, default: false,
    doc: 'Include security definitions in the OpenAPI document.' }),
  key({ name: 'openapi-server-proxy-uri', field: 'openapiServerProxyUri', type: { kind: 'string', format: 'http-uri' },
    default: null, aliases: ['server-proxy-uri'], doc: 'Base URL the OpenAPI document advertises, e.g. https://example.com:8443/api.' }),
  key({ name: 'openapi-version', field: 'openapiVersion', type: { kind: 'enum', values: OPENAPI_VERSION_VALUES },
    default: '2.0', origin: 'dbrest', doc: 'OpenAPI version served at the root path: 2.0 (Swagger, as PostgREST) or 3.1.' }),
  key({ name: 'routes', field: 'routes', type: { kind: 'json', shape: 'routes' }, default: [], origin: 'dbrest',
    doc: 'Route mounts: URLs bound to functions or tables, as a list of { method, path, call, args } or groups { prefix, schema, error-handler, routes }, or the name of a JSON file holding them (relative to the config file\'s directory when written there).' }),
  key({ name: 'server-cors-allowed-origins', field: 'serverCorsAllowedOrigins', type: { kind: 'list' }, default: null,
    doc: 'Origins allowed by CORS (comma-separated); any origin when unset.' }),
  key({ name: 'server-docs-path', field: 'serverDocsPath', type: { kind: 'string', format: 'docs-path' }, default: null, origin: 'dbrest',
    doc: 'Path of the API explorer (Swagger UI over the OpenAPI document, assets served from node_modules); /_docs when the embedded database runs (no db-uri), off otherwise; false or "" turns it off, true serves it at /_docs.' }),
  key({ name: 'server-host', field: 'serverHost', type: STRING, default: 'localhost',
    doc: 'Address the HTTP server binds to (also *, *4, !4, *6, !6).' }),
  key({ name: 'server-max-body-size', field: 'serverMaxBodySize', type: { kind: 'int', min: 1 }, default: 100 * 1024 * 1024, origin: 'dbrest',
    doc: 'Largest request body accepted, in bytes; a larger one is answered 413 without being read.' }),
  key({ name: 'server-max-response-bytes', field: 'serverMaxResponseBytes', type: { kind: 'int', min: 0, max: 256 * 1024 * 1024 }, default: 64 * 1024 * 1024, origin: 'dbrest',
    doc: 'Largest answer built whole (not streamed), in bytes, checked in PostgreSQL before it is sent; a larger one is refused with 400 DBRST702 and the transaction rolled back. Streamed answers are not bounded. 0: no limit.' }),
  key({ name: 'server-port', field: 'serverPort', type: PORT, default: 3000,
    doc: 'TCP port of the HTTP server; 0 picks a free port.' }),
  key({ name: 'server-reuseport', field: 'serverReuseport', type: BOOL, default: false,
    doc: 'Set SO_REUSEPORT so several instances can share server-port; needs Node 22.12 or 23.1+ on Linux or FreeBSD (refused elsewhere).' }),
  key({ name: 'server-stream-threshold', field: 'serverStreamThreshold', type: { kind: 'int', min: 0 }, default: 1000,
    doc: 'Reads and set-returning calls that may return more rows than this are streamed through a cursor (constant memory).', origin: 'dbrest' }),
  key({ name: 'server-timing-enabled', field: 'serverTimingEnabled', type: BOOL, default: false,
    doc: 'Send the Server-Timing header (jwt, parse, plan, transaction, response).' }),
  key({ name: 'server-trace-header', field: 'serverTraceHeader', type: { kind: 'string', format: 'header-name' },
    default: null, doc: 'Request header echoed back in the response to trace requests, e.g. X-Request-Id.' }),
  key({ name: 'server-unix-socket', field: 'serverUnixSocket', type: STRING, default: null,
    doc: 'Unix domain socket the HTTP server binds to; takes precedence over server-port.' }),
  key({ name: 'server-unix-socket-mode', field: 'serverUnixSocketMode', type: { kind: 'string', format: 'file-mode' },
    default: '660', doc: 'Octal file mode of server-unix-socket (600 to 777).' }),
  key({ name: 'server-workers', field: 'serverWorkers', type: { kind: 'int', min: 1, words: ['auto'] }, default: 1, origin: 'dbrest',
    doc: 'Worker processes `dbrest serve` runs (node:cluster, sharing server-port); auto: one per available core. Each worker has its own db-pool connections and LISTEN connection; the primary process runs the embedded database and the admin server, whose /metrics shows every worker\'s series with a worker_pid label and /ready is 200 when every running worker is.' }),
  key({ name: 'url-use-legacy-target-names', field: 'urlUseLegacyTargetNames', type: BOOL, default: true,
    doc: 'Allow filtering an aliased embed by its target name as well as its alias.' }),
];

// Compile-time completeness: every AppConfig field has a key.
type CoveredField = (typeof KEY_LIST)[number]['field'];
const everyFieldCovered: Exclude<ConfigField, CoveredField> extends never ? true : false = true;
void everyFieldCovered;

export const CONFIG_KEYS: ReadonlyArray<ConfigKey> = KEY_LIST;

const byName = new Map<string, ConfigKey>();
const byAlias = new Map<string, ConfigKey>();
const byField = new Map<string, ConfigKey>();
for (const k of CONFIG_KEYS) {
  byName.set(k.name, k);
  byField.set(k.field, k);
  for (const a of k.aliases) byAlias.set(a, k);
}

/**
 * PostgREST keys that mean nothing here: a `.conf` written for PostgREST still loads, and each of
 * these is ignored with a warning saying why (PostgREST itself accepts them).
 */
export const IGNORED_KEYS: ReadonlyMap<string, string> = new Map([
  ['db-use-legacy-gucs', 'ignored: dbrest sets only the JSON settings request.headers, request.cookies and request.jwt.claims (PostgREST ≥ 10\'s, which this key turned off)'],
  ['raw-media-types', 'ignored: media types other than JSON, CSV and plain text are served by functions whose return type is a domain named after the type (PostgREST ≥ 12\'s media type handlers)'],
]);

export const APP_SETTINGS_KEY: ConfigKey<'appSettings'> = byField.get('appSettings') as ConfigKey<'appSettings'>;

/** Every spelling a file may use for a key: canonical name, alias, camelCase field. */
export function findKey(name: string): { key: ConfigKey; via: 'name' | 'alias' | 'field' } | null {
  const n = byName.get(name);
  if (n && n !== APP_SETTINGS_KEY) return { key: n, via: 'name' };
  const a = byAlias.get(name);
  if (a) return { key: a, via: 'alias' };
  const f = byField.get(name);
  if (f && f !== APP_SETTINGS_KEY) return { key: f, via: 'field' };
  return null;
}

export function keyByField<F extends ConfigField>(field: F): ConfigKey<F> {
  return byField.get(field) as ConfigKey<F>;
}

/** The keys with a plain value (everything but the `app.settings.*` family). */
export const SCALAR_KEYS: ReadonlyArray<ConfigKey> = CONFIG_KEYS.filter((k) => k !== APP_SETTINGS_KEY);

/** `db-max-rows` → `DB_MAX_ROWS`; the env names are `DBREST_` / `PGRST_` + this. */
export const envSuffix = (name: string): string => name.toUpperCase().replace(/[-.]/g, '_');

export const DBREST_ENV_PREFIX = 'DBREST_';
export const PGRST_ENV_PREFIX = 'PGRST_';

/** Env var names for a key, canonical first then aliases. PostgREST's own names only for PostgREST's keys. */
export function envNames(k: ConfigKey): { readonly dbrest: ReadonlyArray<string>; readonly pgrst: ReadonlyArray<string> } {
  const names = [k.name, ...k.aliases].map(envSuffix);
  return {
    dbrest: names.map((n) => DBREST_ENV_PREFIX + n),
    pgrst: k.origin === 'postgrest' ? names.map((n) => PGRST_ENV_PREFIX + n) : [],
  };
}

/** `--db-max-rows`; the `app.settings.*` family is `--app-setting name=value` (repeatable). */
export const flagName = (k: ConfigKey): string => (k === APP_SETTINGS_KEY ? '--app-setting' : `--${k.name}`);

/** The flag property commander produces for `--app-setting`. */
export const APP_SETTING_FLAG_FIELD = 'appSetting';

/** Defaults for every key: a complete AppConfig (handy for tests: `{ ...DEFAULT_CONFIG, dbMaxRows: 10 }`). */
export const DEFAULT_CONFIG: AppConfig = Object.freeze(
  Object.fromEntries(CONFIG_KEYS.map((k) => [k.field, k.default])),
) as unknown as AppConfig;

/** Human description of a key's type, used in messages, help and the JSON Schema. */
export function describeType(t: KeyType): string {
  switch (t.kind) {
    case 'string': return 'string';
    case 'secret': return 'string (secret)';
    case 'int': return (t.max === undefined ? `integer ≥ ${t.min}` : `integer ${t.min}–${t.max}`) + (t.words ? t.words.map((w) => ` or "${w}"`).join('') : '');
    case 'bool': return t.words ? `boolean, "${t.words.true}" or "${t.words.false}"` : 'boolean';
    case 'list': return 'comma-separated list';
    case 'enum': return t.values.join(' | ');
    case 'json': return 'JSON routes, or a routes file';
    case 'map': return 'string';
    default: return assertNever(t);
  }
}

function assertNever(x: never): never {
  throw new Error(`unexpected key type ${JSON.stringify(x)}`);
}
