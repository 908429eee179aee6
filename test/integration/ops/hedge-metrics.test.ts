// The hedged-read counters of /metrics (issue 29): dbrest_db_hedged_reads_total (second runs sent)
// and dbrest_db_hedged_reads_won_total (second runs that answered first) move by one when a read is
// held up behind a batch that cannot end: the batch ahead waits on an advisory lock this test holds,
// so the read's answer can only come from its second run, on the other connection.
import pg from 'pg';
import t from 'tap';
import { freePort } from '../../../src/embedded/postgres.js';
import { leases } from '../../../src/db/leases.js';
import type { SharePolicyOptions } from '../../../src/db/share-policy.js';
import { httpRequest, startTestServer } from '../../helpers/server.js';
import { nologinRolesSql } from '../../helpers/db.js';

const SQL = `
${nologinRolesSql('hedge_anon')}
CREATE SCHEMA hedge;
CREATE FUNCTION hedge.locked() RETURNS integer LANGUAGE sql VOLATILE AS $$ SELECT pg_advisory_xact_lock(4242); SELECT 1 $$;
CREATE FUNCTION hedge.quick(n integer) RETURNS integer LANGUAGE sql STABLE AS $$ SELECT n + 1 $$;
GRANT USAGE ON SCHEMA hedge TO hedge_anon;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA hedge TO hedge_anon;
`;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The value of an unlabelled sample in a Prometheus exposition. */
function sample(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (m === null) throw new Error(`${name} not in /metrics`);
  return Number(m[1]);
}

t.test('a read answered by its second run counts one hedge sent and one won', async (t) => {
  const admin = await freePort();
  const s = await startTestServer(t, {
    fixtures: [SQL],
    config: { 'db-schemas': 'hedge', 'db-anon-role': 'hedge_anon', 'db-pool': '2', 'admin-server-port': String(admin) },
  });
  const scrape = async () => {
    const text = (await httpRequest(`http://127.0.0.1:${admin}/metrics`)).text;
    return { sent: sample(text, 'dbrest_db_hedged_reads_total'), won: sample(text, 'dbrest_db_hedged_reads_won_total') };
  };
  // As in rpc/hedge.test.ts: the read is sent once the batch ahead runs, so the window in which it
  // may join that batch's connection is widened (on this manager's own copy of its options).
  const manager = leases(s.server.app.pool);
  const widened: SharePolicyOptions = { ...manager.policy.options, firstMs: 400, stallMinMs: 400, stallMaxMs: 400, fastMs: 60_000, slowMs: 60_000, maxAheadMs: 60_000 };
  (manager.policy as { options: SharePolicyOptions }).options = widened;
  for (let i = 0; i < 3; i++) {
    for (const p of ['/rpc/locked', '/rpc/quick?n=1']) t.equal((await s.request(p)).status, 200, p);
  }
  const before = await scrape();
  t.equal(before.won, 0, 'no hedge won before');

  const holder = new pg.Client({ connectionString: s.db.uri });
  await holder.connect();
  t.teardown(() => holder.end());
  await holder.query('SELECT pg_advisory_lock(4242)');
  const head = s.request('/rpc/locked'); // VOLATILE: never run twice itself
  let blocked = false;
  for (let i = 0; i < 500 && !blocked; i++) {
    const rows = await holder.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'",
    );
    blocked = rows.rows[0]!.n > 0;
    if (!blocked) await sleep(10);
  }
  t.ok(blocked, 'the batch ahead waits for the lock');
  // Behind the blocked batch on its connection, this read can only be answered by a second run.
  // (Bounded, so that a read not hedged fails here instead of waiting for the lock forever.)
  const res = await Promise.race([s.request('/rpc/quick?n=41'), sleep(10_000).then(() => null)]);
  if (res === null) {
    await holder.query('SELECT pg_advisory_unlock(4242)');
    t.fail('the read was not answered within 10 s while the batch ahead was blocked');
    return;
  }
  t.equal(res.status, 200);
  t.equal(res.text, '42', 'answered while the batch ahead is still blocked');
  const after = await scrape();
  t.equal(after.sent - before.sent, 1, 'one hedged read sent');
  t.equal(after.won - before.won, 1, 'and it won');

  await holder.query('SELECT pg_advisory_unlock(4242)');
  t.equal((await head).status, 200, 'the batch ahead ends once the lock is free');
  // The first run of the read, left behind, ends too: neither counter moves again.
  const settled = await scrape();
  t.same(settled, after, 'nothing more counted when the run left behind ends');
});
