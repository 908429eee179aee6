// Vertical filtering (PostgREST docs "Vertical Filtering", "Aggregate functions"): columns, star,
// aliases, casts, JSON paths, aggregates with grouping, ordering with nulls first/last.
import t from 'tap';
import { body, read, readDatabase } from './helpers.js';

const db = await readDatabase(t);

t.test('columns, aliases and star', async (t) => {
  t.same(await body(db, 'clients', 'select=id,label:name&order=id&limit=2'), [
    { id: 1, label: 'Microsoft' },
    { id: 2, label: 'Apple' },
  ]);
  t.same(await body(db, 'clients', 'id=eq.3'), [{ id: 3, name: 'Google' }], 'no select is *');
  t.equal((await read(db, 'clients', 'select=name,*&id=eq.3')).raw, '[{"name":"Google","id":3,"name":"Google"}]', 'star after a column');
});

t.test('casts', async (t) => {
  t.same(await body(db, 'items', 'select=id,rating::text,id_text:id::text&id=eq.1'), [{ id: 1, rating: '4.5', id_text: '1' }]);
  t.same(await body(db, 'items', 'select=rating::integer&id=eq.1'), [{ rating: 5 }], 'numeric to integer rounds');
  t.same(await body(db, 'items', 'select=tags::text&id=eq.1'), [{ tags: '{fruit,red}' }]);
  t.same(await body(db, 'items', 'select=data->size::integer&id=eq.2'), [{ size: 5 }], 'cast after a JSON path');
});

t.test('JSON paths', async (t) => {
  t.same(await body(db, 'items', 'select=id,data->>color,size:data->size,data->tags->0&id=in.(1,2)&order=id'), [
    { id: 1, color: 'red', size: 3, tags: 'fruit' },
    { id: 2, color: 'yellow', size: 5, tags: 'fruit' },
  ]);
  t.same(await body(db, 'items', 'select=data->dims&id=eq.1'), [{ dims: { w: 1 } }]);
  t.same(await body(db, 'items', 'select=data->missing->>x&id=eq.1'), [{ x: null }], 'missing keys are null');
  t.same(await body(db, 'items', 'select=numbers->0,data->3&id=eq.1'), [{ numbers: 1, data: null }], 'non-json column; index-only path keeps the column name');
  t.same(await body(db, 'items', [['select', "k:data->>it's"], ['id', 'eq.1']]), [{ k: null }], 'keys are parameters');
});

t.test('order with nulls first/last', async (t) => {
  const order = async (o: string) => ((await body(db, 'items', `select=id&order=${o}`)) as Array<{ id: number }>).map((r) => r.id);
  t.same(await order('rating'), [4, 5, 2, 1, 3], 'asc: nulls last');
  t.same(await order('rating.desc'), [3, 1, 2, 5, 4], 'desc: nulls first');
  t.same(await order('rating.desc.nullslast'), [1, 2, 5, 4, 3]);
  t.same(await order('rating.asc.nullsfirst'), [3, 4, 5, 2, 1]);
  t.same(await order('rating.nullsfirst'), [3, 4, 5, 2, 1]);
  t.same(await order('active.desc,id.desc'), [4, 3, 1, 5, 2], 'several terms');
  t.same(await order('data->size.desc.nullslast,id'), [2, 1, 3, 5, 4], 'JSON path');
});

t.test('aggregates', async (t) => {
  t.same(await body(db, 'project_invoices', 'select=invoice_total.sum()'), [{ sum: 8800 }]);
  t.same(await body(db, 'project_invoices', 'select=invoice_total.max(),invoice_total.min(),invoice_total.count()'), [{ max: 4000, min: 100, count: 8 }]);
  t.same(await body(db, 'project_invoices', 'select=invoice_total.avg()::integer'), [{ avg: 1100 }]);
  t.same(await body(db, 'project_invoices', 'select=project_id,total:invoice_total.sum()&order=project_id'), [
    { project_id: 1, total: 300 },
    { project_id: 2, total: 1200 },
    { project_id: 3, total: 3200 },
    { project_id: 4, total: 4100 },
  ], 'grouped by the other columns');
  t.same(await body(db, 'project_invoices', 'select=pid:project_id,total:invoice_total.sum()::text&order=project_id.desc&limit=2'), [
    { pid: 4, total: '4100' },
    { pid: 3, total: '3200' },
  ], 'aliases and casts');
  t.same(await body(db, 'projects', 'select=count()'), [{ count: 5 }]);
  t.same(await body(db, 'projects', 'select=c:count(),client_id&order=client_id.desc'), [
    { c: 1, client_id: null },
    { c: 2, client_id: 2 },
    { c: 2, client_id: 1 },
  ]);
  t.same(await body(db, 'projects', 'select=count()::text&id=gt.3'), [{ count: '2' }]);
  t.same(await body(db, 'items', 'select=data->>color,count()&id=lt.3&order=data->>color.desc'), [
    { color: 'yellow', count: 1 },
    { color: 'red', count: 1 },
  ], 'grouped and ordered by a JSON path');
  t.same(await body(db, 'items', 'select=data->size::integer.sum()'), [{ sum: 11 }], 'aggregate over a cast JSON path');
});

t.test('aggregates in and with embeds', async (t) => {
  t.same(await body(db, 'projects', 'select=name,project_invoices(invoice_total.sum())&order=id'), [
    { name: 'Windows 7', project_invoices: [{ sum: 300 }] },
    { name: 'Windows 10', project_invoices: [{ sum: 1200 }] },
    { name: 'IOS', project_invoices: [{ sum: 3200 }] },
    { name: 'OSX', project_invoices: [{ sum: 4100 }] },
    { name: 'Orphan', project_invoices: [{ sum: null }] },
  ]);
  t.same(await body(db, 'project_invoices', 'select=project_id,total:invoice_total.sum(),projects(name)&order=project_id'), [
    { project_id: 1, total: 300, projects: { name: 'Windows 7' } },
    { project_id: 2, total: 1200, projects: { name: 'Windows 10' } },
    { project_id: 3, total: 3200, projects: { name: 'IOS' } },
    { project_id: 4, total: 4100, projects: { name: 'OSX' } },
  ], 'an embedded object joins the grouping');
  t.same(await body(db, 'project_invoices', 'select=total:invoice_total.sum(),...projects(name)&order=projects(name)'), [
    { total: 3200, name: 'IOS' },
    { total: 4100, name: 'OSX' },
    { total: 1200, name: 'Windows 10' },
    { total: 300, name: 'Windows 7' },
  ], 'grouped by spread columns');
  t.same(await body(db, 'clients', 'select=name,projects(count())&order=id'), [
    { name: 'Microsoft', projects: [{ count: 2 }] },
    { name: 'Apple', projects: [{ count: 2 }] },
    { name: 'Google', projects: [{ count: 0 }] },
  ]);
  t.same(await body(db, 'clients', 'select=count(),projects(name)&id=eq.2&projects.order=id'), [
    { count: 1, projects: [{ name: 'IOS' }, { name: 'OSX' }] },
  ], 'grouped by an embedded array');
});

t.test('empty results and the envelope', async (t) => {
  const r = await read(db, 'clients', 'id=eq.99');
  t.equal(r.raw, '[]');
  t.equal(r.page_count, '0');
  t.equal(r.total_count, null);
  t.equal(r.response_headers, null);
  t.equal(r.response_status, null);
});

t.test('hostile aliases, keys and values stay data', async (t) => {
  t.same(
    await body(db, 'items', [['select', `"we\\"ird;--":id,"x\\"y":data->>"k'ey"`], ['id', 'eq.1']]),
    [{ 'we"ird;--': 1, 'x"y': null }],
  );
  t.same(
    await body(db, 'clients', [['select', `"c); DROP TABLE test.clients; --":name,"p\\"":projects(id)`], ['id', 'eq.3']]),
    [{ 'c); DROP TABLE test.clients; --': 'Google', 'p"': [] }],
    'embed alias in the LATERAL alias',
  );
  t.same(await body(db, 'clients', [['select', 'id'], ['name', "eq.'; DROP TABLE test.clients; --"]]), []);
  t.same(await body(db, 'clients', [['select', 'count()']]), [{ count: 3 }], 'the table survived');
});
