// Reads of one shape with other filter values share one prepared read (http/read-template.ts):
// only the values are put into the statements, the Content-Location is the read's own. Over HTTP,
// many values of one shape give their own rows and locations; shapes whose values change the SQL
// (in-lists, is.*, like patterns, (any) lists, limits) are answered for what they ask; a streamed
// shape still streams; and in process, two reads of one shape are seen to share one preparation.
import t from 'tap';
import { prepareRead } from '../../../src/http/read-prep.js';
import { parseRequest } from '../../../src/request/parse-request.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const FIXTURE = `
CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, flag boolean, tags text[] NOT NULL DEFAULT '{}', doc tsvector);
INSERT INTO items (id, name, flag, tags, doc)
  SELECT i, 'item ' || i, CASE i % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END,
         ARRAY['t' || (i % 4)], to_tsvector('simple', CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END)
  FROM generate_series(1, 300) i;
CREATE FUNCTION prepared_here() RETURNS SETOF text LANGUAGE sql AS
  $$ SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%"items"%' $$;
`;

const start = (t: { teardown(f: () => unknown): void }, config: Record<string, string> = {}): Promise<TestServer> =>
  startTestServer(t, { fixtures: [FIXTURE], config: { 'db-anon-role': 'postgres', ...config } });

t.test('many values of one shape give their own rows and Content-Location', async (t) => {
  const s = await start(t);
  for (const id of [7, 1, 250, 42, 300, 3, 7]) {
    const r = await s.request(`/items?select=id,name&id=eq.${id}`);
    t.equal(r.status, 200);
    t.same(r.json(), [{ id, name: `item ${id}` }], `id ${id}`);
    t.equal(r.headers['content-location'], `/items?id=eq.${id}&select=id%2Cname`);
  }
  // Two values in one shape, in either order of the values; a value that needs percent-encoding.
  for (const [lo, hi] of [[10, 12], [200, 203], [5, 5]] as const) {
    const r = await s.request(`/items?select=id&id=gte.${lo}&id=lte.${hi}&order=id`);
    t.same(r.json().map((x: { id: number }) => x.id), Array.from({ length: hi - lo + 1 }, (_, i) => lo + i), `${lo}..${hi}`);
  }
  const named = await s.request('/items?select=id&name=eq.item%2042');
  t.same(named.json(), [{ id: 42 }]);
  t.equal(named.headers['content-location'], '/items?name=eq.item%2042&select=id');
  t.same((await s.request('/items?select=id&name=eq.item+7')).json(), [{ id: 7 }], '+ is a space');
  t.same((await s.request('/items?select=id&name=neq.item%201&id=lt.3')).json(), [{ id: 2 }]);
  t.same((await s.request('/items?select=id&id=not.eq.1&id=lt.3')).json(), [{ id: 2 }], 'not.eq');
  t.same((await s.request('/items?select=id&tags=cs.{t1}&id=lt.6&order=id')).json(), [{ id: 1 }, { id: 5 }], 'an array operator');
  t.same((await s.request('/items?select=id&doc=fts(simple).even&id=lt.5&order=id')).json(), [{ id: 2 }, { id: 4 }], 'full text');
  t.same((await s.request('/items?select=id&doc=fts(simple).odd&id=lt.5&order=id')).json(), [{ id: 1 }, { id: 3 }]);
  // A value the column's type refuses is PostgreSQL's error, as before; a bad filter is a 400.
  const bad = await s.request('/items?select=id&id=eq.abc');
  t.equal(bad.status, 400);
  t.equal(bad.json().code, '22P02');
  t.same((await s.request('/items?select=id,name&id=eq.8')).json(), [{ id: 8, name: 'item 8' }], 'and the shape still answers');
  const unknownOp = await s.request('/items?select=id&id=equals.8');
  t.equal(unknownOp.status, 400);
  t.equal(unknownOp.json().code, 'DBRST100');
});

t.test('one URL read again and again, its headers changing between reads, answers for each read', async (t) => {
  const s = await start(t);
  // The key and the Content-Location of the read seen last are kept (http/read-prep.ts): a read
  // that repeats the URL but not the headers, or the headers but not the URL, is its own.
  const reads: Array<[string, Record<string, string>, string, string]> = [
    ['/items?select=id&id=eq.7', {}, '[{"id":7}]', '0-0/*'],
    ['/items?select=id&id=eq.7', { Prefer: 'count=exact' }, '[{"id":7}]', '0-0/1'],
    ['/items?select=id&id=eq.7', { Prefer: 'count=exact' }, '[{"id":7}]', '0-0/1'],
    ['/items?select=id&id=eq.7', { Accept: 'text/csv' }, 'id\n7', '0-0/*'],
    ['/items?select=id&id=eq.8', { Accept: 'text/csv' }, 'id\n8', '0-0/*'],
    ['/items?select=id&id=eq.8', {}, '[{"id":8}]', '0-0/*'],
    ['/items?select=id&id=eq.8', { Range: '0-0', 'Range-Unit': 'items' }, '[{"id":8}]', '0-0/*'],
    ['/items?select=id&id=lte.3&order=id', { Range: '1-1' }, '[{"id":2}]', '1-1/*'],
    ['/items?select=id&id=lte.3&order=id', {}, '[{"id":1}, \n {"id":2}, \n {"id":3}]', '0-2/*'],
    ['/items?select=id&id=eq.7', {}, '[{"id":7}]', '0-0/*'],
  ];
  for (const [url, headers, body, range] of reads) {
    const r = await s.request(url, { headers });
    const what = `${url} ${JSON.stringify(headers)}`;
    t.equal(r.text, body, what);
    t.equal(r.headers['content-range'], range, what);
    t.equal(r.headers['content-location'], `/items?${url.slice('/items?'.length).split('&').sort().join('&').replace(',', '%2C')}`, what);
  }
});

t.test('values that change the SQL are answered for what they ask', async (t) => {
  const s = await start(t);
  const ids = async (url: string): Promise<number[]> => {
    const r = await s.request(url);
    t.equal(r.status, 200, url);
    return r.json().map((x: { id: number }) => x.id);
  };
  t.same(await ids('/items?select=id&id=in.(1,2)&order=id'), [1, 2]);
  t.same(await ids('/items?select=id&id=in.(4,5,6)&order=id'), [4, 5, 6], 'a longer in-list');
  t.same(await ids('/items?select=id&id=in.()'), [], 'an empty one');
  t.same(await ids('/items?select=id&flag=is.null&id=lt.7&order=id'), [3, 6]);
  t.same(await ids('/items?select=id&flag=is.true&id=lt.7&order=id'), [1, 4]);
  t.same(await ids('/items?select=id&flag=is.false&id=lt.7&order=id'), [2, 5]);
  t.same(await ids('/items?select=id&name=like.item 2*&id=lt.30&order=id'), [2, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
  t.same(await ids('/items?select=id&name=like.item 1&id=lt.30'), [1], 'a pattern without *');
  t.same(await ids('/items?select=id&name=ilike.ITEM 29*&id=lt.100&order=id'), [29]);
  t.same(await ids('/items?select=id&id=eq(any).{3,9}&order=id'), [3, 9]);
  t.same(await ids('/items?select=id&id=gt.290&order=id&limit=2'), [291, 292]);
  t.same(await ids('/items?select=id&id=gt.290&order=id&limit=3&offset=1'), [292, 293, 294]);
  t.same(await ids('/items?select=id&id=gt.295&order=id.desc'), [300, 299, 298, 297, 296]);
  t.same(await ids('/items?select=id&or=(id.eq.1,id.eq.2)&order=id'), [1, 2]);
  t.same(await ids('/items?select=id&or=(id.eq.3,id.eq.300)&order=id'), [3, 300], 'a logic tree keeps its values');
});

t.test('a large shape still streams, and a small read of it is answered whole', async (t) => {
  const s = await start(t, { 'server-stream-threshold': '50' });
  const big = await s.request('/items?select=id&id=gt.10&order=id');
  t.equal(big.status, 200);
  t.equal(big.json().length, 290);
  t.equal(big.headers['transfer-encoding'], 'chunked', 'streamed');
  t.equal(big.headers['content-range'], undefined, 'no Content-Range on a stream');
  const small = await s.request('/items?select=id&id=gt.297&order=id');
  t.same(small.json(), [{ id: 298 }, { id: 299 }, { id: 300 }]);
  t.equal(small.headers['content-location'], '/items?id=gt.297&order=id&select=id');
  const again = await s.request('/items?select=id&id=gt.100&order=id');
  t.equal(again.json().length, 200);
  t.equal(again.json()[0].id, 101);
});

t.test('two reads of one shape share one preparation, and one prepared statement in PostgreSQL', async (t) => {
  const s = await start(t, { 'db-pool': '1' });
  const cache = s.server.app.cache()!;
  const read = (url: string) => {
    const req = parseRequest({ method: 'GET', url, headers: {}, body: null }, { schemas: s.config.dbSchemas, routineArgNames: () => null });
    if (!req.ok) throw new Error(JSON.stringify(req.error));
    const r = prepareRead(req.value, 'items', cache, s.config);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.value;
  };
  const a = read('/items?select=id&id=eq.1');
  const b = read('/items?select=id&id=eq.2');
  t.equal(b.shape, a.shape, 'one shape');
  t.equal(b.plan, a.plan, 'the second read is not planned again');
  t.equal(b.statements[0]!.text, a.statements[0]!.text);
  t.not(a.statements[0]!.values.indexOf('1'), -1);
  t.same(b.statements[0]!.values, a.statements[0]!.values.map((v) => (v === '1' ? '2' : v)), 'only the value differs');
  t.equal(b.location, '/items?id=eq.2&select=id');
  t.not(read('/items?select=id&id=in.(1)').shape, read('/items?select=id&id=in.(2)').shape, 'in-lists stay in the key');

  for (let id = 1; id <= 30; id++) t.same((await s.request(`/items?select=id&id=eq.${id}`)).json(), [{ id }]);
  const prepared = (await s.request('/rpc/prepared_here')).json() as string[];
  t.equal(prepared.filter((x) => x.includes('"id" = $')).length, 1, 'thirty ids, one statement parsed on the one connection');
});
