// Functions as RPC (PostgREST docs: Functions as RPC; RpcSpec): POST with named JSON arguments,
// GET/HEAD with query arguments, a single unnamed parameter, defaults, VARIADIC, overloads, the
// return shapes, filters/select/order/pagination/counts on set-returning results, errors.
import t from 'tap';
import { startWriteServer, tableRows } from '../write/write-server.js';

t.test('Calling functions', async (t) => {
  const s = await startWriteServer(t);

  t.test('POST with named JSON arguments: a scalar result', async (t) => {
    const res = await s.request('/rpc/add', { method: 'POST', body: { a: 1, b: 2 } });
    t.equal(res.status, 200);
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(res.headers['content-range'], '0-0/*');
    t.equal(res.text, '3');
  });

  t.test('GET with query arguments (immutable function)', async (t) => {
    const res = await s.request('/rpc/add?a=40&b=2');
    t.equal(res.status, 200);
    t.equal(res.text, '42');
  });

  t.test('HEAD: headers only', async (t) => {
    const res = await s.request('/rpc/add?a=1&b=1', { method: 'HEAD' });
    t.equal(res.status, 200);
    t.equal(res.text, '');
    t.equal(res.headers['content-range'], '0-0/*');
  });

  t.test('defaults: optional arguments may be left out', async (t) => {
    t.equal((await s.request('/rpc/add_default?a=1')).text, '11');
    t.equal((await s.request('/rpc/add_default', { method: 'POST', body: { a: 1, b: 1 } })).text, '2');
    t.equal((await s.request('/rpc/greet', { method: 'POST', body: { name: 'Ann' } })).text, '"hello Ann"');
  });

  t.test('no arguments; an empty body counts as {}', async (t) => {
    t.equal((await s.request('/rpc/hello')).text, '"hello"');
    const res = await s.request('/rpc/hello', { method: 'POST' });
    t.equal(res.status, 200);
    t.equal(res.text, '"hello"');
  });

  t.test('a single unnamed json parameter takes the whole body', async (t) => {
    const res = await s.request('/rpc/echo_json', { method: 'POST', body: { any: ['thing', 1] } });
    t.equal(res.status, 200);
    t.same(res.json(), { any: ['thing', 1] });
  });

  t.test('a single unnamed text / bytea parameter takes a text/plain / octet-stream body', async (t) => {
    const text = await s.request('/rpc/text_length', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'héllo' });
    t.equal(text.status, 200);
    t.equal(text.text, '5');
    const bytes = await s.request('/rpc/bytes_length', {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: Buffer.from([0, 1, 2, 255]),
    });
    t.equal(bytes.status, 200);
    t.equal(bytes.text, '4');
  });

  t.test('text that is not UTF-8 is refused, never passed on with U+FFFD: 400 DBRST102 / DBRST100', async (t) => {
    const raw = await s.request('/rpc/text_length', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: Buffer.from([0x61, 0xff, 0x62]) });
    t.equal(raw.status, 400);
    t.same(raw.json(), {
      code: 'DBRST102',
      message: 'The request body is not valid UTF-8',
      details: 'The request body is not valid UTF-8: invalid byte sequence at byte 1',
      hint: null,
    });
    const form = await s.request('/rpc/greet', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'name=%FF' });
    t.equal(form.status, 400);
    t.equal(form.json().code, 'DBRST102');
    t.equal(form.json().details, 'A percent-encoded name or value of the form body is not valid UTF-8');
    const query = await s.request('/rpc/greet?name=%FF');
    t.equal(query.status, 400);
    t.same(query.json(), {
      code: 'DBRST100',
      message: 'failed to parse the query string',
      details: 'A percent-encoded name or value is not valid UTF-8',
      hint: null,
    });
    t.equal(query.headers['proxy-status'], 'dbrest; error=DBRST100');
    // Well-formed UTF-8 escapes, and bytes for a bytea parameter, are fine.
    t.equal((await s.request('/rpc/greet?name=caf%C3%A9')).text, '"hello café"');
    t.equal((await s.request('/rpc/greet', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'name=caf%C3%A9' })).text, '"hello café"');
    const bytes = await s.request('/rpc/bytes_length', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: Buffer.from([0xff, 0xfe]) });
    t.equal(bytes.text, '2');
  });

  t.test('Prefer: params=single-object passes the body to a named json parameter', async (t) => {
    const res = await s.request('/rpc/named_json', { method: 'POST', headers: { Prefer: 'params=single-object' }, body: { x: 1 } });
    t.equal(res.status, 200);
    t.same(res.json(), { x: 1 });
  });

  t.test('VARIADIC: repeated query arguments, or a JSON array', async (t) => {
    t.equal((await s.request('/rpc/vsum?xs=1&xs=2&xs=3')).text, '6');
    t.equal((await s.request('/rpc/vsum', { method: 'POST', body: { xs: [4, 5] } })).text, '9');
  });

  t.test('form-urlencoded arguments', async (t) => {
    const res = await s.request('/rpc/add', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=2&b=3' });
    t.equal(res.text, '5');
  });

  t.test('overloads are chosen by the argument names', async (t) => {
    t.equal((await s.request('/rpc/overloaded?a=1')).text, '"one:1"');
    t.equal((await s.request('/rpc/overloaded', { method: 'POST', body: { a: 1, b: 2 } })).text, '"two:1,2"');
  });

  t.test('same names, different types: 300 DBRST203', async (t) => {
    const res = await s.request('/rpc/ambiguous?x=1');
    t.equal(res.status, 300);
    t.same(res.json(), {
      code: 'DBRST203',
      details: null,
      hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
      message: 'Could not choose the best candidate function between: public.ambiguous(x => integer), public.ambiguous(x => text)',
    });
  });

  t.test('unknown function: 404 DBRST202 with a hint naming the close match', async (t) => {
    const res = await s.request('/rpc/hellp', { method: 'POST', body: { a: 1, b: 2 } });
    t.equal(res.status, 404);
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST202');
    t.same(res.json(), {
      code: 'DBRST202',
      details: 'Searched for the function public.hellp with parameters a, b or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: 'Perhaps you meant to call the function public.hello',
      message: 'Could not find the function public.hellp(a, b) in the schema cache',
    });
  });

  t.test('wrong argument names: 404 DBRST202 hinting at the parameters', async (t) => {
    const res = await s.request('/rpc/add', { method: 'POST', body: { a: 1, c: 2 } });
    t.equal(res.status, 404);
    const body = res.json();
    t.equal(body.message, 'Could not find the function public.add(a, c) in the schema cache');
    t.equal(
      body.details,
      'Searched for the function public.add with parameters a, c or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
    );
    t.equal(body.hint, 'Perhaps you meant to call the function public.add(a, b)');
    const get = await s.request('/rpc/add?a=1');
    t.equal(get.status, 404);
    t.equal(get.json().details, 'Searched for the function public.add with parameter a, but no matches were found in the schema cache.');
    const none = await s.request('/rpc/add');
    t.equal(none.json().message, 'Could not find the function public.add without parameters in the schema cache');
  });

  t.test('other methods: 405 DBRST101', async (t) => {
    const res = await s.request('/rpc/add', { method: 'PATCH', body: { a: 1 } });
    t.equal(res.status, 405);
    t.same(res.json(), { code: 'DBRST101', details: null, hint: null, message: 'Cannot use the PATCH method on RPC' });
  });

  t.test('a raised exception: 400 P0001', async (t) => {
    const res = await s.request('/rpc/fail_with', { method: 'POST', body: { msg: 'nope' } });
    t.equal(res.status, 400);
    t.equal(res.json().code, 'P0001');
    t.equal(res.json().message, 'nope');
  });

  t.test('response.status and response.headers set by the function', async (t) => {
    const res = await s.request('/rpc/accepted', { method: 'POST' });
    t.equal(res.status, 202);
    t.equal(res.headers['x-custom'], 'yes');
    t.same(res.json(), { ok: true });
  });

  t.test('request GUCs are set for the function', async (t) => {
    const res = await s.request('/rpc/get_path');
    t.equal(res.text, '"/rpc/get_path GET"');
  });
});

t.test('Return shapes', async (t) => {
  const s = await startWriteServer(t);

  t.test('void: 204, no body', async (t) => {
    const res = await s.request('/rpc/write_audit', { method: 'POST', body: { note: 'hi' } });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.equal(res.headers['content-type'], undefined);
    t.same(await s.db.query('SELECT note FROM audit'), [{ note: 'hi' }]);
  });

  t.test('a single row: an object', async (t) => {
    const res = await s.request('/rpc/get_item?item_id=2');
    t.same(res.json(), { id: 2, name: 'two', qty: 2 });
    const none = await s.request('/rpc/get_item?item_id=99');
    t.same(none.json(), { id: null, name: null, qty: null });
  });

  t.test('SETOF a table: an array, with select, filters, order, limit and count', async (t) => {
    const all = await s.request('/rpc/all_items');
    t.equal(all.headers['content-range'], '0-2/*');
    t.same(all.json(), [
      { id: 1, name: 'one', qty: 1 },
      { id: 2, name: 'two', qty: 2 },
      { id: 3, name: 'three', qty: 3 },
    ]);
    const shaped = await s.request('/rpc/all_items?select=name&qty=gte.2&order=id.desc&limit=1', { headers: { Prefer: 'count=exact' } });
    t.equal(shaped.status, 206);
    t.equal(shaped.headers['content-range'], '0-0/2');
    t.equal(shaped.headers['preference-applied'], 'count=exact');
    t.same(shaped.json(), [{ name: 'three' }]);
    const ranged = await s.request('/rpc/all_items?select=id', { headers: { Range: '1-1' } });
    t.equal(ranged.headers['content-range'], '1-1/*');
    t.same(ranged.json(), [{ id: 2 }]);
    const past = await s.request('/rpc/all_items?offset=10', { headers: { Prefer: 'count=exact' } });
    t.equal(past.status, 416);
    t.equal(past.json().code, 'DBRST103');
  });

  t.test('SETOF a table: embedding related tables', async (t) => {
    const res = await s.request('/rpc/client_projects?client=1&select=name,clients(name),tasks(name)&tasks.order=name');
    t.same(res.json(), [
      { name: 'Windows 7', clients: { name: 'Microsoft' }, tasks: [{ name: 'Code w7' }, { name: 'Design w7' }] },
      { name: 'Windows 10', clients: { name: 'Microsoft' }, tasks: [] },
    ]);
  });

  t.test('RETURNS TABLE: rows of its columns, filterable', async (t) => {
    const res = await s.request('/rpc/item_names?min_qty=2&item_name=neq.three');
    t.same(res.json(), [{ item_id: 2, item_name: 'two' }]);
  });

  t.test('SETOF a scalar: an array of values', async (t) => {
    const res = await s.request('/rpc/numbers?n=3');
    t.same(res.json(), [1, 2, 3]);
    t.equal(res.headers['content-range'], '0-2/*');
  });

  t.test('singular Accept on a set-returning function', async (t) => {
    const one = await s.request('/rpc/all_items?id=eq.1', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    t.equal(one.status, 200);
    t.same(one.json(), { id: 1, name: 'one', qty: 1 });
    const many = await s.request('/rpc/all_items', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    t.equal(many.status, 406);
    t.equal(many.json().code, 'DBRST116');
  });

  t.test('CSV of a set-returning function', async (t) => {
    const res = await s.request('/rpc/all_items?select=id,name', { headers: { Accept: 'text/csv' } });
    t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    t.equal(res.text, 'id,name\n1,one\n2,two\n3,three');
  });
});

t.test('Transactions of calls', async (t) => {
  const s = await startWriteServer(t);

  t.test('POST on a volatile function writes', async (t) => {
    const res = await s.request('/rpc/new_item', { method: 'POST', body: { id: 200, name: 'made' } });
    t.equal(res.status, 200);
    t.same(res.json(), { id: 200, name: 'made', qty: 1 });
    t.same(await s.db.query('SELECT id FROM items WHERE id = 200'), [{ id: 200 }]);
  });

  t.test('GET runs READ ONLY: a function that writes fails with 25006 → 405, nothing written', async (t) => {
    const before = await tableRows(s, 'items');
    const res = await s.request('/rpc/new_item?id=201&name=x');
    t.equal(res.status, 405);
    t.equal(res.json().code, '25006');
    t.same(await tableRows(s, 'items'), before);
  });

  t.test('GET on a volatile function that does not write works', async (t) => {
    const res = await s.request('/rpc/random_number');
    t.equal(res.status, 200);
    t.equal(res.text, '4');
  });

  t.test('tx=rollback undoes the function’s writes', async (t) => {
    const res = await s.request('/rpc/write_audit', { method: 'POST', headers: { Prefer: 'tx=rollback' }, body: { note: 'gone' } });
    t.equal(res.status, 204);
    t.equal(res.headers['preference-applied'], 'tx=rollback');
    t.same(await s.db.query(`SELECT note FROM audit WHERE note = 'gone'`), []);
  });

  t.test('max-affected strict on a set-returning function: DBRST124 and rolled back', async (t) => {
    const before = await tableRows(s, 'items');
    const res = await s.request('/rpc/new_items', { method: 'POST', headers: { Prefer: 'handling=strict, max-affected=2' }, body: { n: 3 } });
    t.equal(res.status, 400);
    t.equal(res.json().code, 'DBRST124');
    t.equal(res.json().details, 'The query affects 3 rows');
    t.same(await tableRows(s, 'items'), before);
    const okRes = await s.request('/rpc/new_items', { method: 'POST', headers: { Prefer: 'handling=strict, max-affected=3' }, body: { n: 3 } });
    t.equal(okRes.status, 200);
    t.equal(okRes.headers['preference-applied'], 'handling=strict, max-affected=3');
  });

  t.test('max-affected strict on a function returning one value: 400 DBRST128', async (t) => {
    const res = await s.request('/rpc/new_item', { method: 'POST', headers: { Prefer: 'handling=strict, max-affected=1' }, body: { id: 202, name: 'x' } });
    t.equal(res.status, 400);
    t.same(res.json(), {
      code: 'DBRST128',
      details: null,
      hint: null,
      message: 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict',
    });
    t.same(await s.db.query('SELECT id FROM items WHERE id = 202'), []);
  });
});
