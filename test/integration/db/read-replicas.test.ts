// Read replicas (db-read-uris) against a real physical streaming replica (test/helpers/replica.ts)
// of a PostgreSQL cluster of the test's own. Where a request ran is read from the server itself:
// the pre-request function sets `X-Standby: <pg_is_in_recovery()>` on every answer, and the view and
// functions return pg_is_in_recovery() — true only on the standby. The standby's pg_stat_database
// counts the transactions that ran there.
import t, { type Test } from 'tap';
import pg from 'pg';
import { freePort } from '../../../src/embedded/postgres.js';
import { startServer, type RunningServer } from '../../../src/http/start.js';
import { createLogger } from '../../../src/observe/log.js';
import { httpRequest, testConfig, type RequestOptions, type TestResponse } from '../../helpers/server.js';
import { startReplica, type TestReplica } from '../../helpers/replica.js';
import { startOwnDatabase, sleep } from '../resilience/helpers.js';

const FIXTURE = `
CREATE ROLE replica_anon NOLOGIN;
CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL);
INSERT INTO items (name) SELECT 'item ' || n FROM generate_series(1, 10) n;
CREATE VIEW server_side AS SELECT pg_catalog.pg_is_in_recovery() AS standby;
CREATE FUNCTION on_standby_stable() RETURNS boolean STABLE LANGUAGE sql AS 'SELECT pg_catalog.pg_is_in_recovery()';
CREATE FUNCTION on_standby_immutable() RETURNS boolean IMMUTABLE LANGUAGE sql AS 'SELECT pg_catalog.pg_is_in_recovery()';
CREATE FUNCTION on_standby_volatile() RETURNS boolean VOLATILE LANGUAGE sql AS 'SELECT pg_catalog.pg_is_in_recovery()';
CREATE FUNCTION rows_stable() RETURNS TABLE (n int, standby boolean) STABLE LANGUAGE sql
  AS 'SELECT n, pg_catalog.pg_is_in_recovery() FROM generate_series(1, 10) n';
CREATE FUNCTION rows_volatile() RETURNS TABLE (n int, standby boolean) VOLATILE LANGUAGE sql
  AS 'SELECT n, pg_catalog.pg_is_in_recovery() FROM generate_series(1, 10) n';
CREATE FUNCTION pre() RETURNS void LANGUAGE sql AS $$
  SELECT set_config('response.headers', json_build_array(json_build_object('X-Standby', pg_catalog.pg_is_in_recovery()::text))::text, true)
$$;
GRANT USAGE ON SCHEMA public TO replica_anon;
GRANT SELECT, INSERT, UPDATE ON items TO replica_anon;
GRANT USAGE ON SEQUENCE items_id_seq TO replica_anon;
GRANT SELECT ON server_side TO replica_anon;
`;

const db = await startOwnDatabase(t, 'replicas', []);
{
  const c = new pg.Client({ connectionString: db.uri });
  await c.connect();
  await c.query(FIXTURE);
  await c.end();
}
const primaryQuery = async (text: string, values?: unknown[]) => {
  const c = new pg.Client({ connectionString: db.uri });
  await c.connect();
  try {
    return (await c.query(text, values as unknown[])).rows;
  } finally {
    await c.end();
  }
};

const made = await startReplica(db.server.uri);
// Skipped, with the reason, only where no base backup of the cluster can be copied.
const skip = typeof made === 'string' ? { skip: `no streaming replica: ${made}` } : {};
const replica = made as TestReplica;
if (typeof made !== 'string') {
  t.teardown(() => replica.close());
  await replica.caughtUp();
}

async function startDbrest(t: Test, settings: Record<string, string> = {}): Promise<{ server: RunningServer; get(path: string, opts?: RequestOptions): Promise<TestResponse>; logs: string[] }> {
  const logs: string[] = [];
  // A standby that has replayed no commit since it started has an unknown lag and is kept out
  // (db/replicas.ts): one commit (an xid assigned), replayed, before dbrest's start-up check.
  await primaryQuery('SELECT pg_catalog.txid_current()');
  await replica.caughtUp();
  const config = await testConfig(db.uri, {
    'db-anon-role': 'replica_anon',
    'db-pre-request': 'pre',
    'db-read-uris': replica.uri('replicas'),
    'server-stream-threshold': '2',
    'log-level': 'info',
    ...settings,
  });
  const server = await startServer(config, db.uri, createLogger(config.logLevel, (l) => void logs.push(l)));
  t.teardown(() => server.close());
  return { server, logs, get: (path, opts) => httpRequest(server.url + path, opts) };
}

const replicaCommits = async (): Promise<number> =>
  Number((await replica.query('replicas', `SELECT xact_commit FROM pg_stat_database WHERE datname = 'replicas'`))[0]!.xact_commit);

/** Polls until `f` is true; false after `limitMs` (a bound on a hang, not a timing assertion). */
async function eventually(f: () => Promise<boolean>, limitMs = 10_000): Promise<boolean> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await f()) return true;
    await sleep(50);
  }
  return false;
}

/** After a write: the standby has it, and the server's health check has seen the standby since. */
async function settled(server: RunningServer): Promise<void> {
  await replica.caughtUp();
  await server.app.replicas!.check();
}

t.test('reads run on the replica, writes and volatile calls on the primary', skip, async (t) => {
  const { server, get, logs } = await startDbrest(t);
  t.ok(logs.some((l) => /read replicas: 1 of 1 in the rotation/.test(l)), 'the start-up line says the replica is in the rotation');

  const view = await get('/server_side');
  t.equal(view.status, 200);
  t.same(view.json(), [{ standby: true }], 'a view read ran on the standby');

  const before = await replicaCommits();
  for (let i = 0; i < 20; i++) {
    const r = await get('/items?limit=1');
    t.equal(r.status, 200);
    t.equal(r.headers['x-standby'], 'true', `table read ${i}: pre-request ran on the standby`);
  }
  const head = await get('/items', { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.headers['x-standby'], 'true', 'HEAD runs on the standby');
  // The standby's statistics count those transactions (flushed by its backends within a second or so).
  t.ok(await eventually(async () => (await replicaCommits()) - before >= 20), 'the standby\'s pg_stat_database.xact_commit rose by the reads');

  const created = await get('/items', { method: 'POST', body: { name: 'new' }, headers: { Prefer: 'return=representation' } });
  t.equal(created.status, 201, 'a write answers 201 (on a standby it would fail 25006)');
  t.equal(created.headers['x-standby'], 'false', 'the write ran on the primary');
  const id = created.json()[0].id as number;
  const patched = await get(`/items?id=eq.${id}`, { method: 'PATCH', body: { name: 'renamed' }, headers: { Prefer: 'return=representation' } });
  t.equal(patched.status, 200);
  t.equal(patched.headers['x-standby'], 'false');
  t.same(patched.json(), [{ id, name: 'renamed' }]);

  // Read your writes: Prefer: tx=commit asks for the primary.
  const own = await get(`/items?id=eq.${id}`, { headers: { Prefer: 'tx=commit' } });
  t.equal(own.headers['x-standby'], 'false', 'Prefer: tx=commit reads on the primary');
  t.same(own.json(), [{ id, name: 'renamed' }]);

  await settled(server);
  const replicated = await get(`/items?id=eq.${id}`);
  t.equal(replicated.headers['x-standby'], 'true');
  t.same(replicated.json(), [{ id, name: 'renamed' }], 'the write reached the replica');

  for (const method of ['GET', 'POST'] as const) {
    const opts: RequestOptions = method === 'POST' ? { method, body: {} } : { method };
    const stable = await get('/rpc/on_standby_stable', opts);
    t.equal(stable.status, 200);
    t.equal(stable.json(), true, `${method} of a STABLE function runs on the standby`);
    const immutable = await get('/rpc/on_standby_immutable', opts);
    t.equal(immutable.json(), true, `${method} of an IMMUTABLE function runs on the standby`);
    const volatile = await get('/rpc/on_standby_volatile', opts);
    t.equal(volatile.status, 200);
    t.equal(volatile.json(), false, `${method} of a VOLATILE function runs on the primary`);
  }
});

t.test('streamed answers (a cursor) run on the replica, a volatile set-returning call on the primary', skip, async (t) => {
  const { get } = await startDbrest(t);
  const table = await get('/items?order=id');
  t.equal(table.status, 200);
  t.equal(table.headers['content-range'], undefined, 'streamed: no Content-Range');
  t.equal(table.headers['x-standby'], 'true', 'the cursor ran on the standby');
  t.ok((table.json() as unknown[]).length >= 10);

  const stable = await get('/rpc/rows_stable');
  t.equal(stable.headers['content-range'], undefined, 'streamed');
  t.ok((stable.json() as Array<{ standby: boolean }>).every((r) => r.standby), 'a STABLE set-returning call streamed from the standby');
  const volatile = await get('/rpc/rows_volatile');
  t.equal(volatile.status, 200);
  t.ok((volatile.json() as Array<{ standby: boolean }>).every((r) => !r.standby), 'a VOLATILE one from the primary');
});

t.test('a stopped replica is skipped at once and taken back once it answers', skip, async (t) => {
  const { server, get, logs } = await startDbrest(t);
  t.equal((await get('/items?limit=1')).headers['x-standby'], 'true');

  await replica.stop();
  // Every read answers 200 from the primary: the first finds the replica gone and is run again there.
  const statuses: number[] = [];
  const where: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await get('/items?limit=1');
    statuses.push(r.status);
    where.push(r.headers['x-standby'] ?? '');
    await sleep(50);
  }
  t.same(statuses, Array(20).fill(200), 'no 5xx while the replica is down');
  t.same(where, Array(20).fill('false'), 'every read ran on the primary');
  const down = server.app.replicas!.replicas[0]!;
  t.equal(down.healthy, false, 'the replica is out of the rotation');
  t.ok(logs.some((l) => /read replica .* left out of the rotation/.test(l)), 'its leaving is logged');

  await replica.start();
  const back = await eventually(async () => (await get('/items?limit=1')).headers['x-standby'] === 'true');
  t.ok(back, 'reads return to the replica once it answers again');
  t.ok(logs.some((l) => /read replica .* back in the rotation/.test(l)), 'its return is logged');
});

t.test('a replica lagging past db-read-max-lag is skipped until it catches up', skip, async (t) => {
  const { server, get } = await startDbrest(t, { 'db-read-max-lag': '1' });
  await settled(server);
  t.equal((await get('/items?limit=1')).headers['x-standby'], 'true');

  await replica.query('replicas', 'SELECT pg_wal_replay_pause()');
  t.teardown(() => replica.query('replicas', 'SELECT pg_wal_replay_resume()').catch(() => undefined));
  t.ok(await eventually(async () => (await replica.query('replicas', 'SELECT pg_get_wal_replay_pause_state() AS s'))[0]!.s === 'paused'), 'replay paused');
  await primaryQuery(`INSERT INTO items (name) VALUES ('while paused')`);

  const left = await eventually(async () => (await get('/items?limit=1')).headers['x-standby'] === 'false');
  t.ok(left, 'reads leave the lagging replica');
  const seen = await get('/items?name=eq.while%20paused&select=name');
  t.equal(seen.headers['x-standby'], 'false');
  t.same(seen.json(), [{ name: 'while paused' }], 'and see the primary\'s rows');
  t.ok(server.app.replicas!.replicas[0]!.lag! > 1, 'the health check measured the lag');

  await replica.query('replicas', 'SELECT pg_wal_replay_resume()');
  const back = await eventually(async () => (await get('/items?limit=1')).headers['x-standby'] === 'true');
  t.ok(back, 'reads return once the replica has caught up');
});

t.test('without a healthy replica at start, reads go to the primary', skip, async (t) => {
  const { server, get, logs } = await startDbrest(t, { 'db-read-uris': 'postgres://postgres:x@127.0.0.1:1/replicas' });
  t.ok(logs.some((l) => /read replicas: 0 of 1 in the rotation/.test(l)));
  const r = await get('/items?limit=1');
  t.equal(r.status, 200);
  t.equal(r.headers['x-standby'], 'false');
  t.equal(server.app.replicas!.replicas[0]!.healthy, false);
});

/** Value of the sample `name{labels}` in a Prometheus exposition (labels matched exactly), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    if (JSON.stringify(got) === JSON.stringify(labels)) return Number(m[3]);
  }
  return undefined;
}

t.test('metrics: reads per replica and on the primary, the replica\'s health, lag and pool', skip, async (t) => {
  const admin = await freePort();
  const { server, get } = await startDbrest(t, { 'admin-server-port': String(admin) });
  const metrics = async () => (await httpRequest(`http://127.0.0.1:${admin}/metrics`)).text;
  const label = server.app.replicas!.replicas[0]!.label;
  t.equal(label, `127.0.0.1:${replica.port}`, 'a replica is labelled by host:port');
  const before = await metrics();
  t.equal(sample(before, 'dbrest_db_replica_healthy', { replica: label }), 1, 'healthy: 1');
  t.ok(sample(before, 'dbrest_db_replica_lag_seconds', { replica: label })! >= 0, 'its lag is exposed');
  const reads = (text: string, target: string) => sample(text, 'dbrest_db_replica_reads_total', { target }) ?? 0;

  for (let i = 0; i < 6; i++) t.equal((await get('/items?limit=1')).headers['x-standby'], 'true');
  t.equal((await get('/items', { method: 'POST', body: { name: 'counted?' } })).status, 201);
  t.equal((await get('/items?limit=1', { headers: { Prefer: 'tx=commit' } })).headers['x-standby'], 'false');
  const after = await metrics();
  t.equal(reads(after, label) - reads(before, label), 6, 'six reads counted on the replica');
  t.equal(reads(after, 'primary') - reads(before, 'primary'), 0, 'none on the primary: a write and a Prefer: tx=commit read are not replica reads');
  t.ok(sample(after, 'dbrest_db_replica_pool_connections', { replica: label })! >= 1, 'the replica\'s pool holds a connection');
  t.ok(sample(after, 'dbrest_db_replica_pool_idle_connections', { replica: label })! >= 1, 'idle once the reads are done');
  t.equal(sample(after, 'dbrest_db_replica_pool_waiting_requests', { replica: label }), 0);
  const password = decodeURIComponent(new URL(replica.uri('replicas')).password);
  t.notOk(after.includes(password), 'no password in /metrics');

  await replica.stop();
  t.teardown(() => replica.start().catch(() => undefined));
  for (let i = 0; i < 4; i++) t.equal((await get('/items?limit=1')).headers['x-standby'], 'false');
  await server.app.replicas!.check(); // the health check has seen it gone, not only the first read
  const down = await metrics();
  t.equal(reads(down, 'primary') - reads(after, 'primary'), 4, 'with the replica stopped, the four reads counted on the primary');
  t.equal(sample(down, 'dbrest_db_replica_healthy', { replica: label }), 0, 'healthy: 0');
  t.equal(sample(down, 'dbrest_db_replica_lag_seconds', { replica: label }), undefined, 'no lag while it cannot be reached');
  await replica.start();
  t.ok(await eventually(async () => sample(await metrics(), 'dbrest_db_replica_healthy', { replica: label }) === 1), 'healthy: 1 again once it answers');
});
