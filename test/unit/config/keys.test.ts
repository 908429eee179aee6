// The key table: complete, consistent, and carrying PostgREST's names and defaults.
import t from 'tap';

import {
  APP_SETTINGS_KEY, CONFIG_KEYS, DEFAULT_CONFIG, SCALAR_KEYS, envNames, findKey, flagName, keyByField,
} from '../../../src/config/keys.js';

// Every key of PostgREST's configuration reference (v12–v16), plus dbrest's own.
const POSTGREST_KEYS = [
  'admin-server-host', 'admin-server-port', 'admin-server-unix-socket', 'admin-server-unix-socket-mode',
  'app.settings.*', 'client-error-verbosity', 'db-aggregates-enabled', 'db-anon-role', 'db-channel',
  'db-channel-enabled', 'db-config', 'db-extra-search-path', 'db-hoisted-tx-settings', 'db-max-rows',
  'db-plan-enabled', 'db-pool', 'db-pool-acquisition-timeout', 'db-pool-automatic-recovery', 'db-pool-max-idletime',
  'db-pool-max-lifetime', 'db-pre-config', 'db-pre-request', 'db-prepared-statements', 'db-root-spec', 'db-schemas',
  'db-tx-end', 'db-uri', 'jwt-aud', 'jwt-cache-max-entries', 'jwt-cache-max-lifetime', 'jwt-role-claim-key',
  'jwt-secret', 'jwt-secret-is-base64', 'log-level', 'log-query', 'openapi-mode', 'openapi-security-active',
  'openapi-server-proxy-uri', 'server-cors-allowed-origins', 'server-host', 'server-port', 'server-reuseport',
  'server-timing-enabled', 'server-trace-header', 'server-unix-socket', 'server-unix-socket-mode',
  'url-use-legacy-target-names',
];
const DBREST_KEYS = [
  'routes', 'openapi-version', 'db-embedded-dir', 'db-embedded-durable', 'server-max-body-size', 'server-stream-threshold',
  'db-max-embed-depth', 'db-max-embeds', 'db-statement-timeout', 'db-schema-watch', 'server-max-response-bytes', 'log-format', 'server-docs-path',
  'server-workers', 'db-read-uris', 'db-read-max-lag', 'db-channel-uri',
];

t.test('the table holds every PostgREST key and dbrest\'s own, nothing else', async (t) => {
  const names = CONFIG_KEYS.map((k) => k.name).sort();
  t.same(names, [...POSTGREST_KEYS, ...DBREST_KEYS].sort());
  for (const n of DBREST_KEYS) t.equal(CONFIG_KEYS.find((k) => k.name === n)?.origin, 'dbrest', n);
});

t.test('names, fields and aliases are unique; field is the camelCase of the name', async (t) => {
  const spellings = CONFIG_KEYS.flatMap((k) => [k.name, ...k.aliases]);
  t.equal(new Set(spellings).size, spellings.length);
  t.equal(new Set(CONFIG_KEYS.map((k) => k.field)).size, CONFIG_KEYS.length);
  for (const k of SCALAR_KEYS) {
    t.equal(k.field, k.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()), k.name);
    t.ok(k.doc.length > 10, `${k.name} has a doc line`);
  }
});

t.test('defaults are PostgREST\'s (with dbrest\'s documented differences)', async (t) => {
  t.same(DEFAULT_CONFIG.dbSchemas, ['public']);
  t.equal(DEFAULT_CONFIG.dbPool, 10);
  t.equal(DEFAULT_CONFIG.dbPoolAcquisitionTimeout, 10);
  t.equal(DEFAULT_CONFIG.dbPoolMaxLifetime, 1800);
  t.equal(DEFAULT_CONFIG.dbPoolMaxIdletime, 30);
  t.same(DEFAULT_CONFIG.dbExtraSearchPath, ['public']);
  t.equal(DEFAULT_CONFIG.dbTxEnd, 'commit');
  t.equal(DEFAULT_CONFIG.dbChannel, 'dbrest');
  t.equal(DEFAULT_CONFIG.dbChannelEnabled, true);
  t.equal(DEFAULT_CONFIG.dbPreparedStatements, true);
  t.equal(DEFAULT_CONFIG.dbAggregatesEnabled, false);
  t.equal(DEFAULT_CONFIG.dbPlanEnabled, false);
  t.equal(DEFAULT_CONFIG.jwtRoleClaimKey, '.role');
  t.equal(DEFAULT_CONFIG.jwtCacheMaxLifetime, 0);
  t.equal(DEFAULT_CONFIG.serverHost, 'localhost');
  t.equal(DEFAULT_CONFIG.serverPort, 3000);
  t.equal(DEFAULT_CONFIG.logLevel, 'error');
  t.equal(DEFAULT_CONFIG.clientErrorVerbosity, 'verbose');
  t.equal(DEFAULT_CONFIG.openapiMode, 'follow-privileges');
  t.equal(DEFAULT_CONFIG.openapiVersion, '2.0');
  t.equal(DEFAULT_CONFIG.dbEmbeddedDir, '.dbrest/pgdata');
  t.equal(DEFAULT_CONFIG.dbUri, null);
  t.equal(DEFAULT_CONFIG.dbMaxRows, null);
  t.same(DEFAULT_CONFIG.routes, []);
  t.same(DEFAULT_CONFIG.appSettings, {});
  t.ok(Object.isFrozen(DEFAULT_CONFIG));
});

t.test('secrets: jwt-secret whole, db-uri, db-channel-uri and db-read-uris their passwords', async (t) => {
  t.same(CONFIG_KEYS.filter((k) => k.secret !== 'none').map((k) => [k.name, k.secret]),
    [['db-channel-uri', 'uri-password'], ['db-read-uris', 'uri-password'], ['db-uri', 'uri-password'], ['jwt-secret', 'value']]);
  t.equal(keyByField('jwtSecret').type.kind, 'secret');
});

t.test('env names: DBREST_ for every key, PGRST_ for PostgREST\'s, aliases included', async (t) => {
  t.same(envNames(keyByField('dbMaxRows')), {
    dbrest: ['DBREST_DB_MAX_ROWS', 'DBREST_MAX_ROWS'],
    pgrst: ['PGRST_DB_MAX_ROWS', 'PGRST_MAX_ROWS'],
  });
  t.same(envNames(keyByField('routes')), { dbrest: ['DBREST_ROUTES'], pgrst: [] });
});

t.test('findKey by name, alias and camelCase field; flags', async (t) => {
  t.equal(findKey('db-schemas')?.via, 'name');
  t.equal(findKey('db-schema')?.key.name, 'db-schemas');
  t.equal(findKey('db-schema')?.via, 'alias');
  t.equal(findKey('dbMaxRows')?.key.name, 'db-max-rows');
  t.equal(findKey('dbMaxRows')?.via, 'field');
  t.equal(findKey('db-shemas'), null);
  t.equal(findKey('app.settings.*'), null);
  t.equal(flagName(keyByField('dbUri')), '--db-uri');
  t.equal(flagName(APP_SETTINGS_KEY), '--app-setting');
});
