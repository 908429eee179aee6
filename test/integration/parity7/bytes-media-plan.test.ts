// Issue 28, PostgREST's PlanSpec "outputs the plan for an aggregate application/vnd.twkb" (run with
// PostGIS by the pgrst2 harness): the planned body of a media handler whose domain is over bytea is
// the aggregate itself, `twkb_agg(ROW(lines.id, lines.name)::lines)`. dbrest used to cast it to
// bytea, which PostgreSQL already sends for a domain over bytea, so its plan showed `(…)::bytea`.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('a bytea media handler: its bytes, and a plan of the bare aggregate', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity7.sql')],
    config: { 'db-schemas': 'parity7', 'db-anon-role': 'postgres', 'db-plan-enabled': 'true' },
  });

  const body = await s.request('/lines?order=id', { headers: { Accept: 'application/vnd.twkb' } });
  t.equal(body.status, 200);
  t.equal(body.headers['content-type'], 'application/vnd.twkb');
  t.same(body.bytes, Buffer.from('line-1line-2'), 'the aggregate\'s bytes, sent as they are');

  const plan = await s.request('/lines', {
    headers: { Accept: 'application/vnd.pgrst.plan+json; for="application/vnd.twkb"; options=verbose' },
  });
  t.equal(plan.status, 200);
  t.equal(plan.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/vnd.twkb"; options=verbose; charset=utf-8');
  t.equal(plan.json()[0].Plan.Output[2], 'twkb_agg(ROW(lines.id, lines.name)::lines)', 'PostgREST\'s output, no cast on top');
});
