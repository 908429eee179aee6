// server-workers (issue 30 item 1): SIGTERM drains every worker, workers that keep exiting make the
// primary give up, a worker that cannot start stops the start, and the workers share a unix socket.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase } from '../helpers/db.js';
import { allowConnections, get, ITEMS, requestsTo, serveWorkers, tempDir, until } from './workers-fixture.js';

t.setTimeout(600_000); // process starts on a busy machine: the lifecycle file took 255 s at load 14

t.test('SIGTERM drains every worker: an in-flight request is answered, then the primary exits 0', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const c = await serveWorkers(t, db);
  const slow = get(`${c.url}/rpc/slow?ms=1500`, 30_000);
  t.ok(await until(async () => (await db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = $1`, [db.name])).length > 0), 'the slow call is running');
  c.child.child.kill('SIGTERM');
  const r = await slow;
  t.equal(r.status, 200, 'the in-flight request was answered');
  t.equal(r.body.trim(), '1500');
  t.equal(await c.child.exited, 0);
  t.match(c.child.output(), /SIGTERM: finishing in-flight requests in 2 workers…\n.*stopped/);
  await t.rejects(get(`${c.url}/items`), 'nothing listens any more');
});

t.test('workers that keep exiting: the primary gives up with a clear message and exit code 1', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(async () => {
    await allowConnections(db, true).catch(() => undefined);
    await db.drop();
  });
  // db-pool-automatic-recovery=false: a worker that loses the database exits 1, and so does each
  // replacement while the database refuses connections.
  const c = await serveWorkers(t, db, { DBREST_DB_POOL_AUTOMATIC_RECOVERY: 'false' });
  await allowConnections(db, false);
  await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [db.name]);
  for (let i = 0; i < 4; i++) await get(`${c.url}/items`).catch(() => undefined);
  t.equal(await c.child.exited, 1);
  t.match(c.child.output(), /workers keep exiting: 5 in a row, each within 10 s of its start; stopping/);
  t.match(c.child.output(), /starting another in 250 ms/);
  t.match(c.child.output(), /starting another in 500 ms/, 'with a growing delay');
});

t.test('a worker that cannot start stops the start: exit 1, nothing left listening', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(async () => {
    await allowConnections(db, true).catch(() => undefined);
    await db.drop();
  });
  await allowConnections(db, false);
  const c = await serveWorkers(t, db, { DBREST_DB_POOL_AUTOMATIC_RECOVERY: 'false' });
  t.equal(await c.child.exited, 1);
  t.match(c.child.output(), /could not start: worker \d+ exited with code 1 while starting/);
  t.notMatch(c.child.output(), /listening on/);
});

t.test('server-workers with server-unix-socket: both workers answer on the one socket', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const dir = tempDir(t);
  const socket = path.join(dir, 'api.sock');
  writeFileSync(socket, 'stale'); // a stale file is replaced by the primary, not by each worker
  const c = await serveWorkers(t, db, { DBREST_SERVER_UNIX_SOCKET: socket });
  t.match(c.child.output(), new RegExp(`listening on unix:${socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(2 workers`));
  const viaSocket = () => new Promise<number>((resolve, reject) => {
    http.get({ socketPath: socket, path: '/items', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
  for (let i = 0; i < 10; i++) t.equal(await viaSocket(), 200);
  t.equal((await requestsTo(c, '/items')).size, 2, 'both workers served through the socket');
});
