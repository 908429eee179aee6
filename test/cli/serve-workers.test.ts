// server-workers (issue 30 item 1): two workers answer, /ready and the admin routes, a killed worker
// is replaced, and every reload reaches both. Lifecycle (drain, crash loop, sockets, embedded) is in
// serve-workers-lifecycle.test.ts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { clusterUri, createTestDatabase } from '../helpers/db.js';
import { findPgBouncer, startPgBouncer } from '../helpers/pgbouncer.js';
import { allowConnections, get, ITEMS, perWorker, requestsTo, serveWorkers, superuser, until } from './workers-fixture.js';

t.setTimeout(600_000);

t.test('server-workers 2: two processes answer, the start-up line says so, /ready and /config come from the workers', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const c = await serveWorkers(t, db);
  t.match(c.child.output(), /listening on http:\/\/127\.0\.0\.1:\d+ \(2 workers, ready in \d+ ms\)/);
  t.equal(c.child.output().match(/listening on/g)?.length, 1, 'one start-up line, from the primary');
  for (let i = 0; i < 20; i++) t.equal((await get(`${c.url}/items?id=eq.1`)).status, 200);
  const counts = await requestsTo(c, '/items');
  t.equal(counts.size, 2, 'two worker pids counted requests');
  t.equal([...counts.values()].reduce((a, b) => a + b, 0), 20, 'every request counted once');
  t.ok([...counts.values()].every((n) => n > 0));
  t.notOk(counts.has(String(c.child.child.pid)), 'the primary serves no request itself');
  t.equal((await get(`${c.admin}/live`)).status, 200);
  t.equal((await get(`${c.admin}/ready`)).status, 200);
  t.match((await get(`${c.admin}/config`)).body, /^server-workers = 2 +\(env DBREST_SERVER_WORKERS\)$/m, '/config is a worker\'s');
  t.match((await get(`${c.admin}/schema_cache`)).body, /"items"/);
  t.equal((await get(`${c.admin}/nope`)).status, 404);
  t.match((await get(`${c.admin}/metrics`)).body, /^dbrest_workers 2$/m);
});

t.test('/ready is 503 while the workers cannot reach the database, 200 once they can', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(async () => {
    await allowConnections(db, true).catch(() => undefined);
    await db.drop();
  });
  const c = await serveWorkers(t, db);
  t.equal((await get(`${c.admin}/ready`)).status, 200);
  await allowConnections(db, false);
  await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [db.name]);
  // Requests make each worker notice; /ready asks both.
  t.ok(await until(async () => {
    await get(`${c.url}/items`).catch(() => undefined);
    await get(`${c.url}/items`).catch(() => undefined);
    return (await get(`${c.admin}/ready`)).status === 503;
  }), '/ready 503 without the database');
  await allowConnections(db, true);
  t.ok(await until(async () => (await get(`${c.admin}/ready`)).status === 200), '/ready 200 once both recovered');
  const statuses = await Promise.all(Array.from({ length: 10 }, () => get(`${c.url}/items`).then((r) => r.status)));
  t.same(statuses, Array(10).fill(200));
  // The outage leaked no connection: once the requests are answered, every pooled one is idle again.
  const busy = async () => {
    const [held, idle] = await Promise.all([perWorker(c, 'dbrest_db_pool_connections'), perWorker(c, 'dbrest_db_pool_idle_connections')]);
    return [...held].map(([pid, n]) => `${pid}: ${n - (idle.get(pid) ?? 0)}`);
  };
  t.ok(await until(async () => (await busy()).every((w) => w.endsWith(': 0'))), `no connection left checked out (${(await busy()).join(', ')})`);
});

t.test('a killed worker loses at most its in-flight requests and is replaced', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const c = await serveWorkers(t, db);
  for (let i = 0; i < 4; i++) await get(`${c.url}/items?id=eq.1`);
  const before = [...(await requestsTo(c, '/items')).keys()];
  t.equal(before.length, 2);
  const victim = Number(before[0]);

  // Four clients, one request in flight each, on fresh connections, while the worker is killed.
  let ok = 0;
  let failed = 0;
  let running = true;
  const client = async () => {
    while (running) {
      try {
        const r = await get(`${c.url}/items?id=eq.2`);
        if (r.status === 200) ok++;
        else failed++;
      } catch {
        failed++;
      }
    }
  };
  const clients = Array.from({ length: 4 }, client);
  await until(() => ok >= 20);
  process.kill(victim, 'SIGKILL');
  t.ok(await until(async () => {
    const pids = [...(await requestsTo(c, '/items')).keys()];
    return pids.length === 2 && !pids.includes(String(victim));
  }), 'a new worker serves in its place');
  const afterReplacement = ok;
  await until(() => ok >= afterReplacement + 20);
  running = false;
  await Promise.all(clients);
  t.ok(failed <= 4, `at most the 4 in-flight requests failed (${failed} did, ${ok} answered 200)`);
  t.match(c.child.output(), new RegExp(`worker ${victim} exited with signal SIGKILL; starting another in \\d+ ms`));
  t.match((await get(`${c.admin}/metrics`)).body, /^dbrest_worker_restarts_total 1$/m);
  const statuses = await Promise.all(Array.from({ length: 10 }, () => get(`${c.url}/items`).then((r) => r.status)));
  t.same(statuses, Array(10).fill(200), 'all answered after the replacement');
});

t.test('reloads reach every worker: NOTIFY reload schema, SIGUSR1, SIGUSR2 and NOTIFY reload config', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const c = await serveWorkers(t, db, {}, { 'db-max-rows': 8 });
  const loads = async () => [...(await perWorker(c, 'dbrest_schema_cache_loads_total')).values()];
  /** Every worker loaded its cache `n` times (the first load and n-1 reloads). */
  const loadedTimes = async (n: number) => until(async () => {
    const l = await loads();
    return l.length === 2 && l.every((x) => x >= n);
  });
  const all200 = async (p: string) => (await Promise.all(Array.from({ length: 20 }, () => get(`${c.url}${p}`)))).every((r) => r.status === 200);

  await db.query('CREATE TABLE public.fresh (id int); NOTIFY dbrest, \'reload schema\'');
  t.ok(await loadedTimes(2), 'one NOTIFY: both workers reloaded');
  t.ok(await all200('/fresh'), 'and every request sees the new table');

  await db.query('CREATE TABLE public.fresher (id int)');
  c.child.child.kill('SIGUSR1');
  t.ok(await loadedTimes(3), 'SIGUSR1 on the primary: both workers reloaded');
  t.ok(await all200('/fresher'));
  t.match(c.child.output(), /SIGUSR1: reloading the schema cache in 2 workers/);

  const rows = async () => (await Promise.all(Array.from({ length: 20 }, () => get(`${c.url}/items`)))).map((r) => JSON.parse(r.body).length as number);
  t.same(new Set(await rows()), new Set([8]));
  writeFileSync(path.join(c.dir, 'dbrest.config.json'), JSON.stringify({ 'db-max-rows': 3 }));
  c.child.child.kill('SIGUSR2');
  t.ok(await until(async () => (await rows()).every((n) => n === 3)), 'SIGUSR2: twenty requests in a row answer with the new db-max-rows');
  const served = await requestsTo(c, '/items');
  t.equal(served.size, 2, 'and they were spread over both workers');

  const role = `"${superuser().replace(/"/g, '""')}"`;
  await db.query(`ALTER ROLE ${role} IN DATABASE ${db.name} SET pgrst.db_max_rows = '5'`);
  t.teardown(() => db.query(`ALTER ROLE ${role} IN DATABASE ${db.name} RESET pgrst.db_max_rows`).catch(() => undefined));
  await db.query('NOTIFY dbrest, \'reload config\'');
  t.ok(await until(async () => (await rows()).every((n) => n === 5)), 'one NOTIFY reload config: every worker reads the database\'s setting');
});

const pgbouncer = findPgBouncer();
t.test('start-up pooler warnings through PgBouncer are printed once, not once per worker', { skip: 'skip' in pgbouncer ? pgbouncer.skip : false }, async (t) => {
  const found = pgbouncer as { bin: string };
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const pgb = await startPgBouncer(found.bin, clusterUri(), { poolMode: 'transaction' });
  t.teardown(() => pgb.stop());
  // db-prepared-statements on and LISTEN on db-uri: both warnings apply, in every worker alike.
  const c = await serveWorkers(t, db, {
    DBREST_DB_URI: pgb.through(db.uri), DBREST_DB_PREPARED_STATEMENTS: 'true', DBREST_DB_CHANNEL_ENABLED: 'true', DBREST_LOG_LEVEL: 'warn',
  });
  // The start-up line comes once every worker serves, so each has passed its start-up checks.
  t.match(c.child.output(), /listening on .*\(2 workers/);
  const count = (re: RegExp) => c.child.output().split('\n').filter((l) => re.test(l)).length;
  t.equal(count(/db-prepared-statements is on but db-uri goes through a connection pooler/), 1, 'one prepared-statements warning');
  t.equal(count(/LISTEN dbrest goes through a connection pooler/), 1, 'one LISTEN warning');
  t.equal(count(/listening on/), 1, 'and one start-up line');
});

// A pool of one server connection: each worker's catalog helper can never join its main connection's
// snapshot, so every load goes on without it; a helper left queued in PgBouncer took the connection
// once a load's transaction ended and kept it, and both workers waited for it for ever, silently.
t.test('two workers start through a PgBouncer pool of one server connection', { skip: 'skip' in pgbouncer ? pgbouncer.skip : false }, async (t) => {
  const found = pgbouncer as { bin: string };
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const pgb = await startPgBouncer(found.bin, clusterUri(), { poolMode: 'transaction', defaultPoolSize: 1 });
  t.teardown(() => pgb.stop());
  const c = await serveWorkers(t, db, { DBREST_DB_URI: pgb.through(db.uri) });
  if (!t.match(c.child.output(), /listening on .*\(2 workers/, `started (output: ${c.child.output().slice(-500)})`)) return;
  const statuses = await Promise.all(Array.from({ length: 6 }, () => get(`${c.url}/items?id=eq.1`).then((r) => r.status, () => 0)));
  t.same(statuses, Array(6).fill(200), 'and both answer');
  t.equal((await requestsTo(c, '/items')).size, 2, 'two worker pids counted requests');
});
