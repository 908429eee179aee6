// Pagination and Count (PostgREST docs; seed "Pagination rules", "Count rules"): the envelope's
// total_count/page_count, limit/offset/Range with db-max-rows, the EXPLAIN statement for planned
// counts, and reads whose source is a function call.
import t from 'tap';
import { compile, sql, value } from '../../../src/sql/fragment.js';
import { buildReadStatement } from '../../../src/sql/read.js';
import { planReadFromCall } from '../../../src/plan/read-plan.js';
import { query } from '../../unit/plan/query.js';
import { plannedRows, read, readDatabase } from './helpers.js';

const db = await readDatabase(t);

const names = (b: unknown) => (b as Array<{ name: string }>).map((r) => r.name);

t.test('exact count', async (t) => {
  const r = await read(db, 'projects', 'select=name&order=id&limit=2', { countMode: 'exact' });
  t.same(names(r.body), ['Windows 7', 'Windows 10']);
  t.equal(r.total_count, '5');
  t.equal(r.page_count, '2');
  const f = await read(db, 'projects', 'select=name&id=gt.2', { countMode: 'exact' });
  t.equal(f.total_count, '3', 'counts the filtered rows');
  t.equal(f.page_count, '3');
  const none = await read(db, 'projects', 'select=name', {});
  t.equal(none.total_count, null, 'no count requested');
});

t.test('estimated count: exact up to db-max-rows, else max+1 (the caller then consults the plan)', async (t) => {
  const over = await read(db, 'projects', 'select=name', { countMode: 'estimated', maxRows: 2 });
  t.equal(over.total_count, '3');
  t.equal(over.page_count, '2', 'db-max-rows caps the page');
  const under = await read(db, 'projects', 'select=name', { countMode: 'estimated', maxRows: 10 });
  t.equal(under.total_count, '5');
  const at = await read(db, 'projects', 'select=name&id=lt.3', { countMode: 'estimated', maxRows: 2 });
  t.equal(at.total_count, '2', 'exactly max rows is still exact');
});

t.test('planned count statement', async (t) => {
  const n = await plannedRows(db, 'projects', 'id=gt.2');
  t.type(n, 'number');
  t.ok(n >= 1);
});

t.test('limit, offset, Range and db-max-rows', async (t) => {
  t.same(names((await read(db, 'projects', 'select=name&order=id&limit=2&offset=1')).body), ['Windows 10', 'IOS']);
  t.same(names((await read(db, 'projects', 'select=name&order=id&offset=3')).body), ['OSX', 'Orphan']);
  t.same(names((await read(db, 'projects', 'select=name&order=id', { range: { first: 1, last: 2 } })).body), ['Windows 10', 'IOS']);
  t.same(names((await read(db, 'projects', 'select=name&order=id', { range: { first: 3, last: null } })).body), ['OSX', 'Orphan']);
  t.same(names((await read(db, 'projects', 'select=name&order=id&limit=10', { range: { first: 1, last: 3 }, maxRows: 2 })).body), ['Windows 10', 'IOS']);
  t.same(names((await read(db, 'projects', 'select=name&order=id&limit=0')).body), [], 'limit=0');
  t.same(names((await read(db, 'projects', 'select=name&order=id&offset=10')).body), [], 'past the end');
  const embedded = await read(db, 'clients', 'select=name,projects(name)&order=id&projects.order=id', { maxRows: 1 });
  t.same(embedded.body, [{ name: 'Microsoft', projects: [{ name: 'Windows 7' }] }], 'db-max-rows applies to embeds too');
});

t.test('a function call as the source', async (t) => {
  const projects = db.cache.relations.find((r) => r.schema === 'test' && r.name === 'projects')!;
  const source = {
    kind: 'call' as const,
    from: sql`"test"."projects_of"(${value(2)})`,
    columns: projects.columns,
    relation: { schema: 'test', name: 'projects' },
  };
  const plan = planReadFromCall(
    { schema: 'test', source, query: query('select=id,name,clients(name),tasks(name)&tasks.order=id&order=id.desc&limit=1'), range: null, count: 'exact' },
    db.cache,
    { dbMaxRows: null, dbAggregatesEnabled: true },
  );
  if (!plan.ok) throw new Error(JSON.stringify(plan.error));
  const stmt = compile(buildReadStatement(plan.value, { count: 'exact', maxRows: null }));
  const [row] = await db.query<{ body: string; total_count: string; page_count: string }>(stmt.text, [...stmt.values]);
  t.same(JSON.parse(row!.body), [{ id: 4, name: 'OSX', clients: { name: 'Apple' }, tasks: [{ name: 'Design OSX' }, { name: 'Code OSX' }] }]);
  t.equal(row!.total_count, '2');
  t.equal(row!.page_count, '1');
});
