// planRead on the read.sql cache fixture: the plan's shape, and every error the planner raises.
import t from 'tap';
import { planRead } from '../../../src/plan/read-plan.js';
import type { QueryParams } from '../../../src/request/types.js';
import { compile } from '../../../src/sql/fragment.js';
import { buildReadStatement } from '../../../src/sql/read.js';
import { cache, deepFreeze } from './cache-fixture.js';
import { planErr, planOk, query } from './query.js';

t.test('root node', async (t) => {
  const p = planOk('projects', 'select=id,label:name&id=gt.1&order=name.desc.nullslast&limit=2&offset=1');
  t.same(p.source, { kind: 'relation', name: { schema: 'test', name: 'projects' } });
  t.equal(p.root.alias, 'projects');
  t.same(p.range, { offset: 1, limit: 2 });
  t.equal(p.defaultSelect, false);
  t.same(p.root.select, [
    { kind: 'field', field: { column: 'id', jsonPath: [], toJsonb: false, type: 'integer' }, cast: null, aggregate: null, aggregateCast: null, outputName: 'id' },
    { kind: 'field', field: { column: 'name', jsonPath: [], toJsonb: false, type: 'text' }, cast: null, aggregate: null, aggregateCast: null, outputName: 'label' },
  ]);
  t.same(p.root.where, [
    { kind: 'filter', field: { column: 'id', jsonPath: [], toJsonb: false, type: 'integer' }, negated: false, operation: { kind: 'simple', op: 'gt', value: '1', quantifier: null } },
  ]);
  t.same(p.root.order, [{ embed: null, field: { column: 'name', jsonPath: [], toJsonb: false, type: 'text' }, direction: 'desc', nulls: 'last' }]);
  t.equal(planOk('projects', '').defaultSelect, true);
  t.equal(planOk('projects', 'select=*').defaultSelect, true);
});

t.test('output names follow PostgREST', async (t) => {
  const p = planOk('items', 'select=data->>color,data->tags->0,data->1,numbers->0,n:data->x,rating.sum(),rating.max()::text,count(),c:count()');
  t.same(p.root.select.map((s) => (s.kind === 'star' ? '*' : s.outputName)), ['color', 'tags', 'data', 'numbers', 'n', 'sum', 'max', 'count', 'c']);
  const paths = p.root.select.flatMap((s) => (s.kind === 'field' ? [s.field.toJsonb] : []));
  t.same(paths, [false, false, false, true, false, false, false], 'to_jsonb only for non-json columns with a path');
});

t.test('aggregates expand * and group', async (t) => {
  const p = planOk('clients', 'select=*,count()');
  t.equal(p.root.aggregates, true);
  t.same(p.root.select.map((s) => (s.kind === 'star' ? '*' : s.outputName)), ['id', 'name', 'count']);
  t.equal(planOk('clients', 'select=*').root.aggregates, false);
});

t.test('embeds', async (t) => {
  const p = planOk('projects', 'select=id,client:clients!inner(name),project_invoices(),...clients(client_name:name)');
  t.same(
    p.root.embeds.map((e) => [e.outputName, e.toOne, e.joinType, e.spread, e.silent, e.lateralAlias, e.node.alias]),
    [
      ['client', true, 'inner', false, false, 'projects_client_1', 'clients_1'],
      ['project_invoices', false, 'left', false, true, 'projects_project_invoices_1', 'project_invoices_1'],
      ['clients', true, 'left', true, false, 'projects_clients_1', 'clients_1'],
    ],
  );
  const q = planOk('projects', 'select=id,clients(name),tasks(id,users(name))&tasks.limit=3&tasks.users.order=name&tasks.users.limit=1');
  const tasks = q.root.embeds[1]!;
  t.same([tasks.outputName, tasks.toOne, tasks.lateralAlias, tasks.node.alias, tasks.node.range], ['tasks', false, 'projects_tasks_1', 'tasks_1', { offset: 0, limit: 3 }]);
  const users = tasks.node.embeds[0]!;
  t.same([users.outputName, users.lateralAlias, users.node.alias, users.node.depth, users.node.range], ['users', 'tasks_users_2', 'users_2', 2, { offset: 0, limit: 1 }]);
  t.equal(users.join.kind === 'fk' && users.join.junction?.table.name, 'users_tasks');
  t.same(users.node.order.map((o) => o.field.column), ['name']);
});

t.test('db-max-rows caps every node', async (t) => {
  const p = planOk('clients', 'select=name,projects(name)&projects.limit=50', { maxRows: 10 });
  t.same(p.range, { offset: 0, limit: 10 });
  t.same(p.root.embeds[0]!.node.range, { offset: 0, limit: 10 });
});

t.test('null-embed filters and DBRST120', async (t) => {
  const p = planOk('clients', 'select=name,projects(name)&projects=not.is.null');
  t.same(p.root.where, [{ kind: 'embed-exists', embed: 'projects', exists: true }]);
  const q = planOk('clients', 'select=name,projs:projects(name)&or=(projs.is.null,id.eq.1)');
  t.same((q.root.where[0] as unknown as { children: unknown[] }).children[0], { kind: 'embed-exists', embed: 'projs', exists: false });
  t.same(planErr('clients', 'select=name,projects(name)&projects=eq.1'), {
    code: 'DBRST120',
    status: 400,
    message: "Bad operator on the 'projects' embedded resource",
    details: 'Only is null or not is null filters are allowed on embedded resources',
    hint: null,
  });
});

t.test('unknown columns are 42703 like PostgreSQL says', async (t) => {
  t.same(planErr('projects', 'select=nme'), {
    code: '42703',
    status: 400,
    message: 'column projects.nme does not exist',
    details: null,
    hint: 'Perhaps you meant to reference the column "projects.name".',
  });
  t.match(planErr('projects', 'nope=eq.1'), { code: '42703', message: 'column projects.nope does not exist', hint: 'Perhaps you meant to reference the column "projects.name".' }, 'filter (PostgreSQL suggests name: distance 2)');
  t.match(planErr('projects', 'nothing=eq.1'), { code: '42703', message: 'column projects.nothing does not exist', hint: null }, 'nothing close: no hint');
  t.match(planErr('projects', 'order=nope'), { code: '42703', message: 'column projects.nope does not exist' }, 'order');
  t.match(planErr('projects', 'select=id,clients(nope)'), { code: '42703', message: 'column clients_1.nope does not exist' }, 'embedded select (PostgREST aliases an embedded table <table>_<depth>)');
  t.match(planErr('projects', 'select=id,clients(id)&clients.nope=eq.1'), { code: '42703', message: 'column clients_1.nope does not exist' }, 'embedded filter');
  t.match(planErr('projects', 'select=id,clients(id)&order=clients(name)'), { code: '42703', message: 'column projects_clients_1.name does not exist' }, 'related order on an unselected column');
  t.match(planErr('projects', 'or=(id.eq.1,nope.eq.2)'), { code: '42703' }, 'inside a logic tree');
  t.match(planErr('items', 'select=nope->>a'), { code: '42703' }, 'JSON path on an unknown column');
});

t.test('DBRST108: embed paths must be in select', async (t) => {
  const e = {
    code: 'DBRST108',
    status: 400,
    message: "'clients' is not an embedded resource in this request",
    details: null,
    hint: "Verify that 'clients' is included in the 'select' query parameter.",
  };
  t.same(planErr('projects', 'clients.name=eq.x'), e, 'filter');
  t.same(planErr('projects', 'clients.order=name'), e, 'order');
  t.same(planErr('projects', 'clients.limit=1'), e, 'limit');
  t.same(planErr('projects', 'clients.or=(id.eq.1)'), e, 'logic tree');
  t.same(planErr('projects', 'order=clients(name)'), e, 'related order');
  t.match(planErr('projects', 'select=id,tasks(id)&tasks.users.name=eq.x'), { code: 'DBRST108', message: "'users' is not an embedded resource in this request" }, 'nested');
});

t.test('DBRST118: related order needs a to-one embed', async (t) => {
  t.same(planErr('clients', 'select=*,projects(*)&order=projects(name)'), {
    code: 'DBRST118',
    status: 400,
    message: "A related order on 'projects' is not possible",
    details: "'clients' and 'projects' do not form a many-to-one or one-to-one relationship",
    hint: null,
  });
});

t.test('to-many spreads (PostgREST v13+): aggregates on, none inside; to-many embeds inside are planned', async (t) => {
  const p = planOk('clients', 'select=*,...projects(id,name)');
  t.same(p.root.embeds.map((e) => [e.outputName, e.toOne, e.spread]), [['projects', false, true]]);
  t.same(planOk('clients', 'select=*,...projects(id,name)', { aggregates: false }).root.embeds.map((e) => [e.outputName, e.toOne, e.spread]), [['projects', false, true]], 'no aggregates needed');
  t.same(planErr('clients', 'select=...projects(id.sum())'), {
    code: 'DBRST127',
    status: 400,
    message: 'Feature not implemented',
    details: 'Aggregates are not implemented for one-to-many or many-to-many spreads.',
    hint: null,
  });
  const nested = planOk('clients', 'select=...projects(tasks(id))').root.embeds[0]!.node.embeds[0]!;
  t.same([nested.outputName, nested.toOne, nested.spread], ['tasks', false, false], 'a to-many embed inside is planned (sql/read.ts joins it as rows)');
});

t.test('aggregates inside a to-one spread are hoisted: the parent groups', async (t) => {
  const p = planOk('projects', 'select=name,...clients(id.sum())');
  t.equal(p.root.aggregates, true, 'the parent aggregates');
  t.equal(p.root.embeds[0]!.node.hoisted, true, 'the spread outputs raw values');
  t.equal(planOk('projects', 'select=name,...clients(name)').root.embeds[0]!.node.hoisted, false, 'no aggregate, nothing hoisted');
  t.equal(planOk('projects', 'select=name,clients(id.sum())').root.aggregates, false, 'a non-spread embed groups itself');
  t.match(planErr('projects', 'select=...clients(count())', { aggregates: false }), { code: 'DBRST123' });
});

t.test('DBRST123: aggregates disabled', async (t) => {
  const e = { code: 'DBRST123', status: 400, message: 'Use of aggregate functions is not allowed', details: null, hint: null };
  t.same(planErr('projects', 'select=id.sum()', { aggregates: false }), e);
  t.same(planErr('projects', 'select=count()', { aggregates: false }), e);
  t.same(planErr('clients', 'select=projects(id.max())', { aggregates: false }), e, 'inside an embed');
});

t.test('relationship and table errors surface', async (t) => {
  t.match(planErr('projectz', ''), { code: 'DBRST205', status: 404 });
  t.match(planErr('messages', 'select=users(*)'), { code: 'DBRST201', status: 300 });
  t.match(planErr('projects', 'select=clientz(*)'), { code: 'DBRST200', status: 400 });
});

t.test('DBRST103 from the ranges', async (t) => {
  t.match(planErr('projects', '', { range: { first: 5, last: 2 } }), { code: 'DBRST103', status: 416 });
  // A negative embed limit is refused by the planner (416), as PostgREST does.
  const base = query('select=id,tasks(id)');
  const negative: QueryParams = { ...base, ranges: [{ path: ['tasks'], offset: 0, limit: -1 }] };
  const r = planRead({ schema: 'test', relation: 'projects', query: negative, range: null, count: null }, cache, { dbMaxRows: null, dbAggregatesEnabled: true });
  t.match(r, { ok: false, error: { code: 'DBRST103', status: 416, details: 'Limit should be greater than or equal to zero.' } });
});

t.test('casts are validated even if the grammar let one through', async (t) => {
  const base = query('select=id');
  const hostile: QueryParams = {
    ...base,
    select: [{ kind: 'field', field: { name: 'id', jsonPath: [] }, alias: null, cast: 'int); DROP TABLE x; --', aggregate: null, aggregateCast: null }],
  };
  const r = planRead({ schema: 'test', relation: 'projects', query: hostile, range: null, count: null }, cache, { dbMaxRows: null, dbAggregatesEnabled: true });
  t.match(r, { ok: false, error: { code: 'DBRST100' } });
  const fine: QueryParams = {
    ...base,
    select: [{ kind: 'field', field: { name: 'id', jsonPath: [] }, alias: null, cast: ' double   precision[] ', aggregate: null, aggregateCast: null }],
  };
  const f = planRead({ schema: 'test', relation: 'projects', query: fine, range: null, count: null }, cache, { dbMaxRows: null, dbAggregatesEnabled: true });
  t.match(f, { ok: true, value: { root: { select: [{ cast: 'double precision[]' }] } } });
});

t.test('a frozen plan builds (the builders do not mutate)', async (t) => {
  const p = deepFreeze(planOk('clients', 'select=*,projects(name,tasks(*)),client_info(address)&projects=not.is.null&order=name&projects.order=id'));
  t.doesNotThrow(() => compile(buildReadStatement(p, { count: 'exact', maxRows: 10 })));
});
