// Issue 28, PostgREST's SpreadQueriesSpec: `/grandchild_entities?select=name,...child_entities(…)
// &limit=3` answers the first three rows as the table holds them. With no `order=` PostgREST's
// LIMIT comes after the to-one joins, where PostgreSQL can read the base relation in order and stop
// early; picking the page first and joining it afterwards let a hash join reorder the page
// (second, first, third). Without `order=` neither statement promises an order: this is parity with
// PostgREST's statement, as its spec checks it.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity7-order.sql')],
    config: { 'db-schemas': 'parity7_order', 'db-anon-role': 'postgres' },
  });
}

t.test('a limit without an order, through to-one spreads, answers the rows as PostgREST', async (t) => {
  const s = await server(t);
  const spread = await s.request('/streets?select=name,...towns(town:name,...regions(region:name))&limit=3');
  t.equal(spread.status, 200);
  t.same(spread.json(), [
    { name: 'first', town: 'ash', region: 'west' },
    { name: 'second', town: 'ash', region: 'west' },
    { name: 'third', town: 'birch', region: 'west' },
  ]);

});

t.test('an offset page is still the same slice of the ordered read', async (t) => {
  const s = await server(t);
  const all = (await s.request('/streets?select=name,towns(name)&order=id')).json() as Array<{ name: string }>;
  const page = await s.request('/streets?select=name,towns(name)&order=id&limit=2&offset=1');
  t.equal(page.status, 200);
  t.same(page.json(), all.slice(1, 3));
});
