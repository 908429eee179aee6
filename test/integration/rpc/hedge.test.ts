// A read-only call of a STABLE or IMMUTABLE function held up behind a stalled batch on a shared
// connection is also run on another connection, as table reads are (db/transaction.ts, hedging);
// a VOLATILE function's call is not run twice: it waits for the batch ahead of it.
import t from 'tap';
import { leases } from '../../../src/db/leases.js';
import type { SharePolicyOptions } from '../../../src/db/share-policy.js';
import { startTestServer } from '../../helpers/server.js';
import { nologinRolesSql } from '../../helpers/db.js';

const SQL = `
${nologinRolesSql('hedge_anon')}
CREATE SCHEMA hedge;
CREATE FUNCTION hedge.nap(ms integer) RETURNS integer LANGUAGE sql VOLATILE AS $$ SELECT ms FROM pg_sleep(ms / 1000.0) $$;
CREATE FUNCTION hedge.quick(n integer) RETURNS integer LANGUAGE sql STABLE AS $$ SELECT n + 1 $$;
CREATE FUNCTION hedge.quick_volatile(n integer) RETURNS integer LANGUAGE sql VOLATILE AS $$ SELECT n + 1 $$;
GRANT USAGE ON SCHEMA hedge TO hedge_anon;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA hedge TO hedge_anon;
`;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

t.test('a call of a STABLE function held up by a stalled batch is hedged; a VOLATILE one waits', async (t) => {
  const s = await startTestServer(t, { fixtures: [SQL], config: { 'db-schemas': 'hedge', 'db-anon-role': 'hedge_anon', 'db-pool': '2' } });
  const manager = leases(s.server.app.pool);
  // The product joins a fresh head within 2 ms; the test sends the second once the first runs, so
  // it widens that window (on this manager's own copy of its options). Classes stay fast, and may
  // be joined, whatever times a busy machine and the 2,000 ms batches record.
  const widened: SharePolicyOptions = { ...manager.policy.options, firstMs: 400, stallMinMs: 400, stallMaxMs: 400, fastMs: 60_000, slowMs: 60_000, maxAheadMs: 60_000 };
  (manager.policy as { options: SharePolicyOptions }).options = widened;
  /** Whether the 2,000 ms nap started within 5 s (its statement is active in pg_stat_activity). */
  const napRunning = async (): Promise<boolean> => {
    for (let i = 0; i < 500; i++) {
      const rows = await s.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND state = 'active' AND query LIKE '%\"nap\"(%'",
      );
      if (rows[0]!.n > 0) return true;
      await sleep(10);
    }
    return false;
  };
  // Every class is measured fast first (three answered calls each), as under steady load.
  for (let i = 0; i < 3; i++) {
    for (const p of ['/rpc/nap?ms=0', '/rpc/quick?n=1', '/rpc/quick_volatile?n=1']) t.equal((await s.request(p)).status, 200, p);
  }

  for (const [path, hedged] of [
    ['/rpc/quick?n=41', true],
    ['/rpc/quick_volatile?n=41', false],
  ] as const) {
    const before = manager.hedges;
    const started = performance.now();
    const head = s.request('/rpc/nap?ms=2000'); // VOLATILE: not hedged itself
    t.ok(await napRunning(), 'the batch ahead is running'); // the next joins its connection
    const res = await s.request(path);
    const ms = performance.now() - started;
    t.equal(res.status, 200, `${path}: answered`);
    t.equal(res.text, '42', `${path}: with its result`);
    if (hedged) {
      t.ok(ms < 1700, `${path}: before the 2,000 ms batch ahead of it ended (${Math.round(ms)} ms)`);
      t.equal(manager.hedges - before, 1, `${path}: by a second run on the other connection`);
    } else {
      t.ok(ms >= 1950, `${path}: after the batch ahead of it (${Math.round(ms)} ms)`);
      t.equal(manager.hedges - before, 0, `${path}: not run twice`);
    }
    t.equal((await head).text, '2000', 'the batch ahead ends as usual');
  }
});
