// Issue #26, finding 4: the CPU an attack costs must not go on after its client hangs up. A mounted
// call (and an /rpc call) whose client goes away is cancelled: pg_stat_activity, read on a
// connection of the test's own, shows dbrest's backend idle again soon after the disconnect.
import http from 'node:http';
import pg from 'pg';
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const ROUTES = [{
  prefix: '/api/x',
  schema: 'xsec',
  'error-handler': 'render_error',
  routes: [
    { method: 'GET', path: '/sleep', call: 'sleepy', args: { s: 'query.s' } },
    { method: 'POST', path: '/sleep', call: 'sleepy', args: { s: 'body' } },
  ],
}];

/** Polls until `ok` holds, or gives up after `limitMs` (false). */
async function until(limitMs: number, ok: () => Promise<boolean>): Promise<boolean> {
  const start = performance.now();
  while (performance.now() - start < limitMs) {
    if (await ok()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

t.test('a call whose client goes away is cancelled', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'xml-security.sql')],
    config: { 'db-schemas': 'xsec', 'db-anon-role': 'xsec_anon', 'db-pool': '2', routes: JSON.stringify(ROUTES) },
  });
  const monitor = new pg.Client({ connectionString: s.db.uri });
  await monitor.connect();
  t.teardown(() => monitor.end());
  const sleeping = async () =>
    (await monitor.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'dbrest' AND state = 'active' AND query LIKE '%sleepy%'`)).rows[0].n as number;

  for (const [what, method, path, body] of [
    ['a mounted GET', 'GET', '/api/x/sleep?s=30', null],
    ['a mounted POST', 'POST', '/api/x/sleep', '30'],
    ['an /rpc call', 'POST', '/rpc/sleepy', '{"s": 30}'],
  ] as const) {
    t.test(what, async (t) => {
      const req = http.request(s.url + path, { method, agent: false, headers: body === null ? {} : { 'Content-Type': path.startsWith('/rpc') ? 'application/json' : 'text/plain' } });
      req.on('error', () => undefined);
      req.end(body ?? undefined);
      t.ok(await until(10_000, async () => (await sleeping()) === 1), 'the call runs in PostgreSQL');
      req.destroy();
      t.ok(await until(5_000, async () => (await sleeping()) === 0), 'cancelled after the client went away (not 30 s later)');
      // The server still answers.
      const next = await s.request('/api/x/sleep?s=0');
      t.equal(next.status, 200, next.text);
    });
  }
});
