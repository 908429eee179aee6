// Coercion of raw values, every problem kind, did-you-mean.
import t from 'tap';

import { keyByField, type ConfigField } from '../../../src/config/keys.js';
import { DEFAULT_CONFIG } from '../../../src/config/keys.js';
import type { AppConfig } from '../../../src/config/types.js';
import {
  checkDbUri, checkJwtSecret, closest, coerceValue, editDistance, parseRoutes, suggestEnvName,
  suggestKey, validateConfig, type Coerced,
} from '../../../src/config/validate.js';

const coerce = (field: ConfigField, raw: unknown): Coerced<unknown> => coerceValue(keyByField(field), raw);
const value = (field: ConfigField, raw: unknown): unknown => {
  const c = coerce(field, raw);
  if (!c.ok) throw new Error(`unexpected problem: ${c.issues[0]?.message}`);
  return c.value;
};
const issue = (field: ConfigField, raw: unknown): { message: string; suggestion?: string; path?: string } => {
  const c = coerce(field, raw);
  if (c.ok) throw new Error(`expected a problem for ${JSON.stringify(raw)}, got ${JSON.stringify(c.value)}`);
  return c.issues[0] as { message: string; suggestion?: string };
};

t.test('unset values: null, undefined and "" give the default', async (t) => {
  t.equal(value('dbPool', null), 10);
  t.equal(value('dbPool', undefined), 10);
  t.equal(value('dbPool', ''), 10);
  t.same(value('dbSchemas', ''), ['public']);
  t.equal(value('dbAnonRole', ''), null);
  // PostgREST: an empty db-extra-search-path means no extra schemas.
  t.same(value('dbExtraSearchPath', ''), []);
  t.equal(value('serverCorsAllowedOrigins', ''), null);
});

t.test('int', async (t) => {
  t.equal(value('dbPool', 5), 5);
  t.equal(value('dbPool', '5'), 5);
  t.equal(value('dbPool', ' 7 '), 7);
  t.equal(value('dbMaxRows', '0'), 0);
  t.match(issue('dbPool', 'ten').message, /expected an integer, got "ten"/);
  t.match(issue('dbPool', 1.5).message, /expected an integer/);
  t.match(issue('dbPool', '1.5').message, /expected an integer/);
  t.match(issue('dbPool', true).message, /expected an integer/);
  t.match(issue('dbPool', 0).message, /at least 1/);
  t.match(issue('serverPort', 70000).message, /at most 65535/);
  t.match(issue('serverPort', '-1').message, /at least 0/);
  t.match(issue('dbPool', '99999999999999999999').message, /too large/);
  // server-workers: a count, or the word auto (cores).
  t.equal(value('serverWorkers', '4'), 4);
  t.equal(value('serverWorkers', 'auto'), 'auto');
  t.equal(value('serverWorkers', ' AUTO '), 'auto');
  t.match(issue('serverWorkers', '0').message, /at least 1/);
  t.match(issue('serverWorkers', 'all').message, /expected an integer or auto, got "all"/);
  t.match(issue('dbPool', 'auto').message, /expected an integer, got "auto"/, 'only keys that name the word take it');
});

t.test('bool', async (t) => {
  for (const raw of [true, 'true', 'TRUE', 'True', 'on', 'yes', '1', 1, 5]) t.equal(value('dbPlanEnabled', raw), true, String(raw));
  for (const raw of [false, 'false', 'off', 'no', '0', 0]) t.equal(value('dbPlanEnabled', raw), false, String(raw));
  t.match(issue('dbPlanEnabled', 'maybe').message, /expected a boolean/);
  t.match(issue('dbPlanEnabled', [true]).message, /expected a boolean/);
});

t.test('list', async (t) => {
  t.same(value('dbSchemas', 'api, public ,x'), ['api', 'public', 'x']);
  t.same(value('dbSchemas', ['api', ' v2 ']), ['api', 'v2']);
  t.same(value('dbSchemas', 'api,,'), ['api']);
  t.same(value('dbSchemas', ' , '), ['public']);
  t.same(value('serverCorsAllowedOrigins', 'http://a.test, http://b.test'), ['http://a.test', 'http://b.test']);
  t.match(issue('dbSchemas', 12 as unknown).message, /comma-separated string or a list/);
  t.match(issue('dbSchemas', ['a', { b: 1 }]).message, /item 1/);
});

t.test('enum: allowed values listed, closest suggested', async (t) => {
  t.equal(value('dbTxEnd', 'rollback-allow-override'), 'rollback-allow-override');
  const i = issue('dbTxEnd', 'comit');
  t.match(i.message, /"comit" is not allowed; use one of "commit", "commit-allow-override", "rollback", "rollback-allow-override"/);
  t.equal(i.suggestion, 'commit');
  t.equal(issue('logLevel', 'INFO').suggestion, 'info');
  t.equal(issue('openapiMode', 'nonsense').suggestion, undefined);
  // YAML/JSON numbers for openapi-version
  t.equal(value('openapiVersion', 3.1), '3.1');
  t.equal(value('openapiVersion', 2), '2.0');
  t.equal(value('openapiVersion', '3.1'), '3.1');
  t.match(issue('openapiVersion', '3.0').message, /"2.0", "3.1"/);
});

t.test('string and secret', async (t) => {
  t.equal(value('dbAnonRole', 'web_anon'), 'web_anon');
  t.equal(value('jwtAud', 123), '123');
  t.match(issue('dbAnonRole', true).message, /expected a string/);
  t.match(issue('dbAnonRole', ['a']).message, /expected a string/);
  t.equal(value('jwtSecret', 'x'.repeat(32)), 'x'.repeat(32));
  // A JWK written as an object in JSON/YAML becomes its JSON text.
  t.equal(value('jwtSecret', { kty: 'oct', k: 'abc' }), '{"kty":"oct","k":"abc"}');
});

t.test('string formats', async (t) => {
  t.equal(value('openapiServerProxyUri', 'https://example.com:8443/api'), 'https://example.com:8443/api');
  t.match(issue('openapiServerProxyUri', 'example.com').message, /not a valid URI/);
  t.match(issue('openapiServerProxyUri', 'ftp://example.com').message, /http:\/\/ or https:\/\//);
  t.equal(value('jwtAud', 'my-audience'), 'my-audience');
  t.equal(value('jwtAud', 'urn:example:aud'), 'urn:example:aud');
  t.match(issue('jwtAud', 'a:b c').message, /not a valid URI/);
  t.equal(value('serverUnixSocketMode', '600'), '600');
  t.equal(value('serverUnixSocketMode', 660), '660');
  t.match(issue('serverUnixSocketMode', '999').message, /octal/);
  t.match(issue('serverUnixSocketMode', '400').message, /between 600 and 777/);
  t.equal(value('serverTraceHeader', 'X-Request-Id'), 'X-Request-Id');
  t.match(issue('serverTraceHeader', 'X Request').message, /header name/);
});

t.test('db-uri: URIs, key=value strings, @file', async (t) => {
  for (const good of [
    'postgres://user:pass@host:5432/dbname',
    'postgresql://',
    'postgresql://localhost',
    'postgres://user@/dbname',
    'postgres:///postgres?host=/run/pg&port=5432',
    'postgresql://host1:123,host2:456/somedb?target_session_attrs=read-write',
    'postgres://admin2:?pass?special?@localhost:5432/postgres',
    'postgres://u:p%40ss@[::1]:5432/db?sslmode=require&application_name=x',
    'host=localhost port=5433 user=authenticator password=mysecretpassword dbname=postgres',
    "host=localhost password='with space \\' quote' dbname=app",
    'dbname = app',
    '@./secrets/db-uri',
  ]) t.equal(checkDbUri(good), null, good);

  t.match(checkDbUri('mysql://x'), /scheme must be postgres:\/\/ or postgresql:\/\//);
  t.match(checkDbUri('localhost:5432/app'), /use a URI like postgres:\/\//);
  t.match(checkDbUri('postgres://u:p%zz@h/db'), /percent-encoding/);
  t.match(checkDbUri('postgres://h:99999/db'), /port 99999 is out of range/);
  t.match(checkDbUri('postgres://h/db?sslmod=require'), /unknown connection parameter "sslmod" \(did you mean sslmode\?\)/);
  t.match(checkDbUri('postgres://h/my db'), /spaces/);
  t.match(checkDbUri('host=localhost dbnme=app'), /unknown connection parameter "dbnme" \(did you mean dbname\?\)/);
  t.match(checkDbUri("host='unterminated"), /unterminated/);
  t.match(checkDbUri('host=x =y'), /expected a parameter name/);
  t.match(checkDbUri('@'), /file name/);
  t.match(issue('dbUri', 'mysql://x').message, /malformed connection string/);
});

const loose = (m: object) => ({ methods: [], args: {}, produces: null, consumes: null, ...m });

t.test('routes: mounts without a prefix form one group', async (t) => {
  const routes = [
    { method: 'get', path: '/api/cms/v2/bookmark/:locationId(int)', call: 'cms.get_bookmark', args: { location_id: 'path.locationId', q: 'query', h: 'header.x-user', c: 'cookie.sid', b: 'body', m: 'method', p: 'query.page', t: 'media' } },
    { method: ['POST', 'put'], path: '/api/things/', call: ' api.add_thing ' },
    { path: '/people/:id', relation: 'people', args: { id: 'path.id' } },
  ];
  t.same(value('routes', routes), [{
    prefix: '', schema: null, errorHandler: null, preRequest: null, produces: [], consumes: [],
    routes: [
      loose({ methods: ['GET'], path: '/api/cms/v2/bookmark/:locationId(int)', target: { kind: 'call', name: 'cms.get_bookmark' }, args: routes[0]?.args }),
      loose({ methods: ['POST', 'PUT'], path: '/api/things', target: { kind: 'call', name: 'api.add_thing' } }),
      loose({ methods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'], path: '/people/:id', target: { kind: 'relation', name: 'people' }, args: { id: 'path.id' } }),
    ],
  }]);
  t.same((value('routes', JSON.stringify(routes.slice(1, 2))) as Array<{ routes: unknown[] }>)[0]?.routes.length, 1, 'a JSON string of routes');
  t.match(issue('routes', '[oops').message, /expected JSON routes/);
  t.match(issue('routes', { method: 'GET' }).message, /expected a list/);
});

t.test('routes: groups', async (t) => {
  const group = {
    prefix: '/api/v2/', schema: 'content', 'error-handler': 'content.error', 'pre-request': '',
    produces: 'application/json', consumes: ['application/*'],
    routes: [{ method: 'GET', path: '/pages/:id(int)/', call: 'page', args: { id: 'path.id' }, produces: ['application/xml'] }, { method: 'GET', path: '/', call: 'root' }],
  };
  t.same(value('routes', group), [{
    prefix: '/api/v2', schema: 'content', errorHandler: 'content.error', preRequest: '', produces: ['application/json'], consumes: ['application/*'],
    routes: [
      loose({ methods: ['GET'], path: '/api/v2/pages/:id(int)', target: { kind: 'call', name: 'page' }, args: { id: 'path.id' }, produces: ['application/xml'] }),
      loose({ methods: ['GET'], path: '/api/v2', target: { kind: 'call', name: 'root' } }),
    ],
  }], 'a single group object; paths joined to the prefix, trailing slashes dropped');
  const bad = parseRoutes([{ prefix: '/a/:x', schem: 'x', routes: 'no' }, { prefix: '/b', routes: [], 'error-handler': 'a.b.c', produces: ['application/*'] }]);
  t.equal(bad.ok, false);
  const issues = bad.ok ? [] : bad.issues;
  const at = (p: string) => issues.filter((i) => i.path === p);
  t.match(at('[0].prefix')[0]?.message, /must be static/);
  t.match(at('[0].schem')[0], { message: /unknown group field/, suggestion: 'schema' });
  t.match(at('[0].routes')[0]?.message, /must be a list of mounts/);
  t.match(at('[1].error-handler')[0]?.message, /must be a name/);
  t.match(at('[1].produces')[0]?.message, /no wildcards here/);
});

t.test('routes: every problem with its place', async (t) => {
  const bad = parseRoutes([
    'nope',
    { method: 'GTE', path: '/a', call: 'f' },
    { method: 'GET', path: 'a', call: '' },
    { method: 'GET', path: '/b/:id', call: 'f', args: { id: 'path.ide', x: 'qurey.x', y: 3 }, extra: 1 },
    { method: 'GET', path: '/c/:a', call: 'f' },
    { method: 'get', path: '/c/:b/', call: 'g' },
    { method: 'GET', path: '/d', call: 'f', args: ['x'] },
    { method: 'GET', path: '/e', call: 'f', args: { id: 'path.id' } },
    { method: 'GET', path: '/f/:id(integer)', call: 'f' },
    { method: 'GET', path: '/g/*rest/x', call: 'f' },
    { method: 'GET', path: '/h', call: 'f', relation: 'r' },
    { method: 'GET', path: '/i' },
  ]);
  t.equal(bad.ok, false);
  const issues = bad.ok ? [] : bad.issues.map((i) => ({ ...i }));
  const at = (p: string) => issues.filter((i) => i.path === p);
  t.match(at('[0]')[0]?.message, /expected a mount/);
  t.match(at('[1].method')[0], { message: /"GTE" is not an HTTP method/, suggestion: 'GET' });
  t.match(at('[2].path')[0]?.message, /must start with "\/"/);
  t.match(at('[2].call')[0]?.message, /must name a function/);
  t.match(at('[3].args.id')[0], { message: /has no :ide \(it has :id\)/, suggestion: 'path.id' });
  t.match(at('[3].args.x')[0], { message: /not a request part/, suggestion: 'query.x' });
  t.match(at('[3].args.y')[0]?.message, /expected a string source/);
  t.match(at('[3].extra')[0]?.message, /unknown route field/);
  t.match(at('[5]')[0]?.message, /GET \/c\/:b is already mounted by \[4\]/);
  t.match(at('[6].args')[0]?.message, /must be an object/);
  t.match(at('[7].args.id')[0]?.message, /has no parameters/);
  t.match(at('[8].path')[0]?.message, /unknown segment type "integer"/);
  t.match(at('[9].path')[0]?.message, /tail must be the last segment/);
  t.match(at('[10]')[0]?.message, /names both call and relation/);
  t.match(at('[11]')[0]?.message, /needs a target/);
});

t.test('app.settings map', async (t) => {
  t.same(value('appSettings', { a: 'x', n: 1, b: true }), { a: 'x', n: '1', b: 'true' });
  t.match(coerce('appSettings', { a: { nested: 1 } }), { ok: false, issues: [{ path: '.a', message: /expected a string/ }] });
});

t.test('checks across keys', async (t) => {
  const cfg = (o: Partial<AppConfig>): AppConfig => ({ ...DEFAULT_CONFIG, ...o });
  t.same(validateConfig(DEFAULT_CONFIG), []);
  t.match(validateConfig(cfg({ dbSchemas: ['api', 'pg_catalog'] })), [{ key: 'db-schemas', message: /pg_catalog cannot be exposed/ }]);
  t.match(validateConfig(cfg({ dbSchemas: ['information_schema'] })), [{ key: 'db-schemas' }]);
  t.match(validateConfig(cfg({ adminServerPort: 3000 })), [{ key: 'admin-server-port', message: /same as server-port/ }]);
  t.same(validateConfig(cfg({ adminServerPort: 3001 })), []);
  t.match(validateConfig(cfg({ jwtSecret: 'short' })), [{ key: 'jwt-secret', message: /at least 32 characters long \(it has 5\)/ }]);
});

t.test('jwt-secret rule', async (t) => {
  t.equal(checkJwtSecret('reallyreallyreallyreallyverysafe', false), null);
  t.equal(checkJwtSecret('{"kty":"oct","k":"abc"}', false), null);
  t.equal(checkJwtSecret('{"keys":[]}', false), null);
  t.match(checkJwtSecret('{"a":1}', false), /neither a JWK/);
  const b64 = Buffer.alloc(32, 7).toString('base64');
  t.equal(checkJwtSecret(b64, true), null);
  t.equal(checkJwtSecret(Buffer.alloc(32, 7).toString('base64url'), true), null);
  t.match(checkJwtSecret(Buffer.alloc(16, 7).toString('base64'), true), /at least 32/);
  t.match(checkJwtSecret('not base64!!'.repeat(4), true), /not valid base64/);
});

t.test('did you mean', async (t) => {
  t.equal(editDistance('db-shemas', 'db-schemas'), 1);
  t.equal(editDistance('ab', 'ba'), 1);
  t.equal(editDistance('', 'abc'), 3);
  t.equal(closest('colour', ['color', 'flavour']), 'color');
  t.equal(closest('zzzzzz', ['color']), undefined);
  t.equal(closest('abcd', ['abxy'], 1), undefined);

  t.equal(suggestKey('db-shemas'), 'db-schemas');
  t.equal(suggestKey('db-schema-s'), 'db-schemas');
  t.equal(suggestKey('dbMaxRow'), 'db-max-rows');
  t.equal(suggestKey('db_pool'), 'db-pool');
  t.equal(suggestKey('DB_ANON_ROLE'), 'db-anon-role');
  t.equal(suggestKey('jwt-secrte'), 'jwt-secret');
  t.equal(suggestKey('max-row'), 'db-max-rows'); // closest to the alias, reported as the canonical name
  t.equal(suggestKey('app.setting.region'), 'app.settings.region');
  t.equal(suggestKey('completely-unrelated-thing'), undefined);

  t.equal(suggestEnvName('DBREST_DB_SHEMAS'), 'DBREST_DB_SCHEMAS');
  t.equal(suggestEnvName('DBREST_TEST_DB_URI'), undefined);
  t.equal(suggestEnvName('PGRST_DB_SHEMAS'), undefined);
});

t.test('db-read-uris: URIs separated by commas or spaces; a multi-host URI keeps its commas', async (t) => {
  t.same(coerce('dbReadUris', 'postgres://a/db, postgresql://b:5433/db'), { ok: true, value: ['postgres://a/db', 'postgresql://b:5433/db'] });
  t.same(coerce('dbReadUris', 'postgres://a/db  postgres://b/db'), { ok: true, value: ['postgres://a/db', 'postgres://b/db'] });
  t.same(coerce('dbReadUris', 'postgres://h1:5432,h2:5432/db'), { ok: true, value: ['postgres://h1:5432,h2:5432/db'] });
  t.same(coerce('dbReadUris', ['postgres://a/db']), { ok: true, value: ['postgres://a/db'] });
  t.same(coerce('dbReadUris', ''), { ok: true, value: [] });
  const kv = coerce('dbReadUris', 'host=a dbname=x');
  t.equal(kv.ok, false, 'key=value strings cannot be listed');
  const badPort = coerce('dbReadUris', 'postgres://a/db,postgres://b:99999/db');
  t.equal(badPort.ok, false);
  if (!badPort.ok) t.match(badPort.issues[0]!.message, /item 2: .*port 99999/);
  t.same(coerce('dbReadMaxLag', '3'), { ok: true, value: 3 });
  t.equal(coerce('dbReadMaxLag', '-1').ok, false);
});
