// Upsert with POST + Prefer: resolution and on_conflict, and single-row PUT (PostgREST docs:
// Tables and Views › Upsert, On Conflict, PUT; UpsertSpec).
import t from 'tap';
import { startWriteServer, tableRows } from './write-server.js';

t.test('POST with resolution=merge-duplicates', async (t) => {
  const s = await startWriteServer(t);

  t.test('updates existing rows and inserts new ones: 201 when something was inserted', async (t) => {
    const res = await s.request('/employees', {
      method: 'POST',
      headers: { Prefer: 'resolution=merge-duplicates, return=representation' },
      body: [{ id: 1, name: 'Alice', salary: 150 }, { id: 3, name: 'Carol', salary: 300 }],
    });
    t.equal(res.status, 201);
    t.equal(res.headers['preference-applied'], 'resolution=merge-duplicates, return=representation');
    t.same(res.json(), [{ id: 1, name: 'Alice', salary: 150 }, { id: 3, name: 'Carol', salary: 300 }]);
    t.same(await tableRows(s, 'employees'), [
      { id: 1, name: 'Alice', salary: 150 },
      { id: 2, name: 'Bob', salary: 200 },
      { id: 3, name: 'Carol', salary: 300 },
    ]);
  });

  t.test('only updates: 200', async (t) => {
    const res = await s.request('/employees', {
      method: 'POST',
      headers: { Prefer: 'resolution=merge-duplicates' },
      body: [{ id: 2, name: 'Bob', salary: 250 }],
    });
    t.equal(res.status, 200);
    t.equal(res.text, '');
    t.same(await s.db.query('SELECT salary FROM employees WHERE id = 2'), [{ salary: 250 }]);
  });

  t.test('on_conflict on a unique column', async (t) => {
    const res = await s.request('/employees?on_conflict=name', {
      method: 'POST',
      headers: { Prefer: 'resolution=merge-duplicates, return=representation' },
      body: [{ id: 3, name: 'Carol', salary: 301 }, { id: 4, name: 'Dan', salary: 400 }],
    });
    t.equal(res.status, 201);
    t.same(res.json(), [{ id: 3, name: 'Carol', salary: 301 }, { id: 4, name: 'Dan', salary: 400 }]);
  });

  t.test('ignore-duplicates keeps existing rows', async (t) => {
    const res = await s.request('/employees', {
      method: 'POST',
      headers: { Prefer: 'resolution=ignore-duplicates, return=representation' },
      body: [{ id: 1, name: 'Alice', salary: 1 }, { id: 5, name: 'Eve', salary: 500 }],
    });
    t.equal(res.status, 201);
    t.equal(res.headers['preference-applied'], 'resolution=ignore-duplicates, return=representation');
    t.same(res.json(), [{ id: 5, name: 'Eve', salary: 500 }]);
    t.same(await s.db.query('SELECT salary FROM employees WHERE id = 1'), [{ salary: 150 }]);
  });

  t.test('composite primary key', async (t) => {
    const res = await s.request('/compound', {
      method: 'POST',
      headers: { Prefer: 'resolution=merge-duplicates, return=representation' },
      body: [{ k1: 1, k2: 'a', v: 'updated' }, { k1: 1, k2: 'b', v: 'new' }],
    });
    t.equal(res.status, 201);
    t.same(await tableRows(s, 'compound', 'k1, k2'), [
      { k1: 1, k2: 'a', v: 'updated' },
      { k1: 1, k2: 'b', v: 'new' },
    ]);
  });

  t.test('a table without a primary key: a plain insert, resolution not echoed', async (t) => {
    const res = await s.request('/no_pk', { method: 'POST', headers: { Prefer: 'resolution=merge-duplicates' }, body: { a: 1, b: 'x' } });
    t.equal(res.status, 201);
    t.equal(res.headers['preference-applied'], undefined);
  });

  t.test('a conflict on another unique column still fails (409), nothing written', async (t) => {
    const before = await tableRows(s, 'employees');
    const res = await s.request('/employees', {
      method: 'POST',
      headers: { Prefer: 'resolution=merge-duplicates' },
      body: [{ id: 6, name: 'Frank', salary: 1 }, { id: 7, name: 'Alice', salary: 2 }],
    });
    t.equal(res.status, 409);
    t.equal(res.json().code, '23505');
    t.same(await tableRows(s, 'employees'), before);
  });
});

t.test('PUT', async (t) => {
  const s = await startWriteServer(t);

  t.test('inserts a new row: 204 by default, 201 with representation', async (t) => {
    const res = await s.request('/employees?id=eq.10', { method: 'PUT', body: { id: 10, name: 'Ten', salary: 10 } });
    t.equal(res.status, 204);
    t.equal(res.headers['content-range'], undefined);
    const repr = await s.request('/employees?id=eq.11', {
      method: 'PUT',
      headers: { Prefer: 'return=representation' },
      body: { id: 11, name: 'Eleven', salary: 11 },
    });
    t.equal(repr.status, 201);
    t.equal(repr.headers['preference-applied'], 'return=representation');
    t.same(repr.json(), [{ id: 11, name: 'Eleven', salary: 11 }]);
  });

  t.test('replaces an existing row: 200 with representation', async (t) => {
    const res = await s.request('/employees?id=eq.1', {
      method: 'PUT',
      headers: { Prefer: 'return=representation' },
      body: { id: 1, name: 'Alicia', salary: 1 },
    });
    t.equal(res.status, 200);
    t.same(res.json(), [{ id: 1, name: 'Alicia', salary: 1 }]);
  });

  t.test('composite key', async (t) => {
    const res = await s.request('/compound?k1=eq.5&k2=eq.z', { method: 'PUT', body: { k1: 5, k2: 'z', v: 'put' } });
    t.equal(res.status, 204);
    t.same(await s.db.query(`SELECT v FROM compound WHERE k1 = 5`), [{ v: 'put' }]);
  });

  t.test('key in the URL and the body differ: 400 DBRST115, nothing written', async (t) => {
    const before = await tableRows(s, 'employees');
    const res = await s.request('/employees?id=eq.12', { method: 'PUT', body: { id: 13, name: 'X', salary: 0 } });
    t.equal(res.status, 400);
    t.same(res.json(), { code: 'DBRST115', details: null, hint: null, message: 'Payload values do not match URL in primary key column(s)' });
    const missing = await s.request('/employees?id=eq.12', { method: 'PUT', body: { name: 'X', salary: 0 } });
    t.equal(missing.status, 400);
    t.equal(missing.json().code, 'DBRST115');
    const many = await s.request('/employees?id=eq.12', { method: 'PUT', body: [{ id: 12, name: 'A' }, { id: 12, name: 'B' }] });
    t.equal(many.status >= 400, true);
    t.same(await tableRows(s, 'employees'), before);
  });

  t.test('filters that are not exactly eq on the whole key: 405 DBRST105', async (t) => {
    const message = "Filters must include all and only primary key columns with 'eq' operators";
    for (const path of ['/employees', '/employees?id=gt.1', '/employees?id=eq.1&name=eq.x', '/compound?k1=eq.1', '/employees?or=(id.eq.1)', '/employees?id=not.eq.1', '/no_pk?a=eq.1']) {
      const res = await s.request(path, { method: 'PUT', body: { id: 1, name: 'x', a: 1 } });
      t.equal(res.status, 405, path);
      t.equal(res.json().code, 'DBRST105', path);
      t.equal(res.json().message, message, path);
    }
  });

  t.test('a filter on a resource the request does not embed: 400 DBRST108, nothing written', async (t) => {
    const before = await tableRows(s, 'projects');
    const res = await s.request('/projects?id=eq.1&clients.id=eq.1', { method: 'PUT', body: { id: 1, name: 'replaced' } });
    t.equal(res.status, 400);
    t.equal(res.json().code, 'DBRST108');
    t.same(await tableRows(s, 'projects'), before);
  });

  t.test('limit/offset: 400 DBRST114', async (t) => {
    const res = await s.request('/employees?id=eq.1&limit=1', { method: 'PUT', body: { id: 1, name: 'x' } });
    t.equal(res.status, 400);
    t.same(res.json(), { code: 'DBRST114', details: null, hint: null, message: 'limit/offset querystring parameters are not allowed for PUT' });
  });
});
