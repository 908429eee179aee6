// Issue 28, item 11: DBRST201 lists its candidates in PostgREST's order (EmbedDisambiguationSpec
// "errs on an ambiguous embed that has a circular reference"): one-to-many before many-to-one.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('ambiguous embed candidates in PostgREST order', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity4.sql')],
    config: { 'db-schemas': 'parity4', 'db-anon-role': 'postgres' },
  });
  const res = await s.request('/agents?select=*,departments(*)');
  t.equal(res.status, 300);
  t.same(res.json(), {
    code: 'DBRST201',
    details: [
      { cardinality: 'one-to-many', relationship: 'departments_head_id_fkey using agents(id) and departments(head_id)', embedding: 'agents with departments' },
      { cardinality: 'many-to-one', relationship: 'agents_department_id_fkey using agents(department_id) and departments(id)', embedding: 'agents with departments' },
    ],
    hint: "Try changing 'departments' to one of the following: 'departments!departments_head_id_fkey', 'departments!agents_department_id_fkey'. Find the desired relationship in the 'details' key.",
    message: "Could not embed because more than one relationship was found for 'agents' and 'departments'",
  });
});
