// POST on tables and views (PostgREST docs: Tables and Views › Insert, Bulk Insert, Specifying
// Columns; InsertSpec). Every failing write is followed by a look at the table: unchanged.
import t from 'tap';
import { startWriteServer, tableRows } from './write-server.js';

const json = { 'Content-Type': 'application/json' };

t.test('Insert', async (t) => {
  const s = await startWriteServer(t);

  t.test('single object, return=minimal by default: 201, no body, Content-Range */*', async (t) => {
    const res = await s.request('/items', { method: 'POST', body: { id: 10, name: 'ten', qty: 5 } });
    t.equal(res.status, 201);
    t.equal(res.text, '');
    t.equal(res.headers['content-range'], '*/*');
    t.equal(res.headers['location'], undefined);
    t.equal(res.headers['content-type'], undefined);
    t.equal(res.headers['preference-applied'], undefined);
    t.same(await s.db.query('SELECT * FROM items WHERE id = 10'), [{ id: 10, name: 'ten', qty: 5 }]);
  });

  t.test('return=representation: the inserted row, 201, Content-Type, Preference-Applied', async (t) => {
    const res = await s.request('/items', {
      method: 'POST',
      headers: { Prefer: 'return=representation' },
      body: { id: 11, name: 'eleven' },
    });
    t.equal(res.status, 201);
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(res.headers['preference-applied'], 'return=representation');
    t.equal(res.headers['content-range'], '*/*');
    t.same(res.json(), [{ id: 11, name: 'eleven', qty: 1 }]);
  });

  t.test('return=representation with select= and a to-one embed', async (t) => {
    const res = await s.request('/projects?select=id,name,client:clients(name)', {
      method: 'POST',
      headers: { Prefer: 'return=representation' },
      body: { id: 20, name: 'Surface', client_id: 1 },
    });
    t.equal(res.status, 201);
    t.same(res.json(), [{ id: 20, name: 'Surface', client: { name: 'Microsoft' } }]);
  });

  t.test('return=representation with a to-many embed and a filter on it', async (t) => {
    await s.db.query(`INSERT INTO tasks (project_id, name) VALUES (1, 'Test w7')`);
    const res = await s.request('/clients?select=name,projects(id,tasks(name))&projects.id=eq.1&projects.tasks.order=name', {
      method: 'POST',
      headers: { Prefer: 'return=representation' },
      body: { id: 9, name: 'Nine' },
    });
    t.equal(res.status, 201);
    t.same(res.json(), [{ name: 'Nine', projects: [] }]);
  });

  t.test('return=headers-only: Location built from the primary key', async (t) => {
    const res = await s.request('/items', { method: 'POST', headers: { Prefer: 'return=headers-only' }, body: { id: 12, name: 'twelve' } });
    t.equal(res.status, 201);
    t.equal(res.text, '');
    t.equal(res.headers['location'], '/items?id=eq.12');
    t.equal(res.headers['preference-applied'], 'return=headers-only');
  });

  t.test('Location with a composite key and characters that need escaping', async (t) => {
    const res = await s.request('/compound', { method: 'POST', headers: { Prefer: 'return=headers-only' }, body: { k1: 2, k2: 'a b&c', v: 'x' } });
    t.equal(res.status, 201);
    t.equal(res.headers['location'], '/compound?k1=eq.2&k2=eq.a%20b%26c');
  });

  t.test('no Location for a bulk insert or a table without a key', async (t) => {
    const bulk = await s.request('/items', { method: 'POST', headers: { Prefer: 'return=headers-only' }, body: [{ id: 13 }, { id: 14 }] });
    t.equal(bulk.status, 201);
    t.equal(bulk.headers['location'], undefined);
    const nopk = await s.request('/no_pk', { method: 'POST', headers: { Prefer: 'return=headers-only' }, body: { a: 1 } });
    t.equal(nopk.status, 201);
    t.equal(nopk.headers['location'], undefined);
  });

  t.test('bulk array: one statement, count=exact gives Content-Range */N', async (t) => {
    const res = await s.request('/bulk', {
      method: 'POST',
      headers: { Prefer: 'count=exact' },
      body: [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: null }],
    });
    t.equal(res.status, 201);
    t.equal(res.headers['content-range'], '*/3');
    t.equal(res.headers['preference-applied'], 'count=exact');
    t.same(await tableRows(s, 'bulk'), [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: null }]);
  });

  t.test('bulk of 10,000 rows in one request', async (t) => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: 1000 + i, v: `v${i}` }));
    const res = await s.request('/bulk', { method: 'POST', headers: { Prefer: 'count=exact' }, body: rows });
    t.equal(res.status, 201);
    t.equal(res.headers['content-range'], '*/10000');
    t.same(await s.db.query('SELECT count(*)::int AS n, min(id) AS lo, max(id) AS hi FROM bulk WHERE id >= 1000'), [{ n: 10000, lo: 1000, hi: 10999 }]);
  });

  t.test('bulk with different keys: 400 DBRST102 "All object keys must match", nothing inserted', async (t) => {
    const before = await tableRows(s, 'bulk');
    const res = await s.request('/bulk', { method: 'POST', body: [{ id: 7, v: 'a' }, { id: 8 }] });
    t.equal(res.status, 400);
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST102');
    t.equal(res.json().code, 'DBRST102');
    t.equal(res.json().message, 'All object keys must match');
    t.same(await tableRows(s, 'bulk'), before);
  });

  t.test('columns= picks the keys: others are ignored, missing ones are NULL (or DEFAULT)', async (t) => {
    const res = await s.request('/items?columns=id,name', {
      method: 'POST',
      headers: { Prefer: 'return=representation' },
      body: [{ id: 30, name: 'a', qty: 9, extra: 'ignored' }, { id: 31 }],
    });
    t.equal(res.status, 201);
    t.same(res.json(), [{ id: 30, name: 'a', qty: 1 }, { id: 31, name: null, qty: 1 }]);
  });

  t.test('columns= naming an unknown column: 400 DBRST204', async (t) => {
    const res = await s.request('/items?columns=id,nope', { method: 'POST', body: { id: 32 } });
    t.equal(res.status, 400);
    t.same(res.json(), {
      code: 'DBRST204',
      details: null,
      hint: null,
      message: "Could not find the 'nope' column of 'items' in the schema cache",
    });
    t.same(await s.db.query('SELECT * FROM items WHERE id = 32'), []);
  });

  t.test('a payload key that is not a column: 400 DBRST204', async (t) => {
    const res = await s.request('/items', { method: 'POST', body: { id: 33, colour: 'red' } });
    t.equal(res.status, 400);
    t.equal(res.json().code, 'DBRST204');
  });

  t.test('empty and malformed bodies: 400 DBRST102 with the parser position in details', async (t) => {
    const empty = await s.request('/items', { method: 'POST', headers: json, body: '' });
    t.equal(empty.status, 400);
    t.equal(empty.json().code, 'DBRST102');
    t.equal(empty.json().message, 'Empty or invalid json');
    const bad = await s.request('/items', { method: 'POST', headers: json, body: '{"id": 1,}' });
    t.equal(bad.status, 400);
    t.equal(bad.json().message, 'Empty or invalid json');
    t.match(bad.json().details, /position 9/);
  });

  t.test('a body that is not UTF-8 is refused (400 DBRST102), never stored with U+FFFD; nothing inserted', async (t) => {
    const before = await tableRows(s, 'items');
    const cafe = (prefix: string, suffix = '') => Buffer.concat([Buffer.from(prefix), Buffer.from([0xe9]), Buffer.from(suffix)]); // Latin-1 é
    const jsonBody = await s.request('/items', { method: 'POST', headers: json, body: cafe('{"id": 60, "name": "caf', '"}') });
    t.equal(jsonBody.status, 400);
    t.same(jsonBody.json(), {
      code: 'DBRST102',
      message: 'Empty or invalid json',
      details: 'The request body is not valid UTF-8: invalid byte sequence at byte 23',
      hint: null,
    });
    t.equal(jsonBody.headers['proxy-status'], 'dbrest; error=DBRST102');
    // With columns= the JSON is not parsed in Node, but it is still checked.
    const columns = await s.request('/items?columns=id,name', { method: 'POST', headers: json, body: cafe('[{"id": 60, "name": "caf', '"}]') });
    t.equal(columns.status, 400);
    t.equal(columns.json().details, 'The request body is not valid UTF-8: invalid byte sequence at byte 24');
    const csv = await s.request('/items', { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: cafe('id,name\n61,caf', '\n') });
    t.equal(csv.status, 400);
    t.same(csv.json(), {
      code: 'DBRST102',
      message: 'The request body is not valid UTF-8',
      details: 'The request body is not valid UTF-8: invalid byte sequence at byte 14',
      hint: null,
    });
    const form = await s.request('/items', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: cafe('id=62&name=caf') });
    t.equal(form.status, 400);
    t.equal(form.json().message, 'The request body is not valid UTF-8');
    // A percent-escape of a byte that is not UTF-8 (URLSearchParams would read U+FFFD).
    const escaped = await s.request('/items', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'id=62&name=caf%E9' });
    t.equal(escaped.status, 400);
    t.same(escaped.json(), {
      code: 'DBRST102',
      message: 'The request body is not valid UTF-8',
      details: 'A percent-encoded name or value of the form body is not valid UTF-8',
      hint: null,
    });
    t.same(await tableRows(s, 'items'), before);
    // The same text, well encoded, is stored as sent.
    const ok = await s.request('/items', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Prefer: 'return=representation' },
      body: 'id=62&name=caf%C3%A9',
    });
    t.equal(ok.status, 201);
    t.same(ok.json(), [{ id: 62, name: 'café', qty: 1 }]);
  });

  t.test('a __proto__ key in a form or CSV body is a key like any other: 400 DBRST204, not dropped', async (t) => {
    const form = await s.request('/items', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'id=63&__proto__=x' });
    t.equal(form.status, 400);
    t.same(form.json(), { code: 'DBRST204', message: "Could not find the '__proto__' column of 'items' in the schema cache", details: null, hint: null });
    const csv = await s.request('/items', { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: '__proto__,id\nx,64' });
    t.equal(csv.status, 400);
    t.equal(csv.json().code, 'DBRST204');
    t.same(await s.db.query('SELECT * FROM items WHERE id IN (63, 64)'), []);
  });

  t.test('an embed named in select= that does not exist fails even with return=minimal: 400 DBRST200', async (t) => {
    const res = await s.request('/items?select=id,nope(*)', { method: 'POST', body: { id: 65 } });
    t.equal(res.status, 400);
    t.equal(res.json().code, 'DBRST200');
    t.equal(res.json().message, "Could not find a relationship between 'items' and 'nope' in the schema cache");
    t.same(await s.db.query('SELECT * FROM items WHERE id = 65'), []);
  });

  t.test('unsupported Content-Type: 400 DBRST102', async (t) => {
    const res = await s.request('/items', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' });
    t.equal(res.status, 400);
    t.equal(res.json().message, 'Content-Type not acceptable: text/plain');
  });

  t.test('{} inserts a row of defaults, [] inserts nothing', async (t) => {
    const one = await s.request('/defaults', { method: 'POST', headers: { Prefer: 'return=representation' }, body: {} });
    t.equal(one.status, 201);
    const row = one.json()[0];
    t.equal(row.label, 'none');
    t.equal(row.n, 42);
    const none = await s.request('/defaults', { method: 'POST', headers: { Prefer: 'return=representation,count=exact' }, body: [] });
    t.equal(none.status, 201);
    t.same(none.json(), []);
    t.equal(none.headers['content-range'], '*/0');
  });

  t.test('missing=default: absent keys take the column DEFAULT, present ones keep their value', async (t) => {
    await s.db.query(`SELECT setval('counter_seq', 100)`);
    const res = await s.request('/defaults?columns=id,label,n,counter,plain&select=id,label,n,counter,plain', {
      method: 'POST',
      headers: { Prefer: 'return=representation, missing=default' },
      body: [{ id: 100, label: 'given' }, { id: 101, n: 7, counter: 5 }],
    });
    t.equal(res.status, 201);
    t.equal(res.headers['preference-applied'], 'missing=default, return=representation');
    t.same(res.json(), [
      { id: 100, label: 'given', n: 42, counter: 101, plain: null },
      { id: 101, label: 'none', n: 7, counter: 5, plain: null },
    ]);
    // The sequence moved twice: each default runs for every row, as PostgREST's (the second row
    // gives its counter but still draws 102).
    t.same(await s.db.query(`SELECT last_value FROM counter_seq`), [{ last_value: '102' }]);
  });

  t.test('missing=null (the default behaviour) leaves absent keys NULL', async (t) => {
    const res = await s.request('/defaults?columns=id,label', {
      method: 'POST',
      headers: { Prefer: 'return=representation, missing=null' },
      body: { id: 102 },
    });
    t.equal(res.status, 201);
    t.equal(res.json()[0].label, null);
    t.equal(res.headers['preference-applied'], 'missing=null, return=representation');
  });

  t.test('types from the schema cache: numeric, arrays, jsonb', async (t) => {
    const res = await s.request('/projects?select=id,budget,tags,meta', {
      method: 'POST',
      headers: { Prefer: 'return=representation' },
      body: { id: 40, name: 'typed', budget: 12.345, tags: ['a', 'b'], meta: { x: [1, 2] } },
    });
    t.equal(res.status, 201);
    t.same(res.json(), [{ id: 40, budget: 12.35, tags: ['a', 'b'], meta: { x: [1, 2] } }]);
  });

  t.test('CSV body: header line, NULL as null', async (t) => {
    const res = await s.request('/items', {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv', Prefer: 'return=representation' },
      body: 'id,name,qty\n50,"fifty, half",5\n51,NULL,6\n',
    });
    t.equal(res.status, 201);
    t.same(res.json(), [{ id: 50, name: 'fifty, half', qty: 5 }, { id: 51, name: null, qty: 6 }]);
  });

  t.test('CSV with a short line: 400 DBRST102, nothing inserted', async (t) => {
    const res = await s.request('/items', { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: 'id,name\n52,x\n53\n' });
    t.equal(res.status, 400);
    t.equal(res.json().message, 'All lines must have same number of fields');
    t.same(await s.db.query('SELECT * FROM items WHERE id IN (52, 53)'), []);
  });

  t.test('CSV representation: Accept: text/csv', async (t) => {
    const res = await s.request('/items', {
      method: 'POST',
      headers: { Prefer: 'return=representation', Accept: 'text/csv' },
      body: { id: 54, name: 'csv' },
    });
    t.equal(res.status, 201);
    t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    t.equal(res.text, 'id,name,qty\n54,csv,1');
  });

  t.test('form-urlencoded body', async (t) => {
    const res = await s.request('/items', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Prefer: 'return=representation' },
      body: 'id=55&name=John+Doe',
    });
    t.equal(res.status, 201);
    t.same(res.json(), [{ id: 55, name: 'John Doe', qty: 1 }]);
  });

  t.test('singular Accept: one object; two rows → 406 DBRST116 and nothing inserted', async (t) => {
    const one = await s.request('/items', {
      method: 'POST',
      headers: { Prefer: 'return=representation', Accept: 'application/vnd.pgrst.object+json' },
      body: { id: 56, name: 'single' },
    });
    t.equal(one.status, 201);
    t.equal(one.headers['content-type'], 'application/vnd.pgrst.object+json; charset=utf-8');
    t.same(one.json(), { id: 56, name: 'single', qty: 1 });
    const two = await s.request('/items', {
      method: 'POST',
      headers: { Prefer: 'return=representation', Accept: 'application/vnd.pgrst.object+json' },
      body: [{ id: 57 }, { id: 58 }],
    });
    t.equal(two.status, 406);
    t.equal(two.json().code, 'DBRST116');
    t.equal(two.json().details, 'The result contains 2 rows');
    t.same(await s.db.query('SELECT * FROM items WHERE id IN (57, 58)'), []);
  });

  t.test('constraint errors keep the database unchanged: 23505 → 409, 23503 → 409, 23514 → 400', async (t) => {
    const before = await tableRows(s, 'items');
    const dup = await s.request('/items', { method: 'POST', body: [{ id: 60 }, { id: 1 }] });
    t.equal(dup.status, 409);
    t.equal(dup.json().code, '23505');
    const check = await s.request('/items', { method: 'POST', body: { id: 61, qty: -1 } });
    t.equal(check.status, 400);
    t.equal(check.json().code, '23514');
    t.same(await tableRows(s, 'items'), before);
    const projects = await tableRows(s, 'projects');
    const fk = await s.request('/projects', { method: 'POST', body: { name: 'x', client_id: 999 } });
    t.equal(fk.status, 409);
    t.equal(fk.json().code, '23503');
    t.same(await tableRows(s, 'projects'), projects);
  });

  t.test('unknown table: 404 DBRST205', async (t) => {
    const res = await s.request('/itemz', { method: 'POST', body: { id: 1 } });
    t.equal(res.status, 404);
    t.equal(res.json().code, 'DBRST205');
    t.equal(res.json().hint, "Perhaps you meant the table 'public.items'");
  });
});

t.test('Insert through views', async (t) => {
  const s = await startWriteServer(t);

  t.test('auto-updatable view', async (t) => {
    const res = await s.request('/items_view', { method: 'POST', headers: { Prefer: 'return=representation' }, body: { id: 70, name: 'via view' } });
    t.equal(res.status, 201);
    t.same(res.json(), [{ id: 70, name: 'via view', qty: 1 }]);
    t.same(await s.db.query('SELECT * FROM items WHERE id = 70'), [{ id: 70, name: 'via view', qty: 1 }]);
  });

  t.test('view with INSTEAD OF triggers', async (t) => {
    const res = await s.request('/project_clients', { method: 'POST', headers: { Prefer: 'return=representation' }, body: { id: 71, name: 'Trig', client: 'Apple' } });
    t.equal(res.status, 201);
    t.same(res.json(), [{ id: 71, name: 'Trig', client: 'Apple' }]);
    t.same(await s.db.query('SELECT id, name, client_id FROM projects WHERE id = 71'), [{ id: 71, name: 'Trig', client_id: 2 }]);
  });

  t.test('read-only view: PostgreSQL refuses with 55000, which the error model answers 500', async (t) => {
    const res = await s.request('/client_counts', { method: 'POST', body: { client_id: 1, n: 1 } });
    t.equal(res.status, 500);
    t.equal(res.headers['proxy-status'], 'dbrest; error=55000');
    t.match(res.json().message, /cannot insert into view "client_counts"/);
  });
});

t.test('privileges: 42501 → 401 for the anonymous role', async (t) => {
  const s = await startWriteServer(t, { 'db-anon-role': 'write_limited' });
  const res = await s.request('/projects', { method: 'POST', body: { name: 'nope' } });
  t.equal(res.status, 401);
  t.equal(res.json().code, '42501');
  const minimal = await s.request('/items', { method: 'POST', body: { id: 80 } });
  t.equal(minimal.status, 201, 'return=minimal needs no SELECT privilege');
  const repr = await s.request('/items', { method: 'POST', headers: { Prefer: 'return=representation' }, body: { id: 81 } });
  t.equal(repr.status, 401, 'representation needs SELECT');
  t.same(await s.db.query('SELECT id FROM items WHERE id IN (80, 81) ORDER BY id'), [{ id: 80 }]);
});
