// Issue 12 rest, item 6: an offset read picks its page on the base relation first and joins the
// embeds to the kept rows only (the embed subplan runs `limit` times, not `offset + limit` times),
// and gives exactly the rows the one-level shape gives — also where that shape is kept (ordering
// by an embedded column, `!inner`, null-embed filters).
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity3.sql')],
    config: { 'db-schemas': 'parity3', 'db-anon-role': 'postgres', 'db-plan-enabled': 'true' },
  });
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

function loopsOn(node: PlanNode, relation: string): number[] {
  const here = node['Relation Name'] === relation ? [node['Actual Loops'] ?? -1] : [];
  return [...here, ...(node.Plans ?? []).flatMap((p) => loopsOn(p, relation))];
}

async function tracksLoops(s: TestServer, path: string): Promise<number[]> {
  const res = await s.request(path, { headers: { Accept: 'application/vnd.pgrst.plan+json; options=analyze' } });
  if (res.status !== 200) throw new Error(`plan ${res.status} ${res.text}`);
  return loopsOn((res.json() as Array<{ Plan: PlanNode }>)[0]!.Plan, 'tracks');
}

t.test('the embed runs once per kept row, not once per skipped row', async (t) => {
  const s = await server(t);
  t.same(await tracksLoops(s, '/albums?select=id,title,tracks(id,name)&limit=10&offset=1500&order=id'), [10], 'limit 10 offset 1500: 10 loops');
  t.same(await tracksLoops(s, '/albums?select=id,title,tracks(id,name)&limit=5&offset=1700&order=title.desc&released=not.is.null'), [5], 'filtered and ordered by own columns: 5 loops');
  t.same(await tracksLoops(s, '/albums?select=id,title_length,tracks(id)&limit=3&offset=100&order=title_length.desc,id&title_length=gt.9'), [3], 'a computed field in filter and order: 3 loops');
  const res = await s.request('/albums?select=id,tracks(id)&limit=3&offset=1990&order=id');
  t.equal(res.status, 200, 'page status');
  t.same((res.json() as Array<{ id: number }>).map((r) => r.id), [1991, 1992, 1993], 'page rows');
  t.equal(res.headers['content-range'], '1990-1992/*', 'Content-Range of the page');
  // Ordering by an embedded column needs the join first: the old shape, every row joined.
  t.ok((await tracksLoops(s, '/albums?select=id,artists(name),tracks(id)&limit=10&offset=1500&order=artists(name),id'))[0]! > 1000, 'order by an embedded column: joins first');
});

t.test('pages equal the same slice of the unpaged read', async (t) => {
  const s = await server(t);
  const queries = [
    'select=id,title,tracks(id,name)&order=id&tracks.order=id',
    'select=id,title,artists(name),tracks(id)&order=released.desc.nullslast,id&tracks.order=id',
    'select=id,released,tracks(id)&order=released.asc.nullsfirst,id&released=gte.2000&tracks.order=id.desc&tracks.limit=2',
    'select=id,title_length,tracks(id)&order=title_length.desc,id&title_length=gt.9&tracks.order=id',
    'select=*,artists(*)&order=artist_id,id.desc&or=(released.is.null,released.lt.1965)',
    'select=id,artists(name),tracks(id)&order=artists(name),id&tracks.order=id',
    'select=id,tracks!inner(id)&order=id&tracks.id=lt.3000&tracks.order=id',
    'select=id,tracks(id)&order=id&tracks=is.null',
    'select=id,tracks(id)&order=id&tracks=not.is.null&tracks.id=gt.19000&tracks.order=id',
  ];
  for (const q of queries) {
    const all = await s.request(`/albums?${q}`);
    t.equal(all.status, 200, `${q}: unpaged status`);
    const rows = all.json() as unknown[];
    for (const [limit, offset] of [[10, 0], [7, 13], [4, Math.max(0, rows.length - 2)], [5, rows.length + 3]] as const) {
      const page = await s.request(`/albums?${q}&limit=${limit}&offset=${offset}`);
      t.equal(page.status, 200, `${q} limit ${limit} offset ${offset}: status`);
      t.same(page.json(), rows.slice(offset, offset + limit), `${q} limit ${limit} offset ${offset}: rows`);
    }
  }
});

t.test('an embedded node with its own range and embeds, and counts, keep their answers', async (t) => {
  const s = await server(t);
  const q = 'select=id,albums(id,title,tracks(id))&id=lte.3&order=id&albums.order=id&albums.tracks.order=id';
  const all = (await s.request(`/artists?${q}`)).json() as Array<{ id: number; albums: unknown[] }>;
  const paged = await s.request(`/artists?${q}&albums.limit=2&albums.offset=5`);
  t.equal(paged.status, 200, 'paged embed status');
  t.same(paged.json(), all.map((a) => ({ ...a, albums: a.albums.slice(5, 7) })), 'each artist gets the same slice of its albums');
  t.same(await tracksLoops(s, `/artists?${q}&albums.limit=2&albums.offset=5`), [6], 'tracks run for the 2 kept albums of each of 3 artists');

  const counted = await s.request('/albums?select=id,tracks(id)&order=id&offset=1995', { headers: { Prefer: 'count=exact' } });
  t.equal(counted.status, 206, 'count=exact with an offset: 206');
  t.equal(counted.headers['content-range'], '1995-1999/2000', 'Content-Range counts every row');
  t.same((counted.json() as Array<{ id: number }>).map((r) => r.id), [1996, 1997, 1998, 1999, 2000], 'the last page');
});
