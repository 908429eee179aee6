// Issue 12, item 8: the OpenAPI document and CORS as PostgREST v16 (test/spec/Feature/OpenApi/
// OpenApiSpec.hs, CorsSpec.hs; PostgREST #4641 for the integer formats, #4292 for preferParams).
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const FIXTURE = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'oa_parity_anon') THEN CREATE ROLE oa_parity_anon NOLOGIN; END IF;
END $$;
DROP SCHEMA IF EXISTS oa_api CASCADE;
DROP SCHEMA IF EXISTS oa_hidden CASCADE;
CREATE SCHEMA oa_api;
CREATE SCHEMA oa_hidden;
CREATE TABLE oa_api.numbers (id bigint PRIMARY KEY, small smallint, medium integer NOT NULL DEFAULT 7, big bigint, ratio numeric, ints integer[]);
CREATE FUNCTION oa_api.twice(n integer) RETURNS integer LANGUAGE sql IMMUTABLE AS $f$ SELECT n * 2 $f$;
-- A table the role may read, in a schema it has no USAGE on.
CREATE TABLE oa_hidden.secrets (id integer PRIMARY KEY);
CREATE FUNCTION oa_hidden.peek() RETURNS integer LANGUAGE sql AS $f$ SELECT 1 $f$;
GRANT USAGE ON SCHEMA oa_api TO oa_parity_anon;
GRANT SELECT ON oa_api.numbers TO oa_parity_anon;
GRANT SELECT ON oa_hidden.secrets TO oa_parity_anon;
REVOKE ALL ON SCHEMA oa_hidden FROM PUBLIC;
`;

async function server(t: { teardown(fn: () => unknown): void }, config: Record<string, string> = {}) {
  return startTestServer(t, { fixtures: [FIXTURE], config: { 'db-schemas': 'oa_api,oa_hidden', 'db-anon-role': 'oa_parity_anon', ...config } });
}

t.test('integer columns have the int32/int64 formats; preferParams has no enum', async (t) => {
  const s = await server(t);
  const res = await s.request('/');
  t.equal(res.status, 200);
  const d = res.json();
  const p = d.definitions.numbers.properties;
  t.strictSame(p.id, { description: 'Note:\nThis is a Primary Key.<pk/>', format: 'int64', type: 'integer' });
  t.strictSame(p.small, { format: 'int32', type: 'integer' });
  t.strictSame(p.medium, { default: 7, format: 'int32', type: 'integer' });
  t.strictSame(p.big, { format: 'int64', type: 'integer' });
  t.strictSame(p.ratio, { format: 'numeric', type: 'number' }, 'other numbers keep their PostgreSQL name');
  t.strictSame(p.ints, { format: 'integer[]', type: 'array', items: { type: 'integer' } }, 'arrays keep theirs');
  t.strictSame(d.parameters.preferParams, { name: 'Prefer', description: 'Preference', required: false, in: 'header', type: 'string' });
  t.notOk('enum' in d.parameters.preferParams);
  const v31 = (await s.request('/', { headers: { Accept: 'application/openapi+json' } })).json();
  t.equal(v31.components?.schemas?.numbers?.properties?.small?.format ?? (v31.definitions?.numbers?.properties?.small?.format), 'int32');
});

t.test('a role without USAGE on the schema gets the document (200, not 403), from the catalogs', async (t) => {
  const s = await server(t);
  const res = await s.request('/', { headers: { 'Accept-Profile': 'oa_hidden' } });
  t.equal(res.status, 200);
  t.equal(res.headers['content-profile'], 'oa_hidden');
  const d = res.json();
  t.ok(d.paths['/secrets'], 'a table the role was granted is still described');
  t.notOk(d.paths['/rpc/peek'], 'a function it cannot reach is not');
  // The schema it may use is unaffected.
  const api = (await s.request('/')).json();
  t.ok(api.paths['/numbers']);
  t.ok(api.paths['/rpc/twice']);
  // And reading the table itself still needs USAGE (PostgreSQL's 42501 → 401 for the anonymous role).
  const read = await s.request('/secrets', { headers: { 'Accept-Profile': 'oa_hidden' } });
  t.equal(read.status, 401);
  t.equal(read.json().code, '42501');
});

t.test('CORS preflight without configured origins: `*` and no credentials (CorsSpec.hs)', async (t) => {
  const s = await server(t);
  const pre = await s.request('/', {
    method: 'OPTIONS',
    headers: { Accept: '*/*', Origin: 'http://example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'Foo,Bar' },
  });
  t.equal(pre.status, 200);
  t.equal(pre.headers['access-control-allow-origin'], '*');
  t.equal(pre.headers['access-control-allow-credentials'], undefined);
  t.equal(pre.headers['access-control-allow-methods'], 'GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD');
  t.equal(pre.headers['access-control-allow-headers'], 'Authorization, Foo, Bar, Accept, Accept-Language, Content-Language');
  t.equal(pre.headers['access-control-max-age'], '86400');
  t.equal(pre.text, '');

  const listed = await server(t, { 'server-cors-allowed-origins': 'http://example.com' });
  const own = await listed.request('/', { method: 'OPTIONS', headers: { Origin: 'http://example.com', 'Access-Control-Request-Method': 'GET' } });
  t.equal(own.headers['access-control-allow-origin'], 'http://example.com', 'a configured origin is echoed');
  t.equal(own.headers['access-control-allow-credentials'], 'true');
});
