// server-max-response-bytes (issue #26): an answer built whole is measured in PostgreSQL and one
// over the cap is refused 400 DBRST702 (a write rolled back) instead of being sent; a streamed
// answer is not bounded.
import t from 'tap';
import { startQuickstart } from './quickstart.js';

const BLOBS = `
CREATE TABLE blobs (id int PRIMARY KEY, body text NOT NULL);
INSERT INTO blobs SELECT i, repeat('x', 1000) FROM generate_series(1, 8) AS i;
GRANT SELECT, INSERT ON blobs TO web_anon;
CREATE FUNCTION big_text(n int) RETURNS text LANGUAGE sql STABLE AS $$ SELECT repeat('y', n) $$;
`;

t.test('server-max-response-bytes=4096', async (t) => {
  const s = await startQuickstart(t, { 'server-max-response-bytes': '4096' }, [BLOBS]);

  t.test('a buffered read under the cap is answered', async (t) => {
    const res = await s.request('/blobs?limit=3');
    t.equal(res.status, 200);
    t.equal(res.json().length, 3);
  });

  t.test('one over it: 400 DBRST702 with a hint', async (t) => {
    const res = await s.request('/blobs?limit=5');
    t.equal(res.status, 400);
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST702');
    const body = res.json();
    t.match(body.message, /^The response would be \d+ bytes; at most 4096 are sent whole$/);
    t.ok(Number(/(\d+) bytes/.exec(body.message)![1]) > 5000, 'the size PostgreSQL measured');
    t.match(body.hint, /limit/);
    t.equal((await s.request('/blobs?limit=1')).status, 200, 'the server answers the next request');
  });

  t.test('other representations and calls are measured too', async (t) => {
    const csv = await s.request('/blobs?limit=5', { headers: { Accept: 'text/csv' } });
    t.equal(csv.json().code, 'DBRST702', 'CSV');
    const count = await s.request('/blobs', { headers: { Prefer: 'count=exact' } });
    t.equal(count.json().code, 'DBRST702', 'a counted read is buffered');
    t.equal((await s.request('/rpc/big_text?n=100')).status, 200);
    t.equal((await s.request('/rpc/big_text?n=5000')).json().code, 'DBRST702', 'a scalar call');
  });

  t.test('a write whose representation is over the cap is rolled back', async (t) => {
    const big = { id: 100, body: 'z'.repeat(5000) };
    const refused = await s.request('/blobs', { method: 'POST', headers: { Prefer: 'return=representation' }, body: big });
    t.equal(refused.status, 400);
    t.equal(refused.json().code, 'DBRST702');
    t.same(await s.db.query('SELECT id FROM blobs WHERE id = 100'), [], 'nothing was written');
    const minimal = await s.request('/blobs', { method: 'POST', body: big });
    t.equal(minimal.status, 201, 'the same write without its representation');
  });

  t.test('a streamed answer is not bounded', async (t) => {
    const res = await s.request('/blobs');
    t.equal(res.status, 200);
    t.ok(res.bytes.length > 8000, `${res.bytes.length} bytes`);
  });
});

t.test('0: no cap', async (t) => {
  const s = await startQuickstart(t, { 'server-max-response-bytes': '0' }, [BLOBS]);
  const res = await s.request('/blobs?limit=8');
  t.equal(res.status, 200);
  t.equal(res.json().length, 8);
});
