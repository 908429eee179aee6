// A schema reload never blocks serving: while the new cache is being read (held up here by a lock
// the catalog query must wait for), requests are answered from the old cache; once the new one is
// ready it replaces the old in one step.
import t from 'tap';
import pg from 'pg';
import { startTestServer } from '../../helpers/server.js';

const FIXTURE = `
CREATE TABLE public.before (id int PRIMARY KEY);
INSERT INTO public.before VALUES (1), (2);
-- The relations query asks whether each view is updatable, which opens the view: an ACCESS
-- EXCLUSIVE lock on it makes the reload wait, deterministically, for as long as the test wants.
-- (LOCK TABLE on a view locks the tables it reads too: those must not be the ones requested.)
CREATE TABLE public.gate_base (id int);
CREATE VIEW public.gate AS SELECT id FROM public.gate_base;
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('requests during a slow reload are answered by the old cache, then the new one swaps in', async (t) => {
  const s = await startTestServer(t, { fixtures: [FIXTURE], config: { 'db-anon-role': 'postgres', 'db-pool': '4' } });
  t.equal((await s.request('/before?order=id')).status, 200);
  t.equal((await s.request('/after')).status, 404, 'the table made later is unknown to the first cache');

  // A table the new cache will have, then a transaction that holds the gate.
  await s.db.query('CREATE TABLE public.after (id int PRIMARY KEY); INSERT INTO public.after VALUES (7);');
  const holder = new pg.Client({ connectionString: s.db.uri });
  await holder.connect();
  t.teardown(() => holder.end().catch(() => undefined));
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE public.gate IN ACCESS EXCLUSIVE MODE');

  let reloaded = false;
  const reload = s.server.reloadSchemaCache().then(() => (reloaded = true));

  // Wait until dbrest's catalog query is really blocked on the lock.
  let waiting = 0;
  for (let i = 0; i < 500 && waiting === 0; i++) {
    const rows = await s.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'dbrest' AND wait_event_type = 'Lock'`,
    );
    waiting = rows[0]!.n;
    if (waiting === 0) await sleep(20);
  }
  t.equal(waiting, 1, 'the reload waits on the lock');

  // Meanwhile: served, from the old cache (which does not know `after`).
  const during = await Promise.all([s.request('/before?order=id'), s.request('/before?id=eq.2'), s.request('/after')]);
  t.equal(during[0]!.status, 200);
  t.same(during[0]!.json(), [{ id: 1 }, { id: 2 }]);
  t.same(during[1]!.json(), [{ id: 2 }]);
  t.equal(during[2]!.status, 404, 'still the old cache');
  t.equal(during[2]!.json().code, 'DBRST205');
  t.equal(reloaded, false, 'the reload is still in progress');

  await holder.query('COMMIT');
  await reload;
  const after = await s.request('/after');
  t.equal(after.status, 200, 'the new cache took over');
  t.same(after.json(), [{ id: 7 }]);
  t.equal((await s.request('/before?id=eq.1')).status, 200);
});
