// Reads are prepared once per shape (http/read-prep.ts): what is kept is the plan and the SQL, never
// the answer. Over HTTP, a repeated read sees the data as it is now; a request differing only in
// Accept, Prefer, Range or method is answered for what it asks; a schema reload is seen at once;
// and a failure (400, 406, …) is never kept.
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const FIXTURE = `
CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL);
INSERT INTO notes VALUES (1, 'one'), (2, 'two'), (3, 'three');
`;

t.test('a read of one shape, repeated, is answered from the data as it is', async (t) => {
  const s = await startTestServer(t, { fixtures: [FIXTURE], config: { 'db-anon-role': 'postgres' } });
  const url = '/notes?select=id,body&id=lte.2&order=id.desc';
  const first = await s.request(url);
  t.equal(first.status, 200);
  t.same(first.json(), [{ id: 2, body: 'two' }, { id: 1, body: 'one' }]);
  t.equal(first.headers['content-location'], '/notes?id=lte.2&order=id.desc&select=id%2Cbody');

  await s.db.query("UPDATE notes SET body = 'deux' WHERE id = 2");
  await s.db.query("INSERT INTO notes VALUES (0, 'zero')");
  const again = await s.request(url);
  t.same(again.json(), [{ id: 2, body: 'deux' }, { id: 1, body: 'one' }, { id: 0, body: 'zero' }], 'the new rows, not the first answer');
  t.equal(again.headers['content-location'], first.headers['content-location']);
  t.equal(again.headers['content-range'], '0-2/*');

  const other = await s.request('/notes?select=id,body&id=lte.1&order=id.desc');
  t.same(other.json(), [{ id: 1, body: 'one' }, { id: 0, body: 'zero' }], 'another value is another shape');
});

t.test('the same URL with another Accept, Prefer, Range or method gets its own answer', async (t) => {
  const s = await startTestServer(t, { fixtures: [FIXTURE], config: { 'db-anon-role': 'postgres' } });
  const url = '/notes?select=id&order=id';
  t.same((await s.request(url)).json(), [{ id: 1 }, { id: 2 }, { id: 3 }]);

  const csv = await s.request(url, { headers: { Accept: 'text/csv' } });
  t.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
  t.equal(csv.text, 'id\n1\n2\n3');

  const counted = await s.request(url, { headers: { Prefer: 'count=exact' } });
  t.equal(counted.headers['content-range'], '0-2/3');
  t.equal(counted.headers['preference-applied'], 'count=exact');

  const ranged = await s.request(url, { headers: { Range: '1-1', Prefer: 'count=exact' } });
  t.equal(ranged.status, 206);
  t.same(ranged.json(), [{ id: 2 }]);
  t.equal(ranged.headers['content-range'], '1-1/3');

  const head = await s.request(url, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.text, '');
  t.equal(head.headers['content-range'], '0-2/*');

  const single = await s.request('/notes?select=id&id=eq.1', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
  t.same(single.json(), { id: 1 });
  t.same((await s.request('/notes?select=id&id=eq.1')).json(), [{ id: 1 }], 'and back to the array');
});

t.test('after a schema reload a read is planned against the new cache, a shape that failed included', async (t) => {
  const s = await startTestServer(t, { fixtures: [FIXTURE], config: { 'db-anon-role': 'postgres' } });
  t.same((await s.request('/notes?select=*&id=eq.1')).json(), [{ id: 1, body: 'one' }]);
  const missing = await s.request('/notes?select=id,tag&id=eq.1');
  t.equal(missing.status, 400, 'an unknown column');

  await s.db.query("ALTER TABLE notes ADD COLUMN tag text NOT NULL DEFAULT 'new'");
  t.equal((await s.request('/notes?select=id,tag&id=eq.1')).status, 400, 'the old cache does not know the column yet');
  await s.server.reloadSchemaCache();
  const star = await s.request('/notes?select=*&id=eq.1');
  t.same(star.json(), [{ id: 1, body: 'one', tag: 'new' }], 'select=* has the new column');
  const found = await s.request('/notes?select=id,tag&id=eq.1');
  t.equal(found.status, 200, 'the failed shape is planned anew');
  t.same(found.json(), [{ id: 1, tag: 'new' }]);
});
