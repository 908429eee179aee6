// Issue 12 rest, item 2 of the slice: a related order on a to-one spread may name a column of a
// to-one spread nested in it (`...processes(...process_categories(cat:name))&order=processes(cat)`),
// also when the node groups (aggregates hoisted from the spreads), as PostgREST's related order reads
// the LATERAL's output columns. It was a 42703 from our planner.
import t, { type Test } from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestResponse } from '../../helpers/server.js';

function expectJson(t: Test, res: TestResponse, status: number, body: unknown, what: string): void {
  t.equal(res.status, status, `${what} status`);
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8', `${what} content-type`);
  t.same(res.json(), body, `${what} body`);
}

t.test('ordering by a nested spread column, grouped at the parent and inside an embed', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'spread.sql')],
    config: { 'db-schemas': 'spread', 'db-anon-role': 'postgres', 'db-aggregates-enabled': 'true' },
  });
  expectJson(t, await s.request('/process_supervisor?select=...processes(...process_categories(cat:name)),count()&order=processes(cat)'), 200, [
    { count: 6, cat: 'Batch' }, { count: 2, cat: 'Mass' },
  ], 'root grouped by the nested spread column, count()');
  expectJson(t, await s.request('/process_supervisor?select=...processes(...process_categories(cat:name),...process_costs(total:cost.sum()))&order=processes(cat).desc'), 200, [
    { cat: 'Mass', total: 240 }, { cat: 'Batch', total: 720 },
  ], 'root, a hoisted sum, descending');
  expectJson(t, await s.request('/supervisors?select=name,process_supervisor(...processes(...process_categories(cat:name),...process_costs(total:cost.sum())))&process_supervisor.order=processes(cat).desc&id=lte.3&order=id'), 200, [
    { name: 'Mary', process_supervisor: [{ cat: 'Batch', total: 220 }] },
    { name: 'John', process_supervisor: [{ cat: 'Mass', total: 200 }, { cat: 'Batch', total: 70 }] },
    { name: 'Peter', process_supervisor: [{ cat: 'Mass', total: 40 }, { cat: 'Batch', total: 250 }] },
  ], 'a grouped to-many embed ordered by its nested spread column');
  expectJson(t, await s.request('/supervisors?select=name,process_supervisor(count(),...processes(...process_categories(cat:name)))&process_supervisor.order=processes(cat)&id=lte.3&order=id'), 200, [
    { name: 'Mary', process_supervisor: [{ count: 2, cat: 'Batch' }] },
    { name: 'John', process_supervisor: [{ count: 1, cat: 'Batch' }, { count: 1, cat: 'Mass' }] },
    { name: 'Peter', process_supervisor: [{ count: 2, cat: 'Batch' }, { count: 1, cat: 'Mass' }] },
  ], 'count() in the embed, ascending');
  expectJson(t, await s.request('/process_supervisor?select=...processes(...process_categories(cat:name)),count()&order=processes(nope)'), 400, {
    code: '42703', details: null, hint: null, message: 'column process_supervisor_processes_1.nope does not exist',
  }, 'a column the spread does not output is still 42703');
});
