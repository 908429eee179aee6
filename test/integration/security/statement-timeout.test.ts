// db-statement-timeout (issue #26): set with the request's settings in the same round trip, the
// lower of it and the role's own statement_timeout wins, a cancelled statement answers 500 57014
// with a hint, the rest of a streamed answer is not cut off, and the embedded default turns it on.
import t from 'tap';
import { embeddedConfig, EMBEDDED_STATEMENT_TIMEOUT_MS } from '../../../src/embedded/default.js';
import { DEFAULT_CONFIG } from '../../../src/config/keys.js';
import { bearer, startQuickstart } from './quickstart.js';
import { nologinRolesSql } from '../../helpers/db.js';

const SLOW = `
CREATE FUNCTION slow(s double precision) RETURNS int LANGUAGE sql AS $$ SELECT 1 FROM pg_sleep(s) $$;
CREATE FUNCTION timeout_in_force() RETURNS text LANGUAGE sql STABLE AS $$ SELECT current_setting('statement_timeout') $$;
-- Each row says the timeout in force when it was made; rows after the 20th take 5 ms each.
CREATE VIEW timed_rows AS
  SELECT i, current_setting('statement_timeout') AS timeout, CASE WHEN i > 20 THEN pg_sleep(0.005)::text END AS pause
  FROM generate_series(1, 400) AS i;
GRANT SELECT ON timed_rows TO web_anon;
${nologinRolesSql('budget_low', 'budget_high')}
DO $$ BEGIN
  EXECUTE format('ALTER ROLE budget_low IN DATABASE %I SET statement_timeout = %L', current_database(), '150ms');
  EXECUTE format('ALTER ROLE budget_high IN DATABASE %I SET statement_timeout = %L', current_database(), '1h');
END $$;
`;

t.test('db-statement-timeout=300', async (t) => {
  const s = await startQuickstart(t, { 'db-statement-timeout': '300', 'server-stream-threshold': '10' }, [SLOW]);

  t.test('is in force for the request', async (t) => {
    const res = await s.request('/rpc/timeout_in_force');
    t.equal(res.status, 200);
    t.equal(res.json(), '300ms');
  });

  t.test('a statement that runs longer is cancelled: 500 57014 (the error model row 57*) with a hint naming the key', async (t) => {
    const res = await s.request('/rpc/slow', { method: 'POST', body: { s: 30 } });
    t.equal(res.status, 500);
    t.equal(res.headers['proxy-status'], 'dbrest; error=57014');
    const body = res.json();
    t.equal(body.code, '57014');
    t.equal(body.message, 'canceling statement due to statement timeout');
    t.match(body.hint, /db-statement-timeout/);
    const next = await s.request('/films?select=id&id=eq.2');
    t.equal(next.status, 200, 'the server answers the next request');
    t.same(next.json(), [{ id: 2 }]);
  });

  t.test("a role's own lower statement_timeout wins; a higher one does not lift the server's", async (t) => {
    t.equal((await s.request('/rpc/timeout_in_force', { headers: await bearer({ role: 'budget_low' }) })).json(), '150ms');
    t.equal((await s.request('/rpc/timeout_in_force', { headers: await bearer({ role: 'budget_high' }) })).json(), '300ms');
  });

  t.test('a streamed answer: its first batch is bounded, the rest is not cut off', async (t) => {
    const res = await s.request('/timed_rows?select=i,timeout');
    t.equal(res.status, 200);
    const rows = res.json() as Array<{ i: number; timeout: string }>;
    t.equal(rows.length, 400, 'every row, though 380 of them took 5 ms each');
    t.equal(rows[0]!.timeout, '300ms', 'the first batch ran under the timeout');
    t.equal(rows[399]!.timeout, '0', 'the rest ran without it');
  });
});

t.test('unset with a db-uri: off (the role settings alone apply)', async (t) => {
  const s = await startQuickstart(t, {}, [SLOW]);
  t.equal((await s.request('/rpc/timeout_in_force')).json(), '0');
  t.equal((await s.request('/rpc/timeout_in_force', { headers: await bearer({ role: 'budget_low' }) })).json(), '150ms');
});

t.test('the embedded default turns it on (10 s) unless configured', async (t) => {
  t.equal(EMBEDDED_STATEMENT_TIMEOUT_MS, 10_000);
  t.equal(embeddedConfig(DEFAULT_CONFIG, 'postgresql://a@localhost/db', () => undefined).dbStatementTimeout, 10_000);
  t.equal(embeddedConfig({ ...DEFAULT_CONFIG, dbStatementTimeout: 0 }, 'postgresql://a@localhost/db', () => undefined).dbStatementTimeout, 0);
  t.equal(embeddedConfig({ ...DEFAULT_CONFIG, dbStatementTimeout: 2500 }, 'postgresql://a@localhost/db', () => undefined).dbStatementTimeout, 2500);
});
