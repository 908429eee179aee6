// check-config's rendering: one line per key with its source, secrets masked, colours only from chalk.
import { Chalk } from 'chalk';
import t from 'tap';

import { DEFAULT_CONFIG, SCALAR_KEYS, keyByField } from '../../../src/config/keys.js';
import type { LoadedConfig } from '../../../src/config/load.js';
import { MASK, chalkFor, formatProblem, formatValue, maskDbUri, renderConfig, renderProblems } from '../../../src/config/print.js';
import type { AppConfig } from '../../../src/config/types.js';

const plain = new Chalk({ level: 0 });
const colour = new Chalk({ level: 1 });
const ANSI = /\u001b\[/;

function loaded(config: Partial<AppConfig>, sources: LoadedConfig['sources'] = {}, origins: LoadedConfig['origins'] = {}): LoadedConfig {
  return { config: { ...DEFAULT_CONFIG, ...config }, sources, origins, file: '/etc/dbrest/dbrest.conf', problems: [] };
}

t.test('maskDbUri', async (t) => {
  t.equal(maskDbUri('postgres://app:s3cret@db:5432/app'), `postgres://app:${MASK}@db:5432/app`);
  t.equal(maskDbUri('postgresql://app@db/app'), 'postgresql://app@db/app');
  t.equal(maskDbUri('postgresql://db/app'), 'postgresql://db/app');
  t.equal(maskDbUri('postgres://admin2:?pass?special?@localhost:5432/postgres'), `postgres://admin2:${MASK}@localhost:5432/postgres`);
  t.equal(maskDbUri('postgres://u:p%40ss@h/db?sslmode=require&password=x&user=u'), `postgres://u:${MASK}@h/db?sslmode=require&password=${MASK}&user=u`);
  t.equal(maskDbUri('postgresql:///db?password=x'), `postgresql:///db?password=${MASK}`);
  t.equal(maskDbUri('host=localhost password=secret dbname=app'), `host=localhost password=${MASK} dbname=app`);
  t.equal(maskDbUri("host=h password='se cret \\' x' dbname=app"), `host=h password=${MASK} dbname=app`);
  t.equal(maskDbUri('host=h dbname=app'), 'host=h dbname=app');
  t.notMatch(maskDbUri("password='unterminated secret"), /secret/);
});

t.test('formatValue: .conf syntax, unset as "", secrets masked', async (t) => {
  t.equal(formatValue(keyByField('dbPool'), 10), '10');
  t.equal(formatValue(keyByField('dbPlanEnabled'), false), 'false');
  t.equal(formatValue(keyByField('dbSchemas'), ['api', 'public']), '"api,public"');
  t.equal(formatValue(keyByField('dbAnonRole'), null), '""');
  t.equal(formatValue(keyByField('jwtRoleClaimKey'), '."a b".role'), '".\\"a b\\".role"');
  t.equal(formatValue(keyByField('jwtSecret'), 'reallyreallyreallyreallyverysafe'), MASK);
  t.equal(formatValue(keyByField('jwtSecret'), null), '""');
  t.equal(formatValue(keyByField('dbUri'), 'postgres://a:b@h/d'), `"postgres://a:${MASK}@h/d"`);
  t.equal(formatValue(keyByField('routes'), [{ method: 'GET', path: '/x', call: 'f', args: {} }]), '"[{\\"method\\":\\"GET\\",\\"path\\":\\"/x\\",\\"call\\":\\"f\\",\\"args\\":{}}]"');
});

t.test('renderConfig: every key, sorted, with its source', async (t) => {
  const out = renderConfig(loaded(
    { dbPool: 5, jwtSecret: 'reallyreallyreallyreallyverysafe', dbUri: 'postgres://app:hunter2@db/app', serverPort: 8080,
      appSettings: { region: 'eu', api_token: 'tok' } },
    { 'db-pool': 'file', 'jwt-secret': 'file', 'db-uri': 'env', 'server-port': 'flag', 'app.settings.region': 'env', 'app.settings.api_token': 'file' },
    { 'db-pool': 'dbrest.conf', 'db-uri': 'DBREST_DB_URI', 'server-port': '--server-port', 'app.settings.region': 'PGRST_APP_SETTINGS_REGION' },
  ), { chalk: plain });
  t.notMatch(out, ANSI);
  t.notMatch(out, /hunter2|reallyreally|"tok"/);
  const lines = out.trimEnd().split('\n');
  t.equal(lines[0], '# config file: /etc/dbrest/dbrest.conf');
  t.equal(lines.length, 1 + SCALAR_KEYS.length + 2);
  const line = (key: string): string => lines.find((l) => l.startsWith(`${key} = `)) ?? '';
  t.match(line('db-pool'), /^db-pool = 5 +\(file\)$/);
  t.match(line('jwt-secret'), /^jwt-secret = \*{8} +\(file\)$/);
  t.match(line('db-uri'), /^db-uri = "postgres:\/\/app:\*{8}@db\/app" +\(env DBREST_DB_URI\)$/);
  t.match(line('server-port'), /^server-port = 8080 +\(flag --server-port\)$/);
  t.match(line('db-tx-end'), /^db-tx-end = "commit" +\(default\)$/);
  t.match(line('app.settings.region'), /^app.settings.region = "eu" +\(env PGRST_APP_SETTINGS_REGION\)$/);
  t.match(line('app.settings.api_token'), /^app.settings.api_token = \*{8} +\(file\)$/);
  const names = lines.slice(1).map((l) => l.split(' = ')[0] ?? '');
  t.same(names, [...names].sort());
  // Sources line up in one column (except after a value too long for it).
  const columns = new Set(lines.slice(1).filter((l) => !l.startsWith('db-hoisted-tx-settings')).map((l) => l.lastIndexOf(' (')));
  t.equal(columns.size, 1);
});

t.test('renderConfig without a file', async (t) => {
  const out = renderConfig({ ...loaded({}), file: null }, { chalk: plain });
  t.match(out, /^# no config file/);
});

t.test('colours come from chalk (never forced here)', async (t) => {
  t.match(renderConfig(loaded({}), { chalk: colour }), ANSI);
  t.match(formatProblem({ key: 'x', message: 'm' }, { chalk: colour }), ANSI);
  t.notMatch(formatProblem({ key: 'x', message: 'm' }, { chalk: plain }), ANSI);
});

t.test('NO_COLOR turns colours off (chalk 5 itself ignores it)', async (t) => {
  t.equal(chalkFor('stdout', { NO_COLOR: '1' }).level, 0);
  t.equal(chalkFor('stderr', { NO_COLOR: '1' }).level, 0);
  // An empty NO_COLOR does not count (no-color.org); FORCE_COLOR wins.
  t.not(chalkFor('stdout', { NO_COLOR: '' }), chalkFor('stdout', { NO_COLOR: '1' }));
  t.not(chalkFor('stdout', { NO_COLOR: '1', FORCE_COLOR: '1' }).level, undefined);
  t.not(chalkFor('stdout', { NO_COLOR: '1', FORCE_COLOR: '1' }), chalkFor('stdout', { NO_COLOR: '1' }));
});

t.test('problems: one line each, with the suggestion', async (t) => {
  t.equal(formatProblem({ key: 'db-shemas', message: 'unknown key (in x.conf)', suggestion: 'db-schemas' }, { chalk: plain }),
    '✖ db-shemas: unknown key (in x.conf) (did you mean db-schemas?)');
  t.equal(formatProblem({ key: 'db-pool', message: 'expected an integer' }, { chalk: plain }), '✖ db-pool: expected an integer');
  t.equal(renderProblems([{ key: 'a', message: 'b' }, { key: 'c', message: 'd' }], { chalk: plain }), '✖ a: b\n✖ c: d\n');
  t.equal(renderProblems([], { chalk: plain }), '');
});

t.test('formatValue: db-read-uris shows each URI with its password masked', async (t) => {
  const shown = formatValue(keyByField('dbReadUris'), ['postgres://app:s3cret@r1/db', 'postgres://app:other@r2/db']);
  t.notMatch(shown, /s3cret|other/);
  t.match(shown, /r1\/db,.*r2\/db/);
});
