// The config keys that were once accepted and inert (issue 32): each does what its doc says, or is
// refused. log-query, db-config, db-pre-config, server-reuseport, admin-server-unix-socket(-mode),
// db-pool-automatic-recovery = false; through `dbrest serve` or the in-process server.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { reusePortUnsupported } from '../../src/config/validate.js';
import { freePort } from '../../src/embedded/postgres.js';
import { clusterUri, createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { httpRequest, startTestServer } from '../helpers/server.js';
import { runCommand, spawnServe, type ServeChild } from '../helpers/spawn-serve.js';

const ITEMS = `
  CREATE TABLE public.items (id int PRIMARY KEY);
  INSERT INTO public.items SELECT generate_series(1, 8);`;

const superuser = () => decodeURIComponent(new URL(clusterUri()).username);

function tempDir(t: Test): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'dbrest-keys-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** `dbrest serve` against a test database (not the embedded one), env-configured. */
async function serve(t: Test, db: TestDatabase, env: Record<string, string> = {}): Promise<{ child: ServeChild; url: string }> {
  const port = await freePort();
  const child = await spawnServe(tempDir(t), port, {
    DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: superuser(), DBREST_SERVER_HOST: '127.0.0.1', ...env,
  });
  t.teardown(async () => {
    if (child.child.exitCode === null) {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function until(what: () => Promise<boolean> | boolean, tries = 200): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await what()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

t.test('log-query: the SQL of each request is logged, also as PostgREST 13 spells it', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  for (const [value, level] of [['true', 'info'], ['main-query', 'debug'], ['main-query', 'error']] as const) {
    const { child, url } = await serve(t, db, { DBREST_LOG_QUERY: value, DBREST_LOG_LEVEL: level });
    const r = await httpRequest(`${url}/items?id=eq.3&select=id`);
    t.equal(r.status, 200);
    t.ok(await until(() => /query: .*FROM "public"\."items".*-- params: \["3",/.test(child.output())),
      `log-query=${value} at ${level}: the statement and its parameters are logged`);
  }
  const { child, url } = await serve(t, db, { DBREST_LOG_LEVEL: 'debug' });
  t.equal((await httpRequest(`${url}/items?id=eq.3`)).status, 200);
  child.child.kill('SIGTERM');
  await child.exited;
  t.notMatch(child.output(), /query: /, 'off by default');
});

t.test('db-config: the authenticator\'s pgrst.* settings apply at start and on SIGUSR2', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const role = `"${superuser().replace(/"/g, '""')}"`;
  await db.query(`ALTER ROLE ${role} IN DATABASE ${db.name} SET pgrst.db_max_rows = '2'`);
  const { child, url } = await serve(t, db);
  t.equal((await httpRequest(`${url}/items`)).json().length, 2, 'db_max_rows from the database at start');

  await db.query(`ALTER ROLE ${role} IN DATABASE ${db.name} SET pgrst.db_max_rows = '5'`);
  child.child.kill('SIGUSR2');
  t.ok(await until(async () => (await httpRequest(`${url}/items`)).json().length === 5), 'SIGUSR2 reads it again');

  const off = await serve(t, db, { DBREST_DB_CONFIG: 'false' });
  t.equal((await httpRequest(`${off.url}/items`)).json().length, 8, 'db-config=false ignores the database');

  const env = await serve(t, db, { DBREST_DB_MAX_ROWS: '7' });
  t.equal((await httpRequest(`${env.url}/items`)).json().length, 5, 'the database overrides the environment, as in PostgREST');
});

t.test('db-pre-config: a function\'s set_config(\'pgrst.*\') settings apply', async (t) => {
  const db = await createTestDatabase([ITEMS, `
    CREATE FUNCTION public.pre_config() RETURNS void LANGUAGE sql AS $$
      SELECT set_config('pgrst.server_trace_header', 'X-Trace', true);
      SELECT set_config('pgrst.db_max_rows', '3', true);
    $$;`]);
  t.teardown(() => db.drop());
  const { url } = await serve(t, db, { DBREST_DB_PRE_CONFIG: 'public.pre_config' });
  const r = await httpRequest(`${url}/items`, { headers: { 'X-Trace': 'abc' } });
  t.equal(r.headers['x-trace'], 'abc', 'server-trace-header from the pre-config function');
  t.equal(r.json().length, 3);
  // check-config shows what serve takes from the database, and says where it comes from.
  const dir = tempDir(t);
  writeFileSync(path.join(dir, 'dbrest.json'), JSON.stringify({ 'db-uri': db.uri, 'db-pre-config': 'public.pre_config' }));
  const check = await runCommand(dir, ['check-config', 'dbrest.json']);
  t.equal(check.code, 0, check.stderr);
  t.match(check.stdout, /^server-trace-header = "X-Trace" +\(in the database \(db-config, db-pre-config public\.pre_config\)\)$/m);
  t.match(check.stdout, /^db-max-rows = 3 +\(in the database/m);
  // Role settings beat the function's (PostgREST's order).
  const role = `"${superuser().replace(/"/g, '""')}"`;
  await db.query(`ALTER ROLE ${role} IN DATABASE ${db.name} SET pgrst.db_max_rows = '4'`);
  const second = await serve(t, db, { DBREST_DB_PRE_CONFIG: 'public.pre_config' });
  t.equal((await httpRequest(`${second.url}/items`)).json().length, 4);
});

t.test('server-reuseport: refused where Node cannot set SO_REUSEPORT, shared where it can', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const unsupported = reusePortUnsupported(process);
  t.not(reusePortUnsupported({ version: 'v20.18.0', platform: 'linux' }), null, 'Node 20: refused');
  t.equal(reusePortUnsupported({ version: 'v22.12.0', platform: 'linux' }), null, 'Node 22.12 on Linux: works');
  t.equal(reusePortUnsupported({ version: 'v23.1.0', platform: 'linux' }), null);
  t.not(reusePortUnsupported({ version: 'v24.0.0', platform: 'darwin' }), null, 'macOS: refused');
  const first = await serve(t, db, { DBREST_SERVER_REUSEPORT: 'true' });
  if (unsupported !== null) {
    t.equal(await first.child.exited, 1, `serve exits 1 on ${process.version}`);
    t.match(first.child.output(), /server-reuseport: needs Node 22\.12 or 23\.1/);
    return;
  }
  const port = new URL(first.url).port;
  const second = await spawnServe(tempDir(t), Number(port), {
    DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: superuser(), DBREST_SERVER_HOST: '127.0.0.1', DBREST_SERVER_REUSEPORT: 'true',
  });
  t.teardown(() => void second.child.kill('SIGTERM'));
  t.match(second.output(), /listening on/, 'a second instance shares the port');
  first.child.child.kill('SIGTERM');
  await first.child.exited;
  t.equal((await httpRequest(`${first.url}/items`)).status, 200, 'and answers once the first is gone');
});

function getUnix(socketPath: string, urlPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get({ socketPath, path: urlPath }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

t.test('admin-server-unix-socket: the admin server listens there, with its mode, before any port', async (t) => {
  const dir = tempDir(t);
  const socket = path.join(dir, 'admin.sock');
  const srv = await startTestServer(t, {
    fixtures: [ITEMS],
    config: { 'admin-server-unix-socket': socket, 'admin-server-unix-socket-mode': '600', 'admin-server-port': '0' },
  });
  t.equal(srv.server.adminUrl, `unix:${socket}`);
  t.equal(await getUnix(socket, '/live'), 200);
  t.equal(await getUnix(socket, '/ready'), 200);
  t.equal(statSync(socket).mode & 0o777, 0o600, 'admin-server-unix-socket-mode');
});

t.test('db-pool-automatic-recovery = false: no database at start, serve exits 1', async (t) => {
  const port = await freePort(); // nothing listens there
  const child = await spawnServe(tempDir(t), await freePort(), {
    DBREST_DB_URI: `postgres://nobody@127.0.0.1:${port}/nothing`, DBREST_DB_POOL_AUTOMATIC_RECOVERY: 'false',
  });
  t.equal(await child.exited, 1);
  t.match(child.output(), /db-pool-automatic-recovery is false/);
});

t.test('db-pool-automatic-recovery = false: the database gone while serving, the server stops', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  const srv = await startTestServer(t, { db, config: { 'db-anon-role': superuser(), 'db-pool-automatic-recovery': 'false' } });
  t.teardown(() => db.drop());
  t.equal((await srv.request('/items')).status, 200);
  // startTestServer has no onGiveUp: closing is what is seen in-process; serve then exits 1.
  await db.drop();
  await srv.request('/items').catch(() => null); // finds its connection gone
  t.ok(await until(async () => (await srv.request('/items').then(() => false, () => true))), 'the server stopped listening');
});
