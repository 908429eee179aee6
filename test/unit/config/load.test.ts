// loadConfig: sources and their precedence, file discovery, every problem kind, never throwing.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';

import { DEFAULT_CONFIG } from '../../../src/config/keys.js';
import { loadConfig, type LoadConfigOptions, type LoadedConfig } from '../../../src/config/load.js';

interface Teardown { teardown(fn: () => void): void }

/** A fresh directory with the given files; removed when the test ends. */
function dir(t: Teardown, files: Record<string, string> = {}): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'dbrest-config-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(d, name)), { recursive: true });
    writeFileSync(path.join(d, name), text);
  }
  return d;
}

const load = (o: Partial<LoadConfigOptions> & { cwd: string }): Promise<LoadedConfig> =>
  loadConfig({ env: {}, flags: {}, ...o });

const keysOf = (l: LoadedConfig): string[] => l.problems.map((p) => p.key);

t.test('nothing configured: every default, every source "default"', async (t) => {
  const l = await load({ cwd: dir(t) });
  t.same(l.config, DEFAULT_CONFIG);
  t.same(l.problems, []);
  t.equal(l.file, null);
  t.ok(Object.values(l.sources).every((s) => s === 'default'));
  t.equal(l.sources['db-pool'], 'default');
});

t.test('precedence per key: flags > DBREST_* > PGRST_* > file > defaults', async (t) => {
  const cwd = dir(t, { 'dbrest.conf': 'db-pool = 1\ndb-max-rows = 100\nserver-port = 4000\nlog-level = "warn"\n' });
  const env = { PGRST_DB_POOL: '2', DBREST_DB_POOL: '3', PGRST_DB_MAX_ROWS: '200', DBREST_SERVER_PORT: '5000', PGRST_SERVER_PORT: '4500' };
  const l = await load({ cwd, env, flags: { dbPool: '4' } });
  t.same(l.problems, []);
  t.equal(l.config.dbPool, 4);
  t.equal(l.sources['db-pool'], 'flag');
  t.equal(l.origins['db-pool'], '--db-pool');
  t.equal(l.config.serverPort, 5000);
  t.equal(l.sources['server-port'], 'env');
  t.equal(l.origins['server-port'], 'DBREST_SERVER_PORT');
  t.equal(l.config.dbMaxRows, 200);
  t.equal(l.origins['db-max-rows'], 'PGRST_DB_MAX_ROWS');
  t.equal(l.config.logLevel, 'warn');
  t.equal(l.sources['log-level'], 'file');
  t.equal(l.origins['log-level'], 'dbrest.conf');
  t.equal(l.config.dbTxEnd, 'commit');
  t.equal(l.sources['db-tx-end'], 'default');
  t.equal(l.file, path.join(cwd, 'dbrest.conf'));

  // Peel the layers off one at a time.
  t.equal((await load({ cwd, env })).config.dbPool, 3);
  t.equal((await load({ cwd, env: { PGRST_DB_POOL: '2' } })).config.dbPool, 2);
  t.equal((await load({ cwd })).config.dbPool, 1);
  t.equal((await load({ cwd: dir(t) })).config.dbPool, 10);
});

t.test('PGRST_ and DBREST_ names', async (t) => {
  const cwd = dir(t);
  t.equal((await load({ cwd, env: { PGRST_DB_ANON_ROLE: 'anon' } })).config.dbAnonRole, 'anon');
  t.equal((await load({ cwd, env: { PGRST_DB_ANON_ROLE: 'a', DBREST_DB_ANON_ROLE: 'b' } })).config.dbAnonRole, 'b');
  // Old names: PGRST_DB_SCHEMA, PGRST_MAX_ROWS; the canonical name wins over the alias.
  t.same((await load({ cwd, env: { PGRST_DB_SCHEMA: 'api' } })).config.dbSchemas, ['api']);
  t.same((await load({ cwd, env: { PGRST_DB_SCHEMA: 'old', PGRST_DB_SCHEMAS: 'new' } })).config.dbSchemas, ['new']);
  t.equal((await load({ cwd, env: { PGRST_MAX_ROWS: '5' } })).config.dbMaxRows, 5);
  // dbrest's own keys have no PGRST_ name.
  t.same((await load({ cwd, env: { PGRST_ROUTES: '[{"method":"GET","path":"/x","call":"f"}]' } })).config.routes, []);
  t.equal((await load({ cwd, env: { DBREST_OPENAPI_VERSION: '3.1' } })).config.openapiVersion, '3.1');
  // Empty means unset (PostgREST): the default, even over a file value.
  const withFile = dir(t, { 'dbrest.conf': 'db-anon-role = "file"\n' });
  const empty = await load({ cwd: withFile, env: { DBREST_DB_ANON_ROLE: '' } });
  t.equal(empty.config.dbAnonRole, null);
  t.equal(empty.sources['db-anon-role'], 'env');
});

t.test('coercion from env strings', async (t) => {
  const l = await load({ cwd: dir(t), env: {
    DBREST_DB_PLAN_ENABLED: 'true', DBREST_DB_CHANNEL_ENABLED: 'off', DBREST_DB_SCHEMAS: 'api, v2',
    DBREST_DB_POOL_MAX_LIFETIME: '60', DBREST_SERVER_CORS_ALLOWED_ORIGINS: 'http://a.test',
    DBREST_ROUTES: '[{"method":"get","path":"/r/:id","call":"api.r","args":{"id":"path.id"}}]',
  } });
  t.same(l.problems, []);
  t.equal(l.config.dbPlanEnabled, true);
  t.equal(l.config.dbChannelEnabled, false);
  t.same(l.config.dbSchemas, ['api', 'v2']);
  t.equal(l.config.dbPoolMaxLifetime, 60);
  t.same(l.config.serverCorsAllowedOrigins, ['http://a.test']);
  t.same(l.config.routes[0]?.routes, [{ methods: ['GET'], path: '/r/:id', target: { kind: 'call', name: 'api.r' }, args: { id: 'path.id' }, produces: null, consumes: null }]);
});

t.test('flags: camelCase fields, [bool] flags, --app-setting', async (t) => {
  const l = await load({ cwd: dir(t), flags: { dbPlanEnabled: true, dbAggregatesEnabled: 'false', dbSchemas: 'a,b', appSetting: ['region=eu', 'app.settings.Mode=x=y'] } });
  t.same(l.problems, []);
  t.equal(l.config.dbPlanEnabled, true);
  t.equal(l.config.dbAggregatesEnabled, false);
  t.same(l.config.dbSchemas, ['a', 'b']);
  t.same(l.config.appSettings, { region: 'eu', mode: 'x=y' });
  t.equal(l.sources['app.settings.region'], 'flag');
  const bad = await load({ cwd: dir(t), flags: { appSetting: 'novalue', dbPoool: 3 } });
  t.match(bad.problems, [
    { key: 'app.settings.*', message: /--app-setting name=value/ },
    { key: 'dbPoool', message: 'unknown flag', suggestion: 'dbPool' },
  ]);
});

t.test('app.settings.* from every source', async (t) => {
  const cwd = dir(t, { 'dbrest.config.json': JSON.stringify({
    'app.settings.flat': 'f', app: { settings: { nested: 'n', over: 'file' } }, 'app.settings': { obj: 1 },
  }) });
  const l = await load({ cwd, env: { DBREST_APP_SETTINGS_FROM_ENV: 'e', PGRST_APP_SETTINGS_Over: 'pgrst', DBREST_APP_SETTINGS_OVER: 'dbrest' } });
  t.same(l.problems, []);
  t.same(l.config.appSettings, { flat: 'f', from_env: 'e', nested: 'n', obj: '1', over: 'dbrest' });
  t.equal(l.sources['app.settings.flat'], 'file');
  t.equal(l.sources['app.settings.over'], 'env');
  t.equal(l.origins['app.settings.over'], 'DBREST_APP_SETTINGS_OVER');
  t.same(Object.keys(l.config.appSettings), ['flat', 'from_env', 'nested', 'obj', 'over']);
});

t.test('file discovery with cosmiconfig (module name dbrest)', async (t) => {
  t.equal((await load({ cwd: dir(t, { '.dbrestrc.json': '{"db-pool": 2}' }) })).config.dbPool, 2);
  t.equal((await load({ cwd: dir(t, { '.dbrestrc.yaml': 'db-pool: 3\n' }) })).config.dbPool, 3);
  t.equal((await load({ cwd: dir(t, { 'package.json': '{"name":"x","dbrest":{"db-pool":4}}' }) })).config.dbPool, 4);
  t.equal((await load({ cwd: dir(t, { 'dbrest.config.mjs': 'export default { "db-pool": 5 };\n' }) })).config.dbPool, 5);
  t.equal((await load({ cwd: dir(t, { 'dbrest.config.yml': 'db-pool: 6\n' }) })).config.dbPool, 6);
  t.equal((await load({ cwd: dir(t, { 'dbrest.conf': 'db-pool = 7\n' }) })).config.dbPool, 7);
  const l = await load({ cwd: dir(t, { '.dbrestrc.json': '{"db-pool": 2}' }), search: false });
  t.equal(l.config.dbPool, 10);
  t.equal(l.file, null);
  // An empty file is an empty config.
  t.same((await load({ cwd: dir(t, { '.dbrestrc.yaml': '' }) })).problems, []);
});

t.test('explicit files: json, yaml, js, .conf, and PostgREST syntax without the extension', async (t) => {
  const cwd = dir(t, {
    'a.json': '{"dbSchemas": ["api"], "db-schema": "ignored-alias", "db-schemas": "wins"}',
    'b.yaml': 'db-schemas: [x, y]\nopenapi-version: 3.1\njwt-secret:\n  kty: oct\n  k: abc\n',
    'c.cjs': 'module.exports = { "db-pool": 9 };',
    'd.conf': 'db-pool = 8\napp.settings.home = "$(MY_HOME)"\n',
    'postgrest/config': '# a PostgREST file\ndb-pool = 11\n',
  });
  const a = await load({ cwd, file: 'a.json' });
  t.same(a.problems, []);
  t.same(a.config.dbSchemas, ['wins']);
  const b = await load({ cwd, file: 'b.yaml' });
  t.same(b.problems, []);
  t.same(b.config.dbSchemas, ['x', 'y']);
  t.equal(b.config.openapiVersion, '3.1');
  t.equal(b.config.jwtSecret, '{"kty":"oct","k":"abc"}');
  t.equal((await load({ cwd, file: 'c.cjs' })).config.dbPool, 9);
  const d = await load({ cwd, file: path.join(cwd, 'd.conf'), env: { MY_HOME: '/h' } });
  t.equal(d.config.dbPool, 8);
  t.same(d.config.appSettings, { home: '/h' });
  t.equal(d.file, path.join(cwd, 'd.conf'));
  t.equal((await load({ cwd, file: 'postgrest/config' })).config.dbPool, 11);
});

t.test('problem: unknown key, with did-you-mean', async (t) => {
  const l = await load({ cwd: dir(t, { 'x.conf': 'db-shemas = "api"\ntotally-unknown = 1\napp.other = 1\n' }), file: 'x.conf' });
  t.match(l.problems, [
    { key: 'db-shemas', message: 'unknown key (in x.conf)', suggestion: 'db-schemas' },
    { key: 'totally-unknown', message: 'unknown key (in x.conf)' },
    { key: 'app.other', message: /unknown key/ },
  ]);
  t.equal(l.problems[1]?.suggestion, undefined);
});

t.test('problem: wrong type, bad enum value, malformed db-uri, bad routes', async (t) => {
  const cwd = dir(t, { 'x.conf': 'db-pool = "ten"\ndb-tx-end = "comit"\ndb-uri = "mysql://localhost/app"\nserver-port = true\nroutes = "[{\\"method\\":\\"GTE\\",\\"path\\":\\"/a\\",\\"call\\":\\"f\\"}]"\n' });
  const l = await load({ cwd, file: 'x.conf' });
  t.same(keysOf(l), ['db-pool', 'db-tx-end', 'db-uri', 'routes[0].method', 'server-port']);
  t.match(l.problems[0]?.message, /expected an integer, got "ten" \(from x.conf\)/);
  t.match(l.problems[1], { message: /use one of "commit", "commit-allow-override", "rollback", "rollback-allow-override"/, suggestion: 'commit' });
  t.match(l.problems[2]?.message, /malformed connection string/);
  t.match(l.problems[3], { suggestion: 'GET' });
  t.match(l.problems[4]?.message, /expected an integer, got true/);
  // The bad values fall back to defaults, so the rest of the config stays usable for messages.
  t.equal(l.config.dbPool, 10);
});

t.test('problem: bad values in env and flags name their origin; overridden bad values still count', async (t) => {
  const cwd = dir(t, { 'dbrest.conf': 'db-pool = "ten"\n' });
  const l = await load({ cwd, env: { DBREST_DB_MAX_ROWS: 'many' }, flags: { dbPool: '5', logLevel: 'loud' } });
  t.match(l.problems, [
    { key: 'db-max-rows', message: /from env DBREST_DB_MAX_ROWS/ },
    { key: 'db-pool', message: /from dbrest.conf/ },
    { key: 'log-level', message: /from flag --log-level/ },
  ]);
  t.equal(l.config.dbPool, 5);
});

t.test('problem: unreadable, unparsable or unsupported files are one line each', async (t) => {
  const cwd = dir(t, {
    'broken.json': '{ "db-pool": 1,, }',
    'broken.yaml': 'db-pool: [1\n',
    'broken.conf': 'db-pool = 1\ndb-uri = "unterminated\n',
    'list.json': '[1, 2]',
    'x.ini': '[section]\nkey: value\n',
    'x.toml': 'db-pool = 12\n',
    'throws.cjs': 'throw new Error("boom")',
  });
  mkdirSync(path.join(cwd, 'adir'));
  const one = async (file: string): Promise<string> => {
    const l = await load({ cwd, file });
    t.equal(l.problems.length, 1, file);
    t.equal(l.problems[0]?.key, 'config-file', file);
    t.notMatch(l.problems[0]?.message, /\n/, `${file}: one line`);
    return l.problems[0]?.message ?? '';
  };
  t.match(await one('missing.json'), /cannot read .*missing.json: no such file/);
  t.match(await one('adir'), /it is a directory/);
  t.match(await one('broken.json'), /broken.json/);
  t.match(await one('broken.yaml'), /broken.yaml/);
  t.match(await one('broken.conf'), /broken.conf, line 2, column 10: unterminated string/);
  t.match(await one('list.json'), /must contain an object of keys and values, not a list/);
  t.match(await one('x.ini'), /unsupported config file type ".ini"/);
  // key = value files are read as PostgREST syntax whatever their extension.
  t.equal((await load({ cwd, file: 'x.toml' })).config.dbPool, 12);
  t.match(await one('throws.cjs'), /boom/);
  if (process.getuid?.() !== 0) {
    writeFileSync(path.join(cwd, 'secret.json'), '{}');
    chmodSync(path.join(cwd, 'secret.json'), 0o000);
    t.match(await one('secret.json'), /permission denied/);
  }
  // A broken file found by the search is reported too.
  const found = await load({ cwd: dir(t, { '.dbrestrc.json': '{ nope' }) });
  t.match(found.problems, [{ key: 'config-file', message: /dbrestrc.json/ }]);
});

t.test('problem: a near-miss DBREST_ variable; unrelated DBREST_ variables are left alone', async (t) => {
  const l = await load({ cwd: dir(t), env: { DBREST_DB_SHEMAS: 'api', DBREST_TEST_DB_URI: 'postgres://x', PGRST_DB_SHEMAS: 'x' } });
  t.same(l.problems, [{ key: 'DBREST_DB_SHEMAS', message: 'unknown environment variable', suggestion: 'DBREST_DB_SCHEMAS' }]);
});

t.test('@file for db-uri and jwt-secret', async (t) => {
  const cwd = dir(t, { 'uri.txt': 'postgres://u:p@h/db\n', 'jwt.txt': 'reallyreallyreallyreallyverysafe\n', 'bad-uri.txt': 'nope\n' });
  const l = await load({ cwd, env: { DBREST_DB_URI: '@uri.txt', DBREST_JWT_SECRET: '@./jwt.txt' } });
  t.same(l.problems, []);
  t.equal(l.config.dbUri, 'postgres://u:p@h/db');
  t.equal(l.config.jwtSecret, 'reallyreallyreallyreallyverysafe');
  const missing = await load({ cwd, env: { DBREST_DB_URI: '@nope.txt' } });
  t.match(missing.problems, [{ key: 'db-uri', message: /cannot read @nope.txt: no such file/ }]);
  const bad = await load({ cwd, env: { DBREST_DB_URI: '@bad-uri.txt' } });
  t.match(bad.problems, [{ key: 'db-uri', message: /malformed connection string.*\(in @bad-uri.txt\)/ }]);
});

t.test('checks across keys run on the resolved config', async (t) => {
  const l = await load({ cwd: dir(t), env: { DBREST_ADMIN_SERVER_PORT: '3000', DBREST_JWT_SECRET: 'short', DBREST_DB_SCHEMAS: 'api,pg_catalog' } });
  t.same(keysOf(l).sort(), ['admin-server-port', 'db-schemas', 'jwt-secret']);
});

t.test('never throws for user input', async (t) => {
  const l = await load({ cwd: '/definitely/not/a/dir', file: 'x.json', env: { DBREST_DB_POOL: '{}' }, flags: { routes: 42 } });
  t.ok(l.problems.length >= 3);
});

t.test('@file and a routes file written in the config file are relative to its directory, not cwd', async (t) => {
  const cwd = dir(t, {
    'conf/dbrest.conf': 'jwt-secret = "@secret.txt"\ndb-uri = "@uri.txt"\nroutes = "routes.json"\n',
    'conf/secret.txt': 'reallyreallyreallyreallyverysafe\n',
    'conf/uri.txt': 'postgres://u@h/db\n',
    'conf/routes.json': '[{ "method": "GET", "path": "/x", "call": "public.x" }]',
    'secret.txt': 'the-working-directory-one-is-not-read!!\n',
  });
  const l = await load({ cwd, file: 'conf/dbrest.conf' });
  t.same(l.problems, []);
  t.equal(l.config.jwtSecret, 'reallyreallyreallyreallyverysafe');
  t.equal(l.config.dbUri, 'postgres://u@h/db');
  t.equal(l.config.routes.length, 1);
  // From the environment, a name is relative to the working directory.
  const env = await load({ cwd, file: 'conf/dbrest.conf', env: { DBREST_JWT_SECRET: '@secret.txt' } });
  t.equal(env.config.jwtSecret, 'the-working-directory-one-is-not-read!!');
});

t.test('PostgREST keys with no meaning here load with a warning; server-proxy-uri is an alias', async (t) => {
  const cwd = dir(t, {
    'postgrest.conf': 'db-use-legacy-gucs = false\nraw-media-types = "application/octet-stream"\nserver-proxy-uri = "https://api.example.com/v1"\n',
  });
  const l = await load({ cwd, file: 'postgrest.conf', env: { PGRST_RAW_MEDIA_TYPES: 'image/png' } });
  t.same(l.problems, []);
  t.equal(l.config.openapiServerProxyUri, 'https://api.example.com/v1');
  t.match(l.warnings, [
    /^db-use-legacy-gucs: ignored: .* \(in postgrest\.conf\)$/,
    /^raw-media-types: ignored: .* \(in postgrest\.conf\)$/,
    /^raw-media-types: ignored: .* \(from PGRST_RAW_MEDIA_TYPES\)$/,
  ]);
});
