// Connection resilience (PostgREST docs, "Connection pool" → automatic recovery; seed DBRST000-002):
// the database stops under a running server, or is down when it starts. Requests get 503s in the
// error model at once — never a hang, never a crash — /ready says 503, and once the database is
// back the same dbrest process serves again within 10 s. Times to recover are printed.
import pg from 'pg';
import t, { type Test } from 'tap';
import { freePort } from '../../../src/embedded/postgres.js';
import { startServer, type RunningServer } from '../../../src/http/start.js';
import { createLogger } from '../../../src/observe/log.js';
import { fixture } from '../../helpers/db.js';
import { testConfig } from '../../helpers/server.js';
import { describeSeen, requestWithin, sleep, startOwnDatabase, waitForStatus, type TimedResponse } from './helpers.js';

const RECOVERY_LIMIT_MS = 10_000;
const ANSWER_LIMIT_MS = 3_000;
const UNAVAILABLE = ['DBRST000', 'DBRST001', 'DBRST002'];

const db = await startOwnDatabase(t, 'resilience', [fixture('sql', 'auth.sql')]);

async function startDbrest(t: Test, logs: string[]): Promise<{ server: RunningServer; adminUrl: string; ms: number }> {
  const adminPort = await freePort();
  const config = await testConfig(db.uri, { 'db-anon-role': 'auth_anon', 'admin-server-port': String(adminPort) });
  const started = performance.now();
  const server = await startServer(config, db.uri, createLogger('info', (line) => logs.push(line)));
  const ms = performance.now() - started;
  t.teardown(() => server.close());
  return { server, adminUrl: `http://127.0.0.1:${adminPort}`, ms };
}

function expectUnavailable(t: Test, res: TimedResponse, what: string): void {
  t.equal(res.status, 503, `${what}: 503 (after ${res.ms.toFixed(0)} ms)`);
  const proxy = res.headers['proxy-status'] ?? '';
  const code = /error=(\S+)/.exec(proxy)?.[1] ?? '';
  t.ok(UNAVAILABLE.includes(code), `${what}: Proxy-Status "${proxy}" names DBRST000/001/002`);
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8', `${what}: error model`);
  if (res.text !== '') {
    const body = res.json();
    t.equal(body.code, code, `${what}: body code matches Proxy-Status`);
    t.same(Object.keys(body).sort(), ['code', 'details', 'hint', 'message']);
  }
}

const codeOf = (res: TimedResponse) => `${res.status} ${/error=(\S+)/.exec(res.headers['proxy-status'] ?? '')?.[1] ?? ''}`.trim();

/** One outage: stop the database (with a request in flight), probe while down, restart, measure. */
async function outage(t: Test, server: RunningServer, adminUrl: string, logs: string[], downMs: number): Promise<void> {
  const before = await requestWithin(`${server.url}/whoami`, ANSWER_LIMIT_MS);
  t.equal(before.status, 200);
  t.same(before.json(), [{ role: 'auth_anon' }]);
  t.equal((await requestWithin(`${adminUrl}/ready`, ANSWER_LIMIT_MS)).status, 200, '/ready before');

  // A request in flight when the database goes away is answered, not left hanging.
  const inFlight = requestWithin(`${server.url}/sleep_3s`, 10_000);
  await sleep(300);
  const stopStarted = performance.now();
  await db.server.stop();
  t.comment(`database stopped (fast shutdown) in ${(performance.now() - stopStarted).toFixed(0)} ms`);

  const interrupted = await inFlight;
  t.comment(`in-flight request answered ${codeOf(interrupted)} after ${interrupted.ms.toFixed(0)} ms: ${interrupted.text}`);
  expectUnavailable(t, interrupted, 'the in-flight request');

  const seen = new Map<string, number>();
  const note = (res: TimedResponse) => seen.set(codeOf(res), (seen.get(codeOf(res)) ?? 0) + 1);
  // While down: every request answers at once with a 503 in the error model.
  for (let i = 0; i < 5; i++) {
    const res = await requestWithin(`${server.url}/whoami`, ANSWER_LIMIT_MS);
    note(res);
    expectUnavailable(t, res, `GET while down #${i + 1}`);
    await sleep(200);
  }
  const head = await requestWithin(`${server.url}/whoami`, ANSWER_LIMIT_MS, { method: 'HEAD' });
  note(head);
  expectUnavailable(t, head, 'HEAD while down');
  t.equal(head.text, '', 'HEAD: no body');
  const counted = await requestWithin(`${server.url}/notes`, ANSWER_LIMIT_MS, { headers: { Prefer: 'count=exact' } });
  note(counted);
  expectUnavailable(t, counted, 'GET with count while down');
  t.equal((await requestWithin(`${adminUrl}/ready`, ANSWER_LIMIT_MS)).status, 503, '/ready while down');
  t.equal((await requestWithin(`${adminUrl}/live`, ANSWER_LIMIT_MS)).status, 200, '/live while down: the process is alive');

  // Stay down longer so the retry backoff grows, as in a real outage; keep probing meanwhile.
  const downUntil = performance.now() + downMs;
  while (performance.now() < downUntil) {
    const res = await requestWithin(`${server.url}/whoami`, ANSWER_LIMIT_MS);
    note(res);
    if (res.status !== 503) t.fail(`answered ${res.status} while the database is down`);
    await sleep(500);
  }
  t.comment(`while down (${((performance.now() - stopStarted) / 1000).toFixed(1)} s): ${describeSeen(seen)}`);

  const restartStarted = performance.now();
  await db.server.restart();
  const restartMs = performance.now() - restartStarted;
  const serving = await waitForStatus(`${server.url}/whoami`, 200, RECOVERY_LIMIT_MS);
  const ready = await waitForStatus(`${adminUrl}/ready`, 200, RECOVERY_LIMIT_MS);
  t.ok(serving, 'serving again without restarting dbrest');
  t.ok(ready, '/ready again');
  t.comment(`database restart took ${restartMs.toFixed(0)} ms; after it: first 200 in ${serving?.ms.toFixed(0)} ms ` +
    `(before that: ${serving ? describeSeen(serving.seen) : '?'}), /ready 200 in ${ready?.ms.toFixed(0)} ms`);
  const after = await requestWithin(`${server.url}/whoami`, ANSWER_LIMIT_MS);
  t.equal(after.status, 200);
  t.same(after.json(), [{ role: 'auth_anon' }]);
  const burst = await Promise.all(Array.from({ length: 20 }, () => requestWithin(`${server.url}/notes`, ANSWER_LIMIT_MS)));
  t.same(burst.map((r) => r.status), Array(20).fill(200), 'a burst after recovery: no stale pooled connection is used');
  const recoveryLines = logs.splice(0).filter((l) => /unavailable|recovered|reload|listener/.test(l));
  t.comment(`server log: ${recoveryLines.length} recovery lines, e.g. ${recoveryLines[0]?.replace(/^\S+\s+/, '') ?? '(none)'}`);
}

t.test('the database stops under a running server, then comes back (twice)', async (t) => {
  const logs: string[] = [];
  const { server, adminUrl } = await startDbrest(t, logs);
  t.test('a short outage (~3 s)', (t) => outage(t, server, adminUrl, logs, 2000));
  t.test('a longer outage (~10 s): the backoff has grown', (t) => outage(t, server, adminUrl, logs, 8000));
});

t.test('the database is down when dbrest starts', async (t) => {
  await db.server.stop();
  const logs: string[] = [];
  const { server, adminUrl, ms } = await startDbrest(t, logs);
  t.comment(`startServer returned after ${ms.toFixed(0)} ms with the database down`);
  t.ok(ms < 5000, 'startServer does not wait for the database');

  const seen = new Map<string, number>();
  for (const method of ['GET', 'HEAD']) {
    const res = await requestWithin(`${server.url}/whoami`, ANSWER_LIMIT_MS, { method });
    seen.set(codeOf(res), (seen.get(codeOf(res)) ?? 0) + 1);
    expectUnavailable(t, res, `${method} before the first schema cache`);
    t.match(res.headers['proxy-status'], /DBRST002/, `${method}: no schema cache yet → DBRST002`);
  }
  const root = await requestWithin(`${server.url}/`, ANSWER_LIMIT_MS);
  expectUnavailable(t, root, 'GET / (OpenAPI) before the first schema cache');
  t.equal((await requestWithin(`${adminUrl}/ready`, ANSWER_LIMIT_MS)).status, 503, '/ready while down');
  t.equal((await requestWithin(`${adminUrl}/live`, ANSWER_LIMIT_MS)).status, 200, '/live while down');
  t.comment(`while down: ${describeSeen(seen)}`);

  await sleep(1500);
  const restartStarted = performance.now();
  await db.server.restart();
  const restartMs = performance.now() - restartStarted;
  const serving = await waitForStatus(`${server.url}/whoami`, 200, RECOVERY_LIMIT_MS);
  const ready = await waitForStatus(`${adminUrl}/ready`, 200, RECOVERY_LIMIT_MS);
  t.ok(serving, 'serving once the database is up');
  t.ok(ready, '/ready once the database is up');
  t.comment(`database start took ${restartMs.toFixed(0)} ms; after it: first 200 in ${serving?.ms.toFixed(0)} ms ` +
    `(before that: ${serving ? describeSeen(serving.seen) : '?'}), /ready 200 in ${ready?.ms.toFixed(0)} ms`);
  const res = await requestWithin(`${server.url}/whoami`, ANSWER_LIMIT_MS);
  t.same(res.json(), [{ role: 'auth_anon' }]);
});

t.test('db-schema-watch: down at start, the event triggers are installed once the database answers', async (t) => {
  await db.server.stop();
  const logs: string[] = [];
  const config = await testConfig(db.uri, { 'db-anon-role': 'auth_anon', 'db-schema-watch': 'true' });
  const server = await startServer(config, db.uri, createLogger('info', (line) => logs.push(line)));
  t.teardown(() => server.close());
  // The first install fails while the database is down (its warning says so) before the restart.
  const warned = () => logs.some((l) => /db-schema-watch: event triggers not installed \(.*tried again when the database answers/.test(l));
  const warnUntil = performance.now() + RECOVERY_LIMIT_MS;
  while (!warned() && performance.now() < warnUntil) await sleep(50);
  t.ok(warned(), 'the warning says it will try again');
  await db.server.restart();
  t.ok(await waitForStatus(`${server.url}/whoami`, 200, RECOVERY_LIMIT_MS), 'serving once the database is up');

  const client = new pg.Client({ connectionString: db.uri });
  await client.connect();
  t.teardown(() => client.end());
  const installed = async () => (await client.query(`SELECT count(*)::int AS n FROM pg_event_trigger WHERE evtname LIKE 'dbrest_watch_%'`)).rows[0].n;
  const until = performance.now() + RECOVERY_LIMIT_MS;
  while ((await installed()) < 2 && performance.now() < until) await sleep(100);
  t.equal(await installed(), 2, 'both event triggers are there after the recovery');
  // And they work: a table made now reaches the API without a signal.
  await client.query('CREATE TABLE watched_after_outage (id int); GRANT SELECT ON watched_after_outage TO auth_anon');
  t.teardown(() => client.query('DROP TABLE IF EXISTS watched_after_outage').then(() => undefined));
  t.ok(await waitForStatus(`${server.url}/watched_after_outage`, 200, RECOVERY_LIMIT_MS), 'DDL after the recovery reloads the cache');
});

t.test('a database that stays down: closing dbrest does not wait for the retry loop', async (t) => {
  const logs: string[] = [];
  const adminPort = await freePort();
  const config = await testConfig(db.uri, { 'db-anon-role': 'auth_anon', 'admin-server-port': String(adminPort) });
  await db.server.stop();
  const server = await startServer(config, db.uri, createLogger('info', (line) => logs.push(line)));
  // Let the backoff grow to several seconds.
  await sleep(4000);
  const res = await requestWithin(`${server.url}/whoami`, ANSWER_LIMIT_MS);
  expectUnavailable(t, res, 'after 4 s down');
  const closeStarted = performance.now();
  await server.close();
  const closeMs = performance.now() - closeStarted;
  t.comment(`close() with the database down took ${closeMs.toFixed(0)} ms`);
  t.ok(closeMs < 2000, 'close() is prompt');
  await db.server.restart();
});
