// Prefer on writes: tx=commit|rollback under db-tx-end, max-affected with handling=strict,
// handling=strict with unknown preferences, and Preference-Applied as PostgREST formats it
// (PostgREST docs: Preferences; PreferencesSpec).
import t from 'tap';
import { startWriteServer, tableRows } from './write-server.js';

t.test('Prefer: tx', async (t) => {
  const s = await startWriteServer(t);

  t.test('tx=rollback: the response shows the write, the database does not keep it', async (t) => {
    const before = await tableRows(s, 'items');
    const res = await s.request('/items', {
      method: 'POST',
      headers: { Prefer: 'return=representation, tx=rollback' },
      body: { id: 90, name: 'ghost' },
    });
    t.equal(res.status, 201);
    t.equal(res.headers['preference-applied'], 'return=representation, tx=rollback');
    t.same(res.json(), [{ id: 90, name: 'ghost', qty: 1 }]);
    t.same(await tableRows(s, 'items'), before);
  });

  t.test('tx=rollback still checks deferred constraints (SET CONSTRAINTS ALL IMMEDIATE)', async (t) => {
    const res = await s.request('/deferred_checks', { method: 'POST', headers: { Prefer: 'tx=rollback' }, body: { id: 1, parent: 99 } });
    t.equal(res.status, 409);
    t.equal(res.json().code, '23503');
  });

  t.test('tx=commit is echoed', async (t) => {
    const res = await s.request('/items', { method: 'POST', headers: { Prefer: 'tx=commit' }, body: { id: 91 } });
    t.equal(res.status, 201);
    t.equal(res.headers['preference-applied'], 'tx=commit');
    t.same(await s.db.query('SELECT id FROM items WHERE id = 91'), [{ id: 91 }]);
  });
});

t.test('db-tx-end=rollback ignores Prefer: tx and never keeps a write', async (t) => {
  const s = await startWriteServer(t, { 'db-tx-end': 'rollback' });
  const before = await tableRows(s, 'items');
  const res = await s.request('/items', { method: 'POST', headers: { Prefer: 'tx=commit' }, body: { id: 92 } });
  t.equal(res.status, 201);
  t.equal(res.headers['preference-applied'], undefined);
  t.same(await tableRows(s, 'items'), before);
});

t.test('db-tx-end=rollback-allow-override: tx=commit keeps the write', async (t) => {
  const s = await startWriteServer(t, { 'db-tx-end': 'rollback-allow-override' });
  const res = await s.request('/items', { method: 'POST', headers: { Prefer: 'tx=commit' }, body: { id: 93 } });
  t.equal(res.status, 201);
  t.equal(res.headers['preference-applied'], 'tx=commit');
  t.same(await s.db.query('SELECT id FROM items WHERE id = 93'), [{ id: 93 }]);
  const plain = await s.request('/items', { method: 'POST', body: { id: 94 } });
  t.equal(plain.status, 201);
  t.same(await s.db.query('SELECT id FROM items WHERE id = 94'), []);
});

t.test('Prefer: max-affected', async (t) => {
  const s = await startWriteServer(t);

  t.test('strict and exceeded: 400 DBRST124, transaction rolled back', async (t) => {
    const before = await tableRows(s, 'projects');
    const res = await s.request('/projects?id=lt.4', {
      method: 'PATCH',
      headers: { Prefer: 'handling=strict, max-affected=2' },
      body: { status: 'touched' },
    });
    t.equal(res.status, 400);
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST124');
    t.same(res.json(), {
      code: 'DBRST124',
      details: 'The query affects 3 rows',
      hint: null,
      message: 'Query result exceeds max-affected preference constraint',
    });
    t.same(await tableRows(s, 'projects'), before);
  });

  t.test('strict and within the limit: applied and echoed', async (t) => {
    const res = await s.request('/projects?id=lt.3', {
      method: 'PATCH',
      headers: { Prefer: 'handling=strict, max-affected=2' },
      body: { status: 'touched' },
    });
    t.equal(res.status, 204);
    t.equal(res.headers['preference-applied'], 'handling=strict, max-affected=2');
  });

  t.test('DELETE exceeded: nothing deleted', async (t) => {
    const before = await tableRows(s, 'tasks');
    const res = await s.request('/tasks', { method: 'DELETE', headers: { Prefer: 'handling=strict, max-affected=1' } });
    t.equal(res.status, 400);
    t.equal(res.json().code, 'DBRST124');
    t.same(await tableRows(s, 'tasks'), before);
  });

  t.test('lenient: ignored, not echoed', async (t) => {
    const res = await s.request('/tasks?id=gt.0', { method: 'PATCH', headers: { Prefer: 'max-affected=1' }, body: { done: true } });
    t.equal(res.status, 204);
    t.equal(res.headers['preference-applied'], undefined);
    t.same(await s.db.query('SELECT count(*)::int AS n FROM tasks WHERE done'), [{ n: 3 }]);
  });
});

t.test('Prefer: handling=strict with an unknown preference: 400 DBRST122, nothing written', async (t) => {
  const s = await startWriteServer(t);
  const res = await s.request('/items', { method: 'POST', headers: { Prefer: 'handling=strict, nonsense=1, return=bogus' }, body: { id: 95 } });
  t.equal(res.status, 400);
  t.same(res.json(), {
    code: 'DBRST122',
    details: 'Invalid preferences: nonsense=1, return=bogus',
    hint: null,
    message: 'Invalid preferences given with handling=strict',
  });
  t.same(await s.db.query('SELECT id FROM items WHERE id = 95'), []);
  const lenient = await s.request('/items', { method: 'POST', headers: { Prefer: 'handling=lenient, nonsense=1' }, body: { id: 96 } });
  t.equal(lenient.status, 201);
  t.equal(lenient.headers['preference-applied'], 'handling=lenient');
});

t.test('Preference-Applied lists preferences in PostgREST order', async (t) => {
  const s = await startWriteServer(t);
  const res = await s.request('/employees', {
    method: 'POST',
    headers: { Prefer: 'handling=lenient, count=exact, tx=commit, return=representation, missing=default, resolution=merge-duplicates, params=single-object' },
    body: { id: 20, name: 'Zed' },
  });
  t.equal(res.status, 201);
  t.equal(
    res.headers['preference-applied'],
    'resolution=merge-duplicates, missing=default, return=representation, count=exact, tx=commit, handling=lenient',
  );
  t.equal(res.headers['content-range'], '*/1');
});

t.test('Accept: application/vnd.pgrst.plan (db-plan-enabled) explains a write or a call', async (t) => {
  const s = await startWriteServer(t, { 'db-plan-enabled': 'true' });
  const res = await s.request('/items', { method: 'POST', headers: { Accept: 'application/vnd.pgrst.plan+json' }, body: { id: 97 } });
  t.equal(res.status, 200);
  t.equal(res.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8', 'for= names the planned media, JSON by default (PostgREST PlanSpec)');
  t.match(res.json(), [{ Plan: { 'Node Type': String } }]);
  t.same(await s.db.query('SELECT id FROM items WHERE id = 97'), [], 'without analyze nothing runs');
  const call = await s.request('/rpc/all_items', { headers: { Accept: 'application/vnd.pgrst.plan' } });
  t.equal(call.status, 200);
  t.match(call.text, /Function Scan|Aggregate/);
});
