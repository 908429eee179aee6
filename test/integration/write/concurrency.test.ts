// Many writes and calls of one shape at once, on a small pool: each request is planned once per
// shape (http/shape-memo.ts) and pipelined with others on a shared connection (db/leases.ts), yet
// every one keeps its own body, its own transaction and its own answer.
import t from 'tap';
import { startWriteServer, tableRows } from './write-server.js';

t.test('concurrent POSTs of one shape on two connections: every body lands once, failures change nothing', async (t) => {
  const s = await startWriteServer(t, { 'db-pool': '2' });
  const ids = Array.from({ length: 60 }, (_, i) => 1000 + i);
  // Every fifth request fails (qty -1 violates the CHECK); the others insert their own row.
  const results = await Promise.all(
    ids.map((id, i) =>
      s.request('/items', { method: 'POST', headers: { Prefer: 'return=representation' }, body: { id, name: `row ${id}`, qty: i % 5 === 4 ? -1 : i } }),
    ),
  );
  results.forEach((res, i) => {
    if (i % 5 === 4) {
      t.equal(res.status, 400, `#${i} refused`);
      t.equal(res.json().code, '23514');
    } else {
      t.equal(res.status, 201, `#${i} created`);
      t.same(res.json(), [{ id: ids[i], name: `row ${ids[i]}`, qty: i }], `#${i} got its own row back`);
    }
  });
  const stored = (await tableRows(s, 'items')).filter((r) => (r.id as number) >= 1000);
  t.same(
    stored,
    ids.flatMap((id, i) => (i % 5 === 4 ? [] : [{ id, name: `row ${id}`, qty: i }])),
    'exactly the successful rows, each once',
  );
});

t.test('concurrent calls of one shape: each gets the answer to its own arguments', async (t) => {
  const s = await startWriteServer(t, { 'db-pool': '2' });
  const pairs = Array.from({ length: 60 }, (_, i) => [i, 1000 - 3 * i] as const);
  const results = await Promise.all(pairs.map(([a, b]) => s.request('/rpc/add', { method: 'POST', body: { a, b } })));
  results.forEach((res, i) => {
    t.equal(res.status, 200);
    t.equal(res.text, String(pairs[i]![0] + pairs[i]![1]), `call #${i}`);
  });
});
