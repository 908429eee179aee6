// To-many embeds (spread or not) inside a to-many spread, as PostgREST answers them
// (test/spec/Feature/Query/SpreadQueriesSpec.hs, "should select spread columns from a nested
// one-to-many relationship" and "… as an array of arrays"): each child's embed is aggregated on its
// own, so the spread's array holds one array per child, and the children are not repeated.
import t, { type Test } from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestResponse } from '../../helpers/server.js';

function expectJson(t: Test, res: TestResponse, status: number, body: unknown, what = ''): void {
  t.equal(res.status, status, `${what} status`.trim());
  t.match(res.headers['content-type'], /^application\/json; charset=utf-8$/, `${what} content-type`.trim());
  t.same(res.json(), body, `${what} body`.trim());
}

t.test('to-many embeds nested in a to-many spread give one array per child', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'spread.sql')],
    config: { 'db-schemas': 'spread', 'db-anon-role': 'postgres', 'db-aggregates-enabled': 'true' },
  });
  const B2 = ['Process B1', 'Process B2'];
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,...process_supervisor(supervisor_ids:supervisor_id))&id=lte.2&order=id&processes.order=id&processes.process_supervisor.order=supervisor_id'), 200, [
    { factory: 'Factory A', process: ['Process A1', 'Process A2'], supervisor_ids: [[1], [2]] },
    { factory: 'Factory B', process: B2, supervisor_ids: [[3, 4], [1, 2]] },
  ], 'nested one-to-many spread');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,...supervisors(supervisors:name))&id=lte.2&order=id&processes.order=id&processes.supervisors.order=id'), 200, [
    { factory: 'Factory A', process: ['Process A1', 'Process A2'], supervisors: [['Mary'], ['John']] },
    { factory: 'Factory B', process: B2, supervisors: [['Peter', 'Sarah'], ['Mary', 'John']] },
  ], 'nested many-to-many spread');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,process_supervisor(supervisor_id))&id=lte.2&order=id&processes.order=id&processes.process_supervisor.order=supervisor_id'), 200, [
    { factory: 'Factory A', process: ['Process A1', 'Process A2'], process_supervisor: [[{ supervisor_id: 1 }], [{ supervisor_id: 2 }]] },
    { factory: 'Factory B', process: B2, process_supervisor: [[{ supervisor_id: 3 }, { supervisor_id: 4 }], [{ supervisor_id: 1 }, { supervisor_id: 2 }]] },
  ], 'nested non-spread one-to-many: an array of arrays');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,supervisors(name))&id=lte.2&order=id&processes.order=id&processes.supervisors.order=id'), 200, [
    { factory: 'Factory A', process: ['Process A1', 'Process A2'], supervisors: [[{ name: 'Mary' }], [{ name: 'John' }]] },
    { factory: 'Factory B', process: B2, supervisors: [[{ name: 'Peter' }, { name: 'Sarah' }], [{ name: 'Mary' }, { name: 'John' }]] },
  ], 'nested non-spread many-to-many');
  expectJson(t, await s.request('/operators?select=operator:name,...processes(process:name,...process_supervisor(supervisor_ids:supervisor_id))&id=lte.2&order=id&processes.order=id&processes.process_supervisor.order=supervisor_id'), 200, [
    { operator: 'Anne', process: ['Process A1', 'Process A2', 'Process B2'], supervisor_ids: [[1], [2], [1, 2]] },
    { operator: 'Louis', process: ['Process A1', 'Process A2'], supervisor_ids: [[1], [2]] },
  ], 'inside a many-to-many spread');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,...supervisors(supervisors:name))&id=gte.3&order=id&processes.order=id'), 200, [
    { factory: 'Factory C', process: ['Process C1', 'Process C2'], supervisors: [['Peter'], ['Peter']] },
    { factory: 'Factory D', process: [], supervisors: [] },
  ], 'no children: empty arrays');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,...supervisors(supervisors:name))&id=eq.3&processes.supervisors.name=eq.Nobody&processes.order=id'), 200, [
    { factory: 'Factory C', process: ['Process C1', 'Process C2'], supervisors: [[], []] },
  ], 'a child without grandchildren keeps its entry, an empty array');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,...supervisors!inner(supervisors:name))&id=eq.3&processes.supervisors.name=eq.Nobody'), 200, [
    { factory: 'Factory C', process: [], supervisors: [] },
  ], '!inner drops the children without grandchildren');
});
