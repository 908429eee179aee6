// Issue 12, item 1: spreads over to-many relationships as PostgREST v16 answers them
// (test/spec/Feature/Query/SpreadQueriesSpec.hs, AggregateFunctionsSpec.hs), over our own rows
// (test/fixtures/sql/spread.sql) with the same tables.
import t, { type Test } from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestResponse, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }, aggregates: boolean): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'spread.sql')],
    config: { 'db-schemas': 'spread', 'db-anon-role': 'postgres', 'db-aggregates-enabled': String(aggregates) },
  });
}

function expectJson(t: Test, res: TestResponse, status: number, body: unknown, what = ''): void {
  t.equal(res.status, status, `${what} status`.trim());
  t.same(res.json(), body, `${what} body`.trim());
}

const A = ['Process A1', 'Process A2'];
const B = ['Process B1', 'Process B2'];

t.test('one-to-many spread: each column becomes an array of the children', async (t) => {
  const s = await server(t, true);
  expectJson(t, await s.request('/factories?select=factory:name,...processes(name)&id=lte.2&order=id&processes.order=id'), 200, [
    { factory: 'Factory A', name: A },
    { factory: 'Factory B', name: B },
  ]);
  expectJson(t, await s.request('/factories?select=factory:name,...processes(processes:name,categories:category_id)&id=lte.2&order=id&processes.order=id'), 200, [
    { factory: 'Factory A', processes: A, categories: [1, 2] },
    { factory: 'Factory B', processes: B, categories: [1, 1] },
  ], 'aliases name the arrays');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(*)&id=lte.2&order=id&processes.order=id'), 200, [
    { factory: 'Factory A', id: [1, 2], name: A, factory_id: [1, 1], category_id: [1, 2] },
    { factory: 'Factory B', id: [3, 4], name: B, factory_id: [2, 2], category_id: [1, 1] },
  ], '* aggregates every column');
  expectJson(t, await s.request('/factories?select=*,...processes(process_ids:id,process_names:name)&id=lte.2&order=id&processes.order=id'), 200, [
    { id: 1, name: 'Factory A', process_ids: [1, 2], process_names: A },
    { id: 2, name: 'Factory B', process_ids: [3, 4], process_names: B },
  ], '* in the parent');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(name)&id=lte.2&order=id&processes.order=id.desc'), 200, [
    { factory: 'Factory A', name: ['Process A2', 'Process A1'] },
    { factory: 'Factory B', name: ['Process B2', 'Process B1'] },
  ], 'the children keep their order');
});

t.test('empty spreads give empty arrays; the null-embed filter and !inner apply', async (t) => {
  const s = await server(t, true);
  expectJson(t, await s.request('/factories?select=factory:name,...processes(processes:name)&processes=is.null'), 200, [
    { factory: 'Factory D', processes: [] },
  ]);
  expectJson(t, await s.request('/factories?select=factory:name,...processes(name,id)&id=gte.3&order=id'), 200, [
    { factory: 'Factory C', name: ['Process C1', 'Process C2'], id: [5, 6] },
    { factory: 'Factory D', name: [], id: [] },
  ]);
  expectJson(t, await s.request('/factories?select=factory:name,...processes!inner(id)&id=gte.3&order=id'), 200, [
    { factory: 'Factory C', id: [5, 6] },
  ]);
});

t.test('to-one relationships nested in a to-many spread', async (t) => {
  const s = await server(t, true);
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,...process_costs(process_costs:cost))&id=lte.2&order=id&processes.order=id'), 200, [
    { factory: 'Factory A', process: A, process_costs: [150, 200] },
    { factory: 'Factory B', process: B, process_costs: [180, 70] },
  ], 'nested one-to-one spread');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,...process_categories(categories:name))&id=lte.2&order=id&processes.order=id'), 200, [
    { factory: 'Factory A', process: A, categories: ['Batch', 'Mass'] },
    { factory: 'Factory B', process: B, categories: ['Batch', 'Batch'] },
  ], 'nested many-to-one spread');
  expectJson(t, await s.request('/factories?select=factory:name,...processes(process:name,process_categories(name))&id=lte.2&order=id&processes.order=id'), 200, [
    { factory: 'Factory A', process: A, process_categories: [{ name: 'Batch' }, { name: 'Mass' }] },
    { factory: 'Factory B', process: B, process_categories: [{ name: 'Batch' }, { name: 'Batch' }] },
  ], 'a nested non-spread to-one embed becomes an array of objects');
  expectJson(t, await s.request('/supervisors?select=name,...process_supervisor(processes(name,...process_costs(cost)))&id=lte.2&order=id&process_supervisor.order=process_id'), 200, [
    { name: 'Mary', processes: [{ name: 'Process A1', cost: 150 }, { name: 'Process B2', cost: 70 }] },
    { name: 'John', processes: [{ name: 'Process A2', cost: 200 }, { name: 'Process B2', cost: 70 }] },
  ], 'a to-one spread inside a non-spread embed is not aggregated');
});

t.test('a to-many spread inside an embed', async (t) => {
  const s = await server(t, true);
  expectJson(t, await s.request('/processes?select=name,factories(name,...processes(siblings:id))&id=in.(1,5)&order=id'), 200, [
    { name: 'Process A1', factories: { name: 'Factory A', siblings: [1, 2] } },
    { name: 'Process C1', factories: { name: 'Factory C', siblings: [5, 6] } },
  ]);
});

t.test('many-to-many spread', async (t) => {
  const s = await server(t, true);
  expectJson(t, await s.request('/operators?select=operator:name,...processes(name)&id=lte.2&order=id&processes.order=id'), 200, [
    { operator: 'Anne', name: ['Process A1', 'Process A2', 'Process B2'] },
    { operator: 'Louis', name: A },
  ]);
  expectJson(t, await s.request('/operators?select=operator:name,...processes(processes:name,categories:category_id)&id=lte.2&order=id&processes.order=id'), 200, [
    { operator: 'Anne', processes: ['Process A1', 'Process A2', 'Process B2'], categories: [1, 2, 1] },
    { operator: 'Louis', processes: A, categories: [1, 2] },
  ]);
  expectJson(t, await s.request('/operators?select=operator:name,...processes(processes:name)&processes=is.null'), 200, [
    { operator: 'Liz', processes: [] },
  ]);
  expectJson(t, await s.request('/processes?select=*,...operators(operator_ids:id,operator_names:name)&id=lte.2&order=id&operators.order=id'), 200, [
    { id: 1, name: 'Process A1', factory_id: 1, category_id: 1, operator_ids: [1, 2], operator_names: ['Anne', 'Louis'] },
    { id: 2, name: 'Process A2', factory_id: 1, category_id: 2, operator_ids: [1, 2, 3], operator_names: ['Anne', 'Louis', 'Jeff'] },
  ]);
});

const AGGREGATES_OFF = { code: 'DBRST123', details: null, hint: null, message: 'Use of aggregate functions is not allowed' };
const NOT_IMPLEMENTED = {
  code: 'DBRST127',
  details: 'Aggregates are not implemented for one-to-many or many-to-many spreads.',
  hint: null,
  message: 'Feature not implemented',
};

t.test('a to-many spread needs no db-aggregates-enabled; an aggregate inside one does (DBRST123)', async (t) => {
  const s = await server(t, false);
  expectJson(t, await s.request('/factories?select=factory:name,...processes(name)&order=name'), 200, [
    { factory: 'Factory A', name: ['Process A1', 'Process A2'] },
    { factory: 'Factory B', name: ['Process B1', 'Process B2'] },
    { factory: 'Factory C', name: ['Process C1', 'Process C2'] },
    { factory: 'Factory D', name: [] },
  ], 'o2m spread, aggregates off (SpreadQueriesSpec)');
  const m2m = await s.request('/operators?select=*,...processes(name)&order=id&id=eq.1');
  expectJson(t, m2m, 200, [{ id: 1, name: ['Process A1', 'Process A2', 'Process B2'] }], 'm2m spread, aggregates off');
  expectJson(t, await s.request('/factories?select=...processes(id.count())'), 400, AGGREGATES_OFF);
  expectJson(t, await s.request('/processes?select=id,...factories(name)&id=eq.1'), 200, [{ id: 1, name: 'Factory A' }], 'to-one spreads still work');
});

t.test('aggregates inside a to-many spread are not implemented (DBRST127)', async (t) => {
  const s = await server(t, true);
  expectJson(t, await s.request('/factories?select=name,...processes(category_id,id.sum())'), 400, NOT_IMPLEMENTED);
  expectJson(t, await s.request('/operators?select=name,...processes(count())'), 400, NOT_IMPLEMENTED);
});

t.test('aggregates inside to-one spreads are computed at the parent, grouped by its columns', async (t) => {
  const s = await server(t, true);
  expectJson(t, await s.request('/process_supervisor?select=supervisor_id,...processes(count())&order=supervisor_id'), 200, [
    { supervisor_id: 1, count: 2 }, { supervisor_id: 2, count: 2 }, { supervisor_id: 3, count: 3 }, { supervisor_id: 4, count: 1 },
  ], 'count() alone');
  expectJson(t, await s.request('/process_supervisor?select=supervisor_id,...processes(processes_count:count())&order=supervisor_id'), 200, [
    { supervisor_id: 1, processes_count: 2 }, { supervisor_id: 2, processes_count: 2 }, { supervisor_id: 3, processes_count: 3 }, { supervisor_id: 4, processes_count: 1 },
  ], 'count() with an alias');
  expectJson(t, await s.request('/process_supervisor?select=...supervisors(supervisor:id,supervisor_count:count())&order=supervisors(supervisor)'), 200, [
    { supervisor: 1, supervisor_count: 2 }, { supervisor: 2, supervisor_count: 2 }, { supervisor: 3, supervisor_count: 3 }, { supervisor: 4, supervisor_count: 1 },
  ], 'grouped by a column of the spread');
  expectJson(t, await s.request('/process_supervisor?select=supervisor:supervisor_id,...processes(...process_costs(process_costs_count:count()))&order=supervisor_id'), 200, [
    { supervisor: 1, process_costs_count: 2 }, { supervisor: 2, process_costs_count: 2 }, { supervisor: 3, process_costs_count: 3 }, { supervisor: 4, process_costs_count: 1 },
  ], 'nested spreads');
  expectJson(t, await s.request('/process_supervisor?select=...processes(factory:factory_id,processes_count:count(),...process_costs(process_costs_count:count()))&order=processes(factory)'), 200, [
    { factory: 1, processes_count: 2, process_costs_count: 2 },
    { factory: 2, processes_count: 4, process_costs_count: 4 },
    { factory: 3, processes_count: 2, process_costs_count: 2 },
  ], 'different levels at once, grouped by a spread column');
  expectJson(t, await s.request('/process_supervisor?select=supervisor_id,...processes(...process_costs(total:cost.sum()))&order=supervisor_id'), 200, [
    { supervisor_id: 1, total: 220 }, { supervisor_id: 2, total: 270 }, { supervisor_id: 3, total: 290 }, { supervisor_id: 4, total: 180 },
  ], 'sum with an alias');
  expectJson(t, await s.request('/processes?select=...process_categories(category:name),...process_costs(total:cost.sum())&order=process_categories(category)'), 200, [
    { category: 'Batch', total: 470 }, { category: 'Mass', total: 240 },
  ], 'grouped by another spread');
  expectJson(t, await s.request('/supervisors?select=name,process_supervisor(...processes(...process_costs(cost_sum:cost.sum()),...process_categories(category:name)))&id=in.(1,4)&order=id'), 200, [
    { name: 'Mary', process_supervisor: [{ category: 'Batch', cost_sum: 220 }] },
    { name: 'Sarah', process_supervisor: [{ category: 'Batch', cost_sum: 180 }] },
  ], 'inside an embed');
  expectJson(t, await s.request('/supervisors?select=name,process_supervisor(...processes(...process_costs(cost_sum:cost.sum()),...process_categories(category:name)))&id=eq.5'), 200, [
    { name: 'Jane', process_supervisor: [] },
  ], 'inside an embed, no rows');
});

t.test('aggregates inside a to-one spread need db-aggregates-enabled (DBRST123)', async (t) => {
  const s = await server(t, false);
  expectJson(t, await s.request('/process_supervisor?select=...processes(id.count())'), 400, AGGREGATES_OFF);
  expectJson(t, await s.request('/process_supervisor?select=...processes(count())'), 400, AGGREGATES_OFF);
});
