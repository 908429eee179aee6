// Issue 28, from the postgrest-js jest suite ("explain with options": Settings.search_path is
// `"public", "public", "extensions"`): PostgREST sets a request's search_path to the exposed schema
// followed by every db-extra-search-path schema, without dropping a repeat of the first.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('the exposed schema is not dropped from db-extra-search-path', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity7.sql')],
    config: { 'db-schemas': 'parity7', 'db-anon-role': 'postgres', 'db-extra-search-path': 'parity7, public', 'db-plan-enabled': 'true' },
  });
  const called = await s.request('/rpc/current_search_path');
  t.equal(called.status, 200);
  t.equal(called.json(), '"parity7", "parity7", "public"');

  const plan = await s.request('/users', { headers: { Accept: 'application/vnd.pgrst.plan+json; options=settings' } });
  t.equal(plan.status, 200);
  t.same(plan.json()[0].Settings.search_path, '"parity7", "parity7", "public"', "EXPLAIN's settings");
});
