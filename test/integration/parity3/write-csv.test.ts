// Issue 12 rest, item 5: `Prefer: return=representation` with `Accept: text/csv` on POST, PATCH,
// PUT and DELETE answers the same CSV bytes a GET of those rows gives (PostgreSQL's text output for
// arrays, ranges, points, bytea, jsonb; quotes doubled; newlines kept in quotes), built in SQL.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const CSV = { Accept: 'text/csv', Prefer: 'return=representation' };

t.test('CSV of written rows equals CSV of the same rows read', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity3.sql')],
    config: { 'db-schemas': 'parity3', 'db-anon-role': 'postgres' },
  });
  const read = async (q: string) => (await s.request(`/things?${q}`, { headers: { Accept: 'text/csv' } })).text;

  const row2 = { id: 2, tags: ['x', 'y z'], span: '[2,9)', pt: '(3,4)', raw: '\\x0a0b', doc: { a: null, b: [1, 'q"'] }, label: 'two\nlines, "q"' };
  const post = await s.request('/things', { method: 'POST', headers: CSV, body: row2 });
  t.equal(post.status, 201, 'POST status');
  t.equal(post.headers['content-type'], 'text/csv; charset=utf-8', 'POST content-type');
  t.equal(post.text, 'id,tags,span,pt,raw,doc,label\n2,"{x,""y z""}","[2,9)","(3,4)","\\\\x0a0b","{""a"": null, ""b"": [1, ""q\\\\""""]}","two\nlines, ""q"""', 'POST body: PostgreSQL text output');
  t.equal(post.text, await read('id=eq.2'), 'POST body equals the read of the row');

  const patch = await s.request('/things?id=eq.2&select=id,tags,span', { method: 'PATCH', headers: CSV, body: { span: '(,10]' } });
  t.equal(patch.status, 200, 'PATCH status');
  t.equal(patch.text, 'id,tags,span\n2,"{x,""y z""}","(,11)"', 'PATCH body');
  t.equal(patch.text, await read('id=eq.2&select=id,tags,span'), 'PATCH body equals the read');

  const put = await s.request('/things?id=eq.3', { method: 'PUT', headers: CSV, body: { id: 3, tags: [], span: 'empty', pt: '(0,0)', raw: null, doc: null, label: null } });
  t.equal(put.status, 201, 'PUT status');
  t.equal(put.text, 'id,tags,span,pt,raw,doc,label\n3,{},empty,"(0,0)",,,', 'PUT body');
  t.equal(put.text, await read('id=eq.3'), 'PUT body equals the read');

  const both = await read('id=in.(2,3)&order=id.desc');
  const del = await s.request('/things?id=in.(2,3)&order=id.desc', { method: 'DELETE', headers: CSV });
  t.equal(del.status, 200, 'DELETE status');
  t.equal(del.text, both, 'DELETE body equals the read of the rows before, in its order');

  const none = await s.request('/things?id=eq.99', { method: 'DELETE', headers: CSV });
  t.equal(none.status, 200, 'DELETE of nothing status');
  t.equal(none.text, await read('id=eq.99'), 'no rows: the same body as a read of no rows');
});
