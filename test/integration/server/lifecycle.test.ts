// Server shell: plain rows of a table, the schema cache reloads on NOTIFY without a restart,
// /live and /ready on the admin port, and SIGTERM lets in-flight requests finish.
import { spawn } from 'node:child_process';
import t from 'tap';
import { createTestDatabase } from '../../helpers/db.js';
import { httpRequest, startTestServer } from '../../helpers/server.js';
import { freePort } from '../../../src/embedded/postgres.js';

const quickstart = 'examples/quickstart/schema.sql';

t.test('GET /<table> answers the rows of a table, GET / the OpenAPI document', async (t) => {
  const s = await startTestServer(t, { fixtures: [quickstart], config: { 'db-anon-role': 'web_anon' } });
  const res = await s.request('/directors?order=id');
  t.equal(res.status, 200);
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(res.headers['content-range'], '0-3/*');
  t.same(res.json(), [
    { id: 1, name: 'Agnès Varda', born: '1928-05-30' },
    { id: 2, name: 'Akira Kurosawa', born: '1910-03-23' },
    { id: 3, name: 'Céline Sciamma', born: '1978-11-12' },
    { id: 4, name: 'Bong Joon-ho', born: '1969-09-14' },
  ]);
  const root = await s.request('/');
  t.equal(root.status, 200);
  t.equal(root.headers['content-type'], 'application/openapi+json; charset=utf-8');
  const doc = root.json();
  t.equal(doc.swagger, '2.0');
  t.ok(doc.paths['/films'], 'films is listed');
  t.ok(doc.paths['/rpc/search_films'], 'functions are listed');
  t.same(Object.keys(doc.definitions.directors.properties), ['id', 'name', 'born']);
});

t.test('unknown table: 404 DBRST205 with a did-you-mean hint', async (t) => {
  const s = await startTestServer(t, { fixtures: [quickstart], config: { 'db-anon-role': 'web_anon' } });
  const res = await s.request('/film');
  t.equal(res.status, 404);
  t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST205');
  const body = res.json();
  t.equal(body.code, 'DBRST205');
  t.match(body.hint, /films/);
});

t.test('NOTIFY dbrest, reload schema: a new table is served without a restart', async (t) => {
  const s = await startTestServer(t, { fixtures: [quickstart], config: { 'db-anon-role': 'web_anon' } });
  t.equal((await s.request('/studios')).status, 404);
  await s.db.query(`CREATE TABLE studios (id int primary key, name text); INSERT INTO studios VALUES (1, 'Ghibli');
    GRANT SELECT ON studios TO web_anon; NOTIFY dbrest, 'reload schema'`);
  let res = await s.request('/studios');
  for (let i = 0; i < 50 && res.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 100));
    res = await s.request('/studios');
  }
  t.equal(res.status, 200);
  t.same(res.json(), [{ id: 1, name: 'Ghibli' }]);
});

t.test('reloadSchemaCache (what SIGUSR1 calls) keeps serving while it rebuilds', async (t) => {
  const s = await startTestServer(t, { fixtures: [quickstart], config: { 'db-anon-role': 'web_anon', 'db-channel-enabled': 'false' } });
  await s.db.query(`CREATE TABLE genres (id int primary key); GRANT SELECT ON genres TO web_anon`);
  const during = Promise.all([s.server.reloadSchemaCache(), s.request('/films?select=id&limit=1'), s.request('/films?select=id&limit=1')]);
  const [, a, b] = await during;
  t.equal(a.status, 200);
  t.equal(b.status, 200);
  t.equal((await s.request('/genres')).status, 200);
});

t.test('admin port: /live and /ready', async (t) => {
  const port = await freePort();
  const s = await startTestServer(t, { fixtures: [quickstart], config: { 'db-anon-role': 'web_anon', 'admin-server-port': String(port) } });
  t.equal((await httpRequest(`http://127.0.0.1:${port}/live`)).status, 200);
  t.equal((await httpRequest(`http://127.0.0.1:${port}/ready`)).status, 200);
  t.equal((await httpRequest(`http://127.0.0.1:${port}/nope`)).status, 404);
  t.ok(s.url);
});

t.test('dbrest serve: prints the URL; SIGTERM finishes an in-flight request, then exits 0', async (t) => {
  const db = await createTestDatabase([quickstart, `CREATE VIEW slow AS SELECT pg_sleep(1)::text AS slept; GRANT SELECT ON slow TO web_anon`]);
  t.teardown(() => db.drop());
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/dbrest.js', 'serve'], {
    env: { ...process.env, NO_COLOR: '1', DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: 'web_anon', DBREST_SERVER_PORT: String(port), DBREST_SERVER_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  // A generous bound for a start on a busy machine (the start itself takes well under a second).
  for (let i = 0; i < 600 && !output.includes('listening on'); i++) await new Promise((r) => setTimeout(r, 100));
  t.match(output, `listening on http://127.0.0.1:${port}`);

  const slow = httpRequest(`http://127.0.0.1:${port}/slow`);
  await new Promise((r) => setTimeout(r, 200));
  child.kill('SIGTERM');
  const res = await slow;
  t.equal(res.status, 200, 'the in-flight request completes');
  t.same(res.json(), [{ slept: '' }]);
  t.equal(await exited, 0);
  await t.rejects(httpRequest(`http://127.0.0.1:${port}/films`), 'no longer accepting connections');
});


t.test('server-unix-socket: the API answers on a socket file with the configured mode', async (t) => {
  const { mkdtempSync, rmSync, statSync } = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { Client } = await import('undici');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-sock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const socketPath = path.join(dir, 'dbrest.sock');
  const s = await startTestServer(t, { fixtures: [quickstart], config: { 'db-anon-role': 'web_anon', 'server-unix-socket': socketPath, 'server-unix-socket-mode': '600' } });
  t.equal(s.server.url, `unix:${socketPath}`);
  t.equal(statSync(socketPath).mode & 0o777, 0o600);
  const client = new Client('http://localhost', { socketPath });
  t.teardown(() => client.close());
  const res = await client.request({ path: '/directors?select=name&id=eq.1', method: 'GET' });
  t.equal(res.statusCode, 200);
  t.same(await res.body.json(), [{ name: 'Agnès Varda' }]);
});

t.test('response.headers may repeat a name: both Set-Cookie values reach the client', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [quickstart, `CREATE VIEW cookies AS SELECT set_config('response.headers', '[{"Set-Cookie": "a=1; Path=/"}, {"Set-Cookie": "b=2; Path=/"}, {"content-type": "application/json"}]', true) AS x;
      GRANT SELECT ON cookies TO web_anon;`],
    config: { 'db-anon-role': 'web_anon' },
  });
  const { request } = await import('undici');
  const res = await request(`${s.url}/cookies`);
  await res.body.text();
  t.equal(res.statusCode, 200);
  t.same(res.headers['set-cookie'], ['a=1; Path=/', 'b=2; Path=/']);
  t.equal(res.headers['content-type'], 'application/json', 'a name SQL sets replaces ours, whatever its case');
});
