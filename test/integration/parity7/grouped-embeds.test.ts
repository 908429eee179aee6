// Issue 28, PostgREST's AggregateFunctionsSpec ("grouped by a regular nested relationship"): an
// embed beside an aggregate is a GROUP BY key. PostgREST's embeds are jsonb, so it groups by jsonb
// and prints the embedded row in jsonb's form ({"name": "North"}); grouping by the json's text
// printed {"name":"North"} and ordered the groups by that text's hash.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity7-groups.sql')],
    config: { 'db-schemas': 'parity7_groups', 'db-anon-role': 'postgres', 'db-aggregates-enabled': 'true' },
  });
}

const byPlant = (rows: Array<Record<string, unknown>>, key: string) =>
  [...rows].sort((a, b) => JSON.stringify(a[key]).localeCompare(JSON.stringify(b[key])));

t.test('an embed grouped beside an aggregate in a to-one spread is jsonb, as PostgREST', async (t) => {
  const s = await server(t);
  const res = await s.request('/orders?select=...parts(plants(name),...part_costs(cost.sum()))');
  t.equal(res.status, 200);
  t.same(byPlant(res.json(), 'plants'), [
    { plants: { name: 'East' }, sum: 7 },
    { plants: { name: 'North' }, sum: 25 },
    { plants: { name: 'South' }, sum: 40 },
  ]);
  t.match(res.text, /\{"plants":\{"name": "North"\},"sum":25\}/, "the embedded row in jsonb's form");

  const aliased = await s.request('/orders?select=...parts(plant:plants(code,name),...part_costs(total:cost.sum()))');
  t.equal(aliased.status, 200);
  t.same(byPlant(aliased.json(), 'plant'), [
    { plant: { code: 'E1', name: 'East' }, total: 7 },
    { plant: { code: 'N1', name: 'North' }, total: 25 },
    { plant: { code: 'S1', name: 'South' }, total: 40 },
  ]);
  t.match(aliased.text, /"plant":\{"code": "N1", "name": "North"\}/, 'keys and spaces as jsonb prints them');
});

t.test('a to-one embed beside an aggregate at the root is grouped the same way', async (t) => {
  const s = await server(t);
  const res = await s.request('/parts?select=plants(name),id.count()');
  t.equal(res.status, 200);
  t.same(byPlant(res.json(), 'plants'), [
    { plants: { name: 'East' }, count: 1 },
    { plants: { name: 'North' }, count: 2 },
    { plants: { name: 'South' }, count: 1 },
  ]);
  t.match(res.text, /"plants":\{"name": "South"\}/);
});
