// Issue 12, item 6: writes as PostgREST v16 answers them (test/spec/Feature/Query/UpdateSpec.hs,
// DeleteSpec.hs, UpsertSpec.hs, InsertSpec.hs).
import t, { type Test } from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestResponse, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }, config: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity.sql')],
    config: { 'db-schemas': 'parity,parity_other', 'db-anon-role': 'postgres', ...config },
  });
}

function expectJson(t: Test, res: TestResponse, status: number, body: unknown): void {
  t.equal(res.status, status, 'status');
  t.same(res.json(), body, 'body');
}

const REPR = { Prefer: 'return=representation' };

t.test('order= sorts the return=representation of PATCH, DELETE, POST and upsert', async (t) => {
  const s = await server(t);
  expectJson(t, await s.request('/items?order=id.desc&select=id', { method: 'PATCH', headers: REPR, body: { name: 'x' } }), 200, [{ id: 3 }, { id: 2 }, { id: 1 }]);
  expectJson(t, await s.request('/items?order=name.asc,id.desc&select=id,name', { method: 'PATCH', headers: REPR, body: { name: 'same' } }), 200,
    [{ id: 3, name: 'same' }, { id: 2, name: 'same' }, { id: 1, name: 'same' }]);
  const upsert = { Prefer: 'return=representation,resolution=merge-duplicates' };
  expectJson(t, await s.request('/items?order=name.desc&select=id', { method: 'POST', headers: upsert, body: [{ id: 1, name: 'a' }, { id: 3, name: 'c' }, { id: 2, name: 'b' }] }), 200,
    [{ id: 3 }, { id: 2 }, { id: 1 }]);
  expectJson(t, await s.request('/items?order=id.desc', { method: 'POST', headers: REPR, body: [{ id: 11, name: 'k' }, { id: 13, name: 'm' }, { id: 12, name: 'l' }] }), 201,
    [{ id: 13, name: 'm' }, { id: 12, name: 'l' }, { id: 11, name: 'k' }]);
  // The order column need not be selected.
  expectJson(t, await s.request('/items?id=gt.10&order=id.asc&select=name', { method: 'DELETE', headers: REPR }), 200, [{ name: 'k' }, { name: 'l' }, { name: 'm' }]);
  expectJson(t, await s.request('/items?order=id.desc&limit=2&select=id', { method: 'DELETE', headers: REPR }), 200, [{ id: 3 }, { id: 2 }]);
});

t.test('computed fields in the filters, order and select of writes; overloaded computed fields (Query/UpdateSpec.hs, DeleteSpec.hs)', async (t) => {
  const s = await server(t);
  // label() is defined for items and for wide: the row is cast to the table's type, so the call is never ambiguous.
  expectJson(t, await s.request('/items?label=eq.two!&select=id,label', { method: 'PATCH', headers: REPR, body: { name: 'deux' } }), 200, [{ id: 2, label: 'deux!' }]);
  expectJson(t, await s.request('/wide?label=eq.wide 1&select=label,id', { method: 'PATCH', headers: REPR, body: { description_long: 'x' } }), 200, [{ label: 'wide 1', id: 1 }]);
  expectJson(t, await s.request('/items?select=label', { method: 'POST', headers: REPR, body: { id: 7, name: 'seven' } }), 201, [{ label: 'seven!' }]);
  expectJson(t, await s.request('/items?order=label.desc&select=id,label', { method: 'PATCH', headers: REPR, body: {} }), 200, []);
  expectJson(t, await s.request('/items?id=lt.4&order=label.desc&select=id,label', { method: 'DELETE', headers: REPR }), 200,
    [{ id: 3, label: 'three!' }, { id: 1, label: 'one!' }, { id: 2, label: 'deux!' }]);
  expectJson(t, await s.request('/items?select=id,label&order=id'), 200, [{ id: 7, label: 'seven!' }]);
  expectJson(t, await s.request('/wide?select=id,label'), 200, [{ id: 1, label: 'wide 1' }]);
});

t.test('error precedence as PostgREST: DBRST200, DBRST105 and DBRST204 before an unknown filter column (42703)', async (t) => {
  const s = await server(t);
  const code = async (path: string, method: string, body?: object) => (await s.request(path, { method, headers: REPR, ...(body ? { body } : {}) })).json().code;
  t.equal(await code('/items?nope=eq.x', 'PUT', { id: 1, name: 'x' }), 'DBRST105', 'PUT: filters not on the key, one of them unknown');
  t.equal(await code('/items?nope=eq.x', 'PUT', { id: 1, nope: 2 }), 'DBRST105', 'PUT: before the unknown payload column');
  t.equal(await code('/items?nope=eq.x&select=x(*)', 'PUT', { id: 1, nope: 2 }), 'DBRST200', 'PUT: the missing relationship first');
  t.equal(await code('/items?nope=eq.1&select=id,nope_rel(*)', 'PATCH', { name: 'a' }), 'DBRST200', 'PATCH');
  t.equal(await code('/items?nope=eq.1&select=id,nope_rel(*)', 'DELETE'), 'DBRST200', 'DELETE');
  t.equal(await code('/items?nope=eq.1', 'PATCH', { nope: 1 }), 'DBRST204', 'PATCH: unknown payload column before unknown filter column');
  const last = await s.request('/items?nope=eq.1', { method: 'PATCH', body: { name: 'a' } });
  t.equal(last.status, 400);
  t.equal(last.json().code, '42703', 'the unknown filter column alone');
  t.same((await s.request('/items?select=id,name&order=id')).json(), [{ id: 1, name: 'one' }, { id: 2, name: 'two' }, { id: 3, name: 'three' }], 'nothing changed');
});

t.test('on_conflict columns are checked before the query: an unknown one is DBRST204 (Query/UpsertSpec.hs)', async (t) => {
  const s = await server(t);
  const res = await s.request('/items?on_conflict=nope', { method: 'POST', headers: { Prefer: 'resolution=merge-duplicates' }, body: { id: 1, name: 'x' } });
  t.equal(res.status, 400);
  t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST204');
  t.same(res.json(), { code: 'DBRST204', details: null, hint: null, message: "Could not find the 'nope' column of 'items' in the schema cache" });
  const some = await s.request('/items?on_conflict=id,nope', { method: 'POST', headers: { Prefer: 'resolution=ignore-duplicates' }, body: { id: 1, name: 'x' } });
  t.equal(some.json().message, "Could not find the 'nope' column of 'items' in the schema cache");
  // Known columns go on to the query as before.
  const ok = await s.request('/items?on_conflict=id', { method: 'POST', headers: { Prefer: 'resolution=merge-duplicates,return=representation' }, body: { id: 1, name: 'uno' } });
  t.equal(ok.status, 200);
  t.same(ok.json(), [{ id: 1, name: 'uno' }]);
});
