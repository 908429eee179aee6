// examples/cms/dbrest.config.json serves the example against any database (its README's way): the
// file names the schema, the anonymous role and the routes file; only the database URI comes from
// outside. Also: the example needs no CMS code in src/.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../src/config/load.js';
import { startServer } from '../../../src/http/start.js';
import { createLogger } from '../../../src/observe/log.js';
import { createTestDatabase } from '../../helpers/db.js';
import { httpRequest, startTestServer } from '../../helpers/server.js';
import { readFileSync } from 'node:fs';
import { BASE, EXAMPLE_DIR, exampleSql, login } from './cms-server.js';

t.test('dbrest.config.json serves the example', async (t) => {
  const db = await createTestDatabase(exampleSql());
  t.teardown(() => db.drop());
  const loaded = await loadConfig({
    file: path.join(EXAMPLE_DIR, 'dbrest.config.json'),
    cwd: EXAMPLE_DIR,
    env: { DBREST_DB_URI: db.uri, DBREST_SERVER_PORT: '0', DBREST_SERVER_HOST: '127.0.0.1', DBREST_LOG_LEVEL: 'crit' },
    flags: {},
  });
  t.same(loaded.problems, [], 'no configuration problem');
  const server = await startServer(loaded.config, db.uri, createLogger(loaded.config.logLevel));
  t.teardown(() => server.close());
  const login = await httpRequest(`${server.url}${BASE}/user/sessions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
    body: '<SessionInput><login>admin</login><password>Lumen-Admin-2024</password></SessionInput>',
  });
  t.equal(login.status, 201);
  const cookie = /CMSSESSID=[^;]+/.exec(login.headers['set-cookie'] ?? '')![0];
  const list = await httpRequest(`${server.url}${BASE}/bookmark`, { headers: { Cookie: cookie } });
  t.equal(list.status, 200);
  t.equal(list.json().BookmarkList.count, 4);
  t.equal((await httpRequest(`${server.url}${BASE}/nope`)).json().ErrorMessage.errorCode, 404);
  // The document says what the session POST takes: JSON or XML, which reach its text argument as
  // any Content-Type does (it was documented as text/plain only).
  const doc = (await httpRequest(`${server.url}/`)).json();
  t.strictSame(doc.paths[`${BASE}/user/sessions`].post.consumes, ['*/*']);
});

t.test('pgcrypto in another schema (as on Supabase): the example still loads and logs in', async (t) => {
  const db = await createTestDatabase(['CREATE SCHEMA extensions; CREATE EXTENSION pgcrypto WITH SCHEMA extensions;', ...exampleSql()]);
  t.teardown(() => db.drop());
  t.same(await db.query("SELECT extnamespace::regnamespace::text AS s FROM pg_extension WHERE extname = 'pgcrypto'"), [{ s: 'extensions' }]);
  const server = await startTestServer(t, { db, config: { 'db-anon-role': 'web_anon', routes: readFileSync(path.join(EXAMPLE_DIR, 'routes.json'), 'utf8') } });
  const session = await login(server, 'editor');
  t.equal((await httpRequest(`${server.url}${BASE}/user/sessions/current`, { headers: { Cookie: session.cookie } })).status, 200);
});

t.test('no CMS-specific code in src/', async (t) => {
  let found = '';
  try {
    found = execFileSync('grep', ['-riEnI', 'cms|bookmark', path.resolve(process.cwd(), 'src')], { encoding: 'utf8' });
  } catch {
    found = '';
  }
  // Only code counts: a comment may name the CMS prefix as an example (src/config/types.ts does).
  const code = found.split('\n').filter((line) => line !== '' && !/^[^:]+:\d+:\s*(\/\/|\/?\*)/.test(line));
  t.same(code, [], 'grep -riE "cms|bookmark" src/ finds no code');
});
