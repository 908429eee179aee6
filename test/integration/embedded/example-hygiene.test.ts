// The bundled examples as the embedded default serves them (issue #26, finding 11): every example's SQL
// loaded in bootstrap's order, served from `public` as web_anon with every example's routes mounted.
// pgcrypto is in a schema no API exposes, so its functions are neither callable (404) nor in the
// OpenAPI document; every SECURITY DEFINER function is owned by a role that is no superuser, and pins
// its search_path.
import t from 'tap';
import { listExamples } from '../../../src/embedded/examples.js';
import { EMBEDDED_ANON_ROLE } from '../../../src/embedded/bootstrap.js';
import { createTestDatabase, nologinRolesSql } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

// Calls that reach pgcrypto when it is in an exposed schema (the control test below shows they do):
// a single unnamed text or bytea parameter takes the raw body.
const PGCRYPTO_CALLS: ReadonlyArray<[string, string, string]> = [
  ['/rpc/gen_salt', 'text/plain', 'bf'],
  ['/rpc/armor', 'application/octet-stream', 'x'],
  ['/rpc/crypt', 'application/json', '{}'],
];

t.test('control: with pgcrypto in public, as before, these calls reach it', async (t) => {
  const db = await createTestDatabase([
    nologinRolesSql('web_anon'),
    'CREATE EXTENSION pgcrypto SCHEMA public; GRANT USAGE ON SCHEMA public TO web_anon;',
  ]);
  t.teardown(() => db.drop());
  const s = await startTestServer(t, { db, config: { 'db-anon-role': EMBEDDED_ANON_ROLE } });
  const [salt, armor] = PGCRYPTO_CALLS;
  t.equal((await s.request(salt![0], { method: 'POST', headers: { 'Content-Type': salt![1] }, body: salt![2] })).status, 200, 'gen_salt answers');
  t.equal((await s.request(armor![0], { method: 'POST', headers: { 'Content-Type': armor![1] }, body: armor![2] })).status, 200, 'armor answers');
  t.ok((await s.request('/')).json().paths['/rpc/gen_salt'], 'and is listed');
});

t.test('the examples in the embedded default: no extension functions exposed, no superuser-owned definers', async (t) => {
  const examples = listExamples();
  const db = await createTestDatabase(examples.flatMap((e) => e.sqlFiles));
  t.teardown(() => db.drop());
  const routes = examples.flatMap((e) => (e.routes === null ? [] : Array.isArray(e.routes) ? e.routes : [e.routes]));
  const s = await startTestServer(t, { db, config: { 'db-anon-role': EMBEDDED_ANON_ROLE, routes: JSON.stringify(routes) } });

  t.test('pgcrypto is installed outside the exposed schema', async (t) => {
    t.same(await db.query("SELECT extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname = 'pgcrypto'"), [{ schema: 'extensions' }]);
    t.notOk(s.config.dbSchemas.includes('extensions'), 'extensions is not served');
  });

  t.test('its functions are not callable anonymously: 404, function not found', async (t) => {
    for (const [path, contentType, body] of PGCRYPTO_CALLS) {
      const res = await s.request(path, { method: 'POST', headers: { 'Content-Type': contentType }, body });
      t.equal(res.status, 404, `POST ${path} (${contentType})`);
      t.equal(res.json().code, 'DBRST202', 'function not found');
    }
  });

  t.test('nor listed in the OpenAPI document', async (t) => {
    const doc = (await s.request('/')).json();
    const paths = Object.keys(doc.paths);
    t.ok(paths.includes('/rpc/search_films'), 'the quickstart functions are listed');
    const pgcrypto = await db.query<{ proname: string }>(
      "SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e' JOIN pg_extension e ON e.oid = d.refobjid WHERE e.extname = 'pgcrypto'");
    t.ok(['gen_salt', 'armor', 'crypt', 'digest'].every((n) => pgcrypto.some((f) => f.proname === n)), `pgcrypto's ${pgcrypto.length} functions`);
    t.same(paths.filter((p) => pgcrypto.some((f) => p === `/rpc/${f.proname}`)), [], 'none of them');
  });

  t.test('SECURITY DEFINER functions: owned by a non-superuser, with a pinned search_path', async (t) => {
    const definers = await db.query<{ fn: string; schema: string; owner: string; superuser: boolean; config: string[] | null }>(`
      SELECT p.oid::regprocedure::text AS fn, n.nspname AS schema, r.rolname AS owner, r.rolsuper AS superuser, p.proconfig AS config
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_roles r ON r.oid = p.proowner
      WHERE p.prosecdef AND n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`);
    t.ok(definers.some((d) => d.fn.startsWith('cms.session_create(')), 'the CMS log-in is one of them');
    t.ok(definers.some((d) => d.schema === 'content'), 'and the content endpoints');
    for (const d of definers) {
      t.notOk(d.superuser, `${d.fn} is owned by ${d.owner}`);
      t.ok((d.config ?? []).some((c) => c.startsWith('search_path=')), `${d.fn} pins its search_path (${JSON.stringify(d.config)})`);
    }
    const [owner] = await db.query<{ rolcanlogin: boolean; rolsuper: boolean }>("SELECT rolcanlogin, rolsuper FROM pg_roles WHERE rolname = 'cms_owner'");
    t.same(owner, { rolcanlogin: false, rolsuper: false }, 'cms_owner cannot log in and is no superuser');
  });

  t.test('the CMS still works through its owner role', async (t) => {
    const res = await s.request('/api/cms/v2/user/sessions', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ SessionInput: { login: 'admin', password: 'Lumen-Admin-2024' } }),
    });
    t.equal(res.status, 201);
    const cookie = /CMSSESSID=[^;]+/.exec(res.headers['set-cookie'] ?? '')![0];
    const csrf = res.json().Session.csrfToken;
    const add = await s.request('/api/cms/v2/bookmark/66', { method: 'POST', headers: { Cookie: cookie, 'X-CSRF-Token': csrf } });
    t.equal(add.status, 201, 'a bookmark is written');
    t.equal((await s.request('/api/cms/v2/bookmark/66', { method: 'DELETE', headers: { Cookie: cookie, 'X-CSRF-Token': csrf } })).status, 204);
  });
});
