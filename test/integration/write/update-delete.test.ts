// PATCH and DELETE with filters, limited update/delete (order + limit), representations and
// Content-Range (PostgREST docs: Tables and Views › Update, Delete, Limited Update/Delete;
// UpdateSpec, DeleteSpec).
import t from 'tap';
import { startWriteServer, tableRows } from './write-server.js';

t.test('Update', async (t) => {
  const s = await startWriteServer(t);

  t.test('PATCH with a filter: 204, Content-Range 0-(n-1)/*', async (t) => {
    const res = await s.request('/items?id=in.(1,2)', { method: 'PATCH', body: { name: 'renamed' } });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.equal(res.headers['content-range'], '0-1/*');
    t.same(await s.db.query('SELECT id, name FROM items WHERE id <= 3 ORDER BY id'), [
      { id: 1, name: 'renamed' },
      { id: 2, name: 'renamed' },
      { id: 3, name: 'three' },
    ]);
  });

  t.test('PATCH matching nothing: 204, Content-Range */*; with count=exact */0', async (t) => {
    const res = await s.request('/items?id=eq.999', { method: 'PATCH', body: { name: 'x' } });
    t.equal(res.status, 204);
    t.equal(res.headers['content-range'], '*/*');
    const counted = await s.request('/items?id=eq.999', { method: 'PATCH', headers: { Prefer: 'count=exact' }, body: { name: 'x' } });
    t.equal(counted.headers['content-range'], '*/0');
  });

  t.test('return=representation: 200 with the updated rows and select=', async (t) => {
    const res = await s.request('/items?id=eq.3&select=id,name', {
      method: 'PATCH',
      headers: { Prefer: 'return=representation, count=exact' },
      body: { name: 'THREE', qty: 33 },
    });
    t.equal(res.status, 200);
    t.equal(res.headers['content-range'], '0-0/1');
    t.equal(res.headers['preference-applied'], 'return=representation, count=exact');
    t.same(res.json(), [{ id: 3, name: 'THREE' }]);
  });

  t.test('representation with an embed: the written rows joined to their relations', async (t) => {
    const res = await s.request('/projects?id=eq.3&select=name,clients(name),tasks(name)', {
      method: 'PATCH',
      headers: { Prefer: 'return=representation' },
      body: { name: 'iOS' },
    });
    t.equal(res.status, 200);
    t.same(res.json(), [{ name: 'iOS', clients: { name: 'Apple' }, tasks: [{ name: 'Design IOS' }] }]);
  });

  t.test('or= and not. filters in a PATCH', async (t) => {
    const res = await s.request('/projects?or=(id.eq.1,id.eq.2)&name=not.like.*10&select=id', {
      method: 'PATCH',
      headers: { Prefer: 'return=representation' },
      body: { status: 'archived' },
    });
    t.same(res.json(), [{ id: 1 }]);
  });

  t.test('empty object: nothing changes, 204', async (t) => {
    const before = await tableRows(s, 'items');
    const res = await s.request('/items', { method: 'PATCH', headers: { Prefer: 'return=representation' }, body: {} });
    t.equal(res.status, 200);
    t.same(res.json(), []);
    t.same(await tableRows(s, 'items'), before);
  });

  t.test('columns= and missing=default on PATCH', async (t) => {
    await s.db.query(`INSERT INTO defaults (id, label, n) VALUES (500, 'x', 1)`);
    const res = await s.request('/defaults?id=eq.500&columns=label,n&select=label,n', {
      method: 'PATCH',
      headers: { Prefer: 'return=representation, missing=default' },
      body: { label: 'y' },
    });
    t.same(res.json(), [{ label: 'y', n: 42 }]);
    t.equal(res.headers['preference-applied'], 'missing=default, return=representation');
  });

  t.test('a failing update leaves the table unchanged', async (t) => {
    const before = await tableRows(s, 'items');
    const res = await s.request('/items?id=in.(1,2)', { method: 'PATCH', body: { qty: -5 } });
    t.equal(res.status, 400);
    t.equal(res.json().code, '23514');
    t.same(await tableRows(s, 'items'), before);
  });

  t.test('unknown filter column: 400 42703, nothing changes', async (t) => {
    const before = await tableRows(s, 'items');
    const res = await s.request('/items?nope=eq.1', { method: 'PATCH', body: { name: 'z' } });
    t.equal(res.status, 400);
    t.equal(res.json().code, '42703');
    t.same(await tableRows(s, 'items'), before);
  });

  t.test('a filter on a resource the request does not embed: 400 DBRST108, never dropped (which would update every row)', async (t) => {
    const before = await tableRows(s, 'projects');
    const res = await s.request('/projects?clients.id=eq.1', { method: 'PATCH', body: { name: 'everything' } });
    t.equal(res.status, 400);
    t.same(res.json(), {
      code: 'DBRST108',
      message: "'clients' is not an embedded resource in this request",
      details: null,
      hint: "Verify that 'clients' is included in the 'select' query parameter.",
    });
    const repr = await s.request('/projects?clients.id=eq.1', { method: 'PATCH', headers: { Prefer: 'return=representation' }, body: { name: 'everything' } });
    t.equal(repr.status, 400);
    t.equal(repr.json().code, 'DBRST108');
    const unrelated = await s.request('/projects?nope.id=eq.1&select=id,nope(*)', { method: 'PATCH', body: { name: 'everything' } });
    t.equal(unrelated.status, 400);
    t.equal(unrelated.json().code, 'DBRST200');
    t.same(await tableRows(s, 'projects'), before);
  });

  t.test('a filter value that is not UTF-8: 400 DBRST100, nothing changes', async (t) => {
    const before = await tableRows(s, 'items');
    const res = await s.request('/items?name=eq.%FF', { method: 'PATCH', body: { qty: 0 } });
    t.equal(res.status, 400);
    t.same(res.json(), {
      code: 'DBRST100',
      message: 'failed to parse the query string',
      details: 'A percent-encoded name or value is not valid UTF-8',
      hint: null,
    });
    t.same(await tableRows(s, 'items'), before);
  });

  t.test('through an auto-updatable view and a view with INSTEAD OF UPDATE', async (t) => {
    const v = await s.request('/items_view?id=eq.1', { method: 'PATCH', headers: { Prefer: 'return=representation' }, body: { qty: 10 } });
    t.equal(v.status, 200);
    t.same(v.json(), [{ id: 1, name: 'renamed', qty: 10 }]);
    const trig = await s.request('/project_clients?id=eq.4', { method: 'PATCH', body: { name: 'macOS' } });
    t.equal(trig.status, 204);
    t.same(await s.db.query('SELECT name FROM projects WHERE id = 4'), [{ name: 'macOS' }]);
  });
});

t.test('Limited update/delete', async (t) => {
  const s = await startWriteServer(t);

  t.test('PATCH with limit and order changes only the first rows', async (t) => {
    const res = await s.request('/projects?order=id.desc&limit=2&select=id', {
      method: 'PATCH',
      headers: { Prefer: 'return=representation' },
      body: { status: 'late' },
    });
    t.equal(res.status, 200);
    t.same(res.json().map((r: { id: number }) => r.id).sort(), [4, 5]);
    t.same(await s.db.query(`SELECT id FROM projects WHERE status = 'late' ORDER BY id`), [{ id: 4 }, { id: 5 }]);
  });

  t.test('offset moves the window', async (t) => {
    const res = await s.request('/items?order=id&limit=1&offset=1', { method: 'DELETE', headers: { Prefer: 'return=representation' } });
    t.equal(res.status, 200);
    t.same(res.json(), [{ id: 2, name: 'two', qty: 2 }]);
    t.same(await s.db.query('SELECT id FROM items ORDER BY id'), [{ id: 1 }, { id: 3 }]);
  });

  t.test('limit without order: 400 DBRST109, nothing changes', async (t) => {
    const before = await tableRows(s, 'projects');
    const res = await s.request('/projects?limit=1', { method: 'PATCH', body: { status: 'x' } });
    t.equal(res.status, 400);
    t.equal(res.json().code, 'DBRST109');
    t.same(await tableRows(s, 'projects'), before);
  });

  t.test('through a view: rows matched by the primary key the view exposes', async (t) => {
    const res = await s.request('/items_view?order=id.desc&limit=1', { method: 'PATCH', headers: { Prefer: 'return=representation' }, body: { qty: 99 } });
    t.same(res.json(), [{ id: 3, name: 'three', qty: 99 }]);
  });
});

t.test('Delete', async (t) => {
  const s = await startWriteServer(t);

  t.test('DELETE with a filter: 204, Content-Range */*', async (t) => {
    const res = await s.request('/tasks?name=like.*w7', { method: 'DELETE' });
    t.equal(res.status, 204);
    t.equal(res.headers['content-range'], '*/*');
    t.same(await s.db.query('SELECT name FROM tasks ORDER BY id'), [{ name: 'Design IOS' }]);
  });

  t.test('return=representation and count=exact: 200, */N', async (t) => {
    const res = await s.request('/employees?id=eq.2', { method: 'DELETE', headers: { Prefer: 'return=representation, count=exact' } });
    t.equal(res.status, 200);
    t.equal(res.headers['content-range'], '*/1');
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    t.same(res.json(), [{ id: 2, name: 'Bob', salary: 200 }]);
  });

  t.test('singular: deleting two rows with Accept vnd.pgrst.object → 406, rolled back', async (t) => {
    const before = await tableRows(s, 'projects');
    const res = await s.request('/projects?id=in.(1,2)', {
      method: 'DELETE',
      headers: { Accept: 'application/vnd.pgrst.object+json', Prefer: 'return=representation' },
    });
    t.equal(res.status, 406);
    t.equal(res.json().code, 'DBRST116');
    t.same(await tableRows(s, 'projects'), before);
  });

  t.test('a foreign key violation: 409 23503, nothing deleted', async (t) => {
    const before = await tableRows(s, 'clients');
    const res = await s.request('/clients?id=eq.2', { method: 'DELETE' });
    t.equal(res.status, 409);
    t.equal(res.json().code, '23503');
    t.same(await tableRows(s, 'clients'), before);
  });

  t.test('a filter on a resource the request does not embed: 400 DBRST108, nothing deleted', async (t) => {
    const before = await tableRows(s, 'employees');
    const res = await s.request('/employees?clients.id=eq.1', { method: 'DELETE' });
    t.equal(res.status, 400);
    t.equal(res.json().code, 'DBRST108');
    t.equal(res.json().message, "'clients' is not an embedded resource in this request");
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST108');
    const limited = await s.request('/employees?clients.id=eq.1&order=id&limit=1', { method: 'DELETE', headers: { Prefer: 'return=headers-only' } });
    t.equal(limited.status, 400);
    t.equal(limited.json().code, 'DBRST108');
    t.same(await tableRows(s, 'employees'), before);
  });

  t.test('DELETE without filters removes every row', async (t) => {
    const res = await s.request('/no_pk', { method: 'DELETE', headers: { Prefer: 'count=exact' } });
    t.equal(res.status, 204);
    t.equal(res.headers['content-range'], '*/0');
  });
});
