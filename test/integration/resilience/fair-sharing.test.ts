// Fair sharing (db/leases.ts, db/share-policy.ts): requests are pipelined onto busy connections, but
// a slow statement never holds up more than one other request. One slow call (pg_sleep through
// /rpc) runs while many concurrent fast calls go through a small pool: at most one fast call may
// end up waiting behind the slow one (taking most of its sleep); every other one answers as usual.
import t from 'tap';
import { Agent, request } from 'undici';
import { startTestServer } from '../../helpers/server.js';

const SCHEMA = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fair_anon') THEN CREATE ROLE fair_anon NOLOGIN; END IF;
END $$;
CREATE FUNCTION nap(s float8) RETURNS int LANGUAGE plpgsql AS $f$ BEGIN PERFORM pg_sleep(s); RETURN 1; END $f$;
CREATE FUNCTION add_them(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b';
GRANT USAGE ON SCHEMA public TO fair_anon;
GRANT EXECUTE ON FUNCTION nap(float8), add_them(int, int) TO fair_anon;
`;

const SLEEP_S = 1.5;
const FAST_CLIENTS = 24;

t.test('with a slow call running, concurrent fast calls are held up behind it one at most', async (t) => {
  const s = await startTestServer(t, { fixtures: [SCHEMA], config: { 'db-anon-role': 'fair_anon', 'db-pool': '4' } });
  const agent = new Agent({ connections: FAST_CLIENTS + 2 });
  t.teardown(() => agent.close());
  const call = async (path: string) => {
    const res = await request(s.url + path, { dispatcher: agent });
    return { status: res.statusCode, body: await res.body.text() };
  };

  // Warm up: every connection opened, the fast call's class measured (fast).
  await Promise.all(Array.from({ length: 200 }, () => call('/rpc/add_them?a=1&b=2')));

  for (const round of ['first slow call (never measured)', 'second slow call (measured slow)']) {
    const fast: Array<{ start: number; ms: number; status: number; body: string }> = [];
    let slowDone = false;
    const slowStart = performance.now();
    const slow = call(`/rpc/nap?s=${SLEEP_S}`).then((r) => ((slowDone = true), { ...r, ms: performance.now() - slowStart }));
    const clients = Array.from({ length: FAST_CLIENTS }, async () => {
      while (!slowDone) {
        const start = performance.now();
        const r = await call('/rpc/add_them?a=1&b=2');
        fast.push({ start, ms: performance.now() - start, ...r });
      }
    });
    const [done] = await Promise.all([slow, ...clients]);
    t.equal(done.status, 200, `${round}: the slow call answers`);
    t.equal(done.body, '1');
    const bad = fast.filter((f) => f.status !== 200 || f.body !== '3');
    t.same(bad, [], `${round}: every fast call answered 200 with 3`);
    // Behind the slow batch means waiting most of its sleep.
    const held = fast.filter((f) => f.start >= slowStart && f.ms > SLEEP_S * 1000 * 0.66);
    const slowest = Math.max(...fast.filter((f) => !held.includes(f)).map((f) => f.ms));
    t.comment(`${round}: ${fast.length} fast calls during ${done.ms.toFixed(0)} ms; held up: ${held.length} (${held.map((f) => f.ms.toFixed(0)).join(', ')} ms); slowest other: ${slowest.toFixed(1)} ms`);
    t.ok(fast.length > FAST_CLIENTS * 2, `${round}: the fast calls kept flowing (${fast.length})`);
    t.ok(held.length <= 1, `${round}: at most one fast call held up behind the slow one (${held.length})`);
  }
});
