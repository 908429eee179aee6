// Pool exhaustion (PostgREST docs, "Connection pool" → db-pool-acquisition-timeout; seed DBRST003):
// with every connection busy, a request waits db-pool-acquisition-timeout seconds, then gets 504
// DBRST003; the busy request still completes and the pool serves again afterwards.
import t from 'tap';
import { freePort } from '../../../src/embedded/postgres.js';
import { fixture } from '../../helpers/db.js';
import { httpRequest, startTestServer } from '../../helpers/server.js';
import { requestWithin, sleep } from './helpers.js';

t.test('db-pool=1, db-pool-acquisition-timeout=1: a request behind a slow one gets 504 DBRST003 after ~1 s', async (t) => {
  const adminPort = await freePort();
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'db-pool': '1', 'db-pool-acquisition-timeout': '1', 'admin-server-port': String(adminPort) },
  });
  t.equal((await s.request('/whoami')).status, 200, 'warm: the one connection exists');

  const slow = requestWithin(`${s.url}/sleep_3s`, 10_000);
  await sleep(200);
  const waiting = await requestWithin(`${s.url}/whoami`, 5_000);
  t.comment(`the waiting request answered ${waiting.status} after ${waiting.ms.toFixed(0)} ms`);
  t.equal(waiting.status, 504);
  t.equal(waiting.headers['proxy-status'], 'dbrest; error=DBRST003');
  t.same(waiting.json(), { code: 'DBRST003', details: null, hint: null, message: 'Timed out acquiring connection from connection pool.' });
  t.ok(waiting.ms >= 900 && waiting.ms < 2000, `waited about db-pool-acquisition-timeout (${waiting.ms.toFixed(0)} ms)`);

  const head = await requestWithin(`${s.url}/whoami`, 5_000, { method: 'HEAD' });
  t.equal(head.status, 504, 'HEAD too');
  t.equal(head.headers['proxy-status'], 'dbrest; error=DBRST003');
  t.equal(head.text, '');

  t.equal((await httpRequest(`http://127.0.0.1:${adminPort}/ready`)).status, 200, 'an exhausted pool is not a lost database: /ready stays 200');

  const done = await slow;
  t.equal(done.status, 200, `the slow request completes (${done.ms.toFixed(0)} ms)`);
  t.same(done.json(), [{ slept: '' }]);
  const after = await requestWithin(`${s.url}/whoami`, 5_000);
  t.equal(after.status, 200, 'the pool serves again');
  t.ok(after.ms < 500, `at once (${after.ms.toFixed(0)} ms)`);
});

t.test('a burst larger than the pool is queued, not refused, while it fits in the timeout', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'db-pool': '2', 'db-pool-acquisition-timeout': '5' },
  });
  const started = performance.now();
  const all = await Promise.all(Array.from({ length: 6 }, () => requestWithin(`${s.url}/sleep_1s`, 10_000)));
  const ms = performance.now() - started;
  t.same(all.map((r) => r.status), Array(6).fill(200));
  t.ok(ms >= 2900, `6 one-second requests over 2 connections take ~3 s (${ms.toFixed(0)} ms): the pool is bounded`);
});
