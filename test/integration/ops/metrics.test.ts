// /metrics on the admin server (issue 29): Prometheus text after known traffic, with requests
// counted by route template (never the raw URL), status class and error code.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { SignJWT } from 'jose';
import t from 'tap';
import { freePort } from '../../../src/embedded/postgres.js';
import { httpRequest, startTestServer } from '../../helpers/server.js';
import { OPS_ROUTES, OPS_SQL } from './fixture.js';

/** Value of the sample `name{labels}` in a Prometheus exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)) got[l[1]!] = l[2]!;
    if (Object.entries(labels).every(([k, v]) => got[k] === v) && Object.keys(got).length === Object.keys(labels).length) return Number(m[3]);
  }
  return undefined;
}

t.test('/metrics counts requests by route template, method, status class and code', async (t) => {
  const admin = await freePort();
  const s = await startTestServer(t, {
    fixtures: [OPS_SQL],
    config: { 'db-anon-role': 'ops_anon', 'admin-server-port': String(admin), routes: OPS_ROUTES },
  });
  const metricsUrl = `http://127.0.0.1:${admin}/metrics`;
  for (let i = 1; i <= 3; i++) t.equal((await s.request(`/items?id=eq.${i}&select=id,name`)).status, 200);
  t.equal((await s.request('/rpc/add_them?a=1&b=2')).status, 200);
  t.equal((await s.request('/things/4')).status, 200);
  t.equal((await s.request('/things/5')).status, 200);
  // A relation the schema cache does not know: 404 under the fixed label, not its name.
  t.equal((await s.request('/secret_table_xyz?id=eq.abc123')).status, 404);
  // A column that does not exist: PostgreSQL's 400 (42703), on the relation's route.
  t.equal((await s.request('/items?select=nope')).status, 400);

  const res = await httpRequest(metricsUrl);
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  const text = res.text;
  const ok = (route: string, method = 'GET') => sample(text, 'dbrest_http_requests_total', { route, method, status_class: '2xx', code: '' });
  t.equal(ok('/items'), 3, 'three reads of /items');
  t.equal(ok('/rpc/add_them'), 1);
  t.equal(ok('/things/:id(int)'), 2, "a mount is counted under its path template");
  t.equal(sample(text, 'dbrest_http_requests_total', { route: '(unmatched)', method: 'GET', status_class: '4xx', code: 'DBRST205' }), 1);
  t.equal(sample(text, 'dbrest_http_requests_total', { route: '/items', method: 'GET', status_class: '4xx', code: '42703' }), 1);
  t.equal(sample(text, 'dbrest_http_request_duration_seconds_count', { route: '/items', method: 'GET', status_class: '2xx', code: '' }), 3);
  // Database time is known for answered requests (a failed one carries no stage timings).
  t.equal(sample(text, 'dbrest_db_request_duration_seconds_count', { route: '/items' }), 3);
  t.equal(sample(text, 'dbrest_db_request_duration_seconds_count', { route: '/things/:id(int)' }), 2);

  // No raw URL reached a label: no query string, no id, no unknown name.
  for (const raw of ['id=eq', 'secret_table_xyz', 'abc123', '/things/4', 'select=']) t.notOk(text.includes(raw), `no "${raw}" in /metrics`);

  // Pool gauges, the schema cache and prom-client's process metrics.
  t.equal(sample(text, 'dbrest_db_pool_max_connections'), s.config.dbPool);
  t.ok((sample(text, 'dbrest_db_pool_connections') ?? 0) >= 1);
  t.ok(sample(text, 'dbrest_db_pool_idle_connections') !== undefined);
  t.equal(sample(text, 'dbrest_db_pool_waiting_requests'), 0);
  t.equal(sample(text, 'dbrest_schema_cache_loads_total'), 1);
  t.equal(sample(text, 'dbrest_schema_cache_load_failures_total'), 0);
  t.equal(sample(text, 'dbrest_schema_cache_relations'), 2, 'items and trace_seen');
  t.equal(sample(text, 'dbrest_schema_cache_functions'), 2);
  t.equal(sample(text, 'dbrest_schema_cache_load_duration_seconds_count'), 1);
  t.ok((sample(text, 'dbrest_schema_cache_age_seconds') ?? -1) >= 0);
  t.ok(sample(text, 'process_cpu_user_seconds_total') !== undefined, 'default process metrics are on');

  // A reload counts.
  await s.server.reloadSchemaCache();
  t.equal(sample((await httpRequest(metricsUrl)).text, 'dbrest_schema_cache_loads_total'), 2);

  // /metrics is the admin port's only: the API answers it as a relation it does not have.
  t.equal((await s.request('/metrics')).status, 404);
});

t.test('two servers in one process keep their own counts', async (t) => {
  const [a1, a2] = [await freePort(), await freePort()];
  const s1 = await startTestServer(t, { fixtures: [OPS_SQL], config: { 'db-anon-role': 'ops_anon', 'admin-server-port': String(a1) } });
  const s2 = await startTestServer(t, { fixtures: [OPS_SQL], config: { 'db-anon-role': 'ops_anon', 'admin-server-port': String(a2) } });
  await s1.request('/items');
  await s1.request('/items');
  await s2.request('/items');
  const count = async (port: number) =>
    sample((await httpRequest(`http://127.0.0.1:${port}/metrics`)).text, 'dbrest_http_requests_total', { route: '/items', method: 'GET', status_class: '2xx', code: '' });
  t.equal(await count(a1), 2);
  t.equal(await count(a2), 1);
});

t.test('/metrics counts JWT cache lookups, streamed answers, cancels and shared batches', async (t) => {
  const admin = await freePort();
  const secret = 'metrics-test-secret-of-at-least-32-chars';
  const s = await startTestServer(t, {
    fixtures: [OPS_SQL, `CREATE FUNCTION sleepy(s float) RETURNS int LANGUAGE sql AS 'SELECT 1 FROM pg_sleep(s)'; GRANT EXECUTE ON FUNCTION sleepy(float) TO ops_anon;`],
    // No jwt-cache-* key: the JWT cache is on by default, as PostgREST 14's.
    config: {
      'db-anon-role': 'ops_anon', 'admin-server-port': String(admin), 'jwt-secret': secret,
      'server-stream-threshold': '2', 'db-pool': '1',
    },
  });
  const scrape = async () => (await httpRequest(`http://127.0.0.1:${admin}/metrics`)).text;
  const before = await scrape();
  const delta = (after: string, name: string) => (sample(after, name) ?? NaN) - (sample(before, name) ?? NaN);

  const token = await new SignJWT({ role: 'ops_user' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
  for (let i = 0; i < 3; i++) t.equal((await s.request('/items?id=eq.1', { headers: { Authorization: `Bearer ${token}` } })).status, 200);

  // Five rows over a threshold of two: streamed from a cursor.
  const streamed = await s.request('/items?order=id');
  t.equal(streamed.status, 200);
  t.equal(JSON.parse(streamed.text).length, 5);

  // A client that goes away while its statement runs: dbrest sends PostgreSQL a cancel request.
  const c = http.get(`${s.url}/rpc/sleepy?s=30`, { agent: false });
  c.on('error', () => undefined);
  const monitor = async () => (await s.db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%sleepy%' AND pid <> pg_backend_pid()`))[0]!['n'] as number;
  for (let i = 0; i < 2000 && (await monitor()) === 0; i++) await new Promise((r) => setTimeout(r, 5));
  c.destroy();
  let after = await scrape();
  for (let i = 0; i < 2000 && delta(after, 'dbrest_db_cancel_requests_total') < 1; i++) after = await scrape();

  // Requests at once on a pool of one connection: some join the batch running on it.
  await Promise.all(Array.from({ length: 30 }, () => s.request('/items?id=eq.2')));
  after = await scrape();

  t.equal(delta(after, 'dbrest_jwt_cache_misses_total'), 1, 'the token verified once');
  t.equal(delta(after, 'dbrest_jwt_cache_hits_total'), 2, 'and found in the cache twice');
  t.equal(delta(after, 'dbrest_http_streamed_responses_total'), 1, 'one answer streamed');
  t.equal(delta(after, 'dbrest_http_streamed_response_bytes_total'), Buffer.byteLength(streamed.text), 'its body bytes');
  t.equal(delta(after, 'dbrest_db_cancel_requests_total'), 1, 'one cancel request');
  t.ok(delta(after, 'dbrest_db_shared_batches_total') > 0, 'batches shared a connection');
  for (const name of ['dbrest_db_hedged_reads_total', 'dbrest_db_hedged_reads_won_total']) t.ok(sample(after, name) !== undefined, `${name} is exposed`);
});

t.test("the README's metrics table lists every dbrest_* metric /metrics exposes, and no other", async (t) => {
  const admin = await freePort();
  await startTestServer(t, { fixtures: [OPS_SQL], config: { 'db-anon-role': 'ops_anon', 'admin-server-port': String(admin) } });
  const text = (await httpRequest(`http://127.0.0.1:${admin}/metrics`)).text;
  const exposed = [...text.matchAll(/^# TYPE (dbrest_\w+) /gm)].map((m) => m[1]!).sort();
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('### Metrics'), readme.indexOf('### JSON logs'));
  // dbrest_workers and dbrest_worker_restarts_total come from a cluster primary (server-workers > 1) only.
  const documented = [...section.matchAll(/^\| `(dbrest_\w+)` \|/gm)].map((m) => m[1]!).filter((n) => !n.startsWith('dbrest_worker')).sort();
  t.ok(exposed.length >= 20, `${exposed.length} metrics exposed`);
  t.same(documented, exposed);
});
