// Issue 28, items 1–2: answers that were wrong (too many rows) or 500s, each as PostgREST's spec has
// it (ComputedRelsSpec "right aliasing when following a normal embed", UnicodeSpec).
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('a limit counts rows after a to-one embed whose computed to-one relationship finds two', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity4.sql')],
    config: { 'db-schemas': 'parity4', 'db-anon-role': 'postgres' },
  });
  const res = await s.request('/projects?select=name,clients(name,computed_projects(name))&limit=1&order=id');
  t.equal(res.status, 200);
  t.same(res.json(), [{ name: 'Windows 7', clients: { name: 'Microsoft', computed_projects: { name: 'Windows 7' } } }]);
  const offset = await s.request('/projects?select=id,clients(name,computed_projects(name))&limit=2&offset=3&order=id');
  t.equal(offset.status, 200);
  t.equal((offset.json() as unknown[]).length, 2, 'limit 2 offset 3: two rows');
  const back = await s.request('/clients?select=name,projects(name,computed_clients(name))&limit=1&order=id');
  t.same(back.json(), [{ name: 'Microsoft', projects: [
    { name: 'Windows 7', computed_clients: { name: 'Microsoft' } },
    { name: 'Windows 10', computed_clients: { name: 'Microsoft' } },
  ] }], 'to-many embed with a computed to-one inside');
});

t.test('a schema, table and column named in Arabic script: read, insert, delete', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity4.sql')],
    config: { 'db-schemas': 'تست', 'db-anon-role': 'postgres' },
  });
  const path = '/%D9%85%D9%88%D8%A7%D8%B1%D8%AF';
  const empty = await s.request(path);
  t.equal(empty.status, 200, 'GET status');
  t.equal(empty.text, '[]');
  // Header values go out as UTF-8 bytes, as PostgREST's do.
  t.equal(Buffer.from(empty.headers['content-location']!, 'latin1').toString('utf8'), '/موارد', 'Content-Location');
  const ins = await s.request(path, {
    method: 'POST',
    headers: { Prefer: 'return=representation', 'Content-Type': 'application/json' },
    body: JSON.stringify({ 'هویت': 1 }),
  });
  t.equal(ins.status, 201, 'POST status');
  t.same(ins.json(), [{ 'هویت': 1 }]);
  const filtered = await s.request(`${path}?${encodeURIComponent('هویت')}=eq.1&select=${encodeURIComponent('هویت')}`);
  t.equal(filtered.status, 200, 'filtered GET status');
  t.same(filtered.json(), [{ 'هویت': 1 }]);
  const del = await s.request(path, { method: 'DELETE' });
  t.equal(del.status, 204, 'DELETE status');
  t.equal(del.headers['content-type'], undefined, 'no Content-Type on 204');
  t.same((await s.request(path)).json(), []);
});

t.test('aggregates in a to-one spread with a to-one embed inside it group by the embed', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'spread.sql')],
    config: { 'db-schemas': 'spread', 'db-anon-role': 'postgres', 'db-aggregates-enabled': 'true' },
  });
  const res = await s.request('/process_supervisor?select=...processes(factories(name),...process_costs(cost.sum()))');
  t.equal(res.status, 200, 'status');
  t.same((res.json() as Array<{ factories: { name: string } }>).sort((a, b) => a.factories.name.localeCompare(b.factories.name)), [
    { factories: { name: 'Factory A' }, sum: 350.0 },
    { factories: { name: 'Factory B' }, sum: 500.0 },
    { factories: { name: 'Factory C' }, sum: 110.0 },
  ]);
  const aliased = await s.request('/process_supervisor?select=...processes(factory:factories(name),...process_costs(cost_sum:cost.sum()))');
  t.equal(aliased.status, 200, 'aliased status');
  t.same((aliased.json() as Array<{ factory: { name: string }; cost_sum: number }>).sort((a, b) => a.factory.name.localeCompare(b.factory.name)), [
    { factory: { name: 'Factory A' }, cost_sum: 350.0 },
    { factory: { name: 'Factory B' }, cost_sum: 500.0 },
    { factory: { name: 'Factory C' }, cost_sum: 110.0 },
  ]);
});
