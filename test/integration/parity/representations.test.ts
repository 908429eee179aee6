// Issue 12, item 2: domain representations (PostgREST docs, references/api/domain_representations):
// implicit casts with functions between a domain and json/text shape output, payloads and filters.
import t, { type Test } from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestResponse, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity.sql')],
    config: { 'db-schemas': 'parity,parity_other', 'db-anon-role': 'postgres' },
  });
}

function expectJson(t: Test, res: TestResponse, status: number, body: unknown): void {
  t.equal(res.status, status, 'status');
  t.same(res.json(), body, 'body');
}

const JOHN = 'hGxP/ZLOTeeNEY4pkp9OxA==';

t.test('output: a column whose domain has a cast to json is shown through it, in every select shape', async (t) => {
  const s = await server(t);
  expectJson(t, await s.request('/profiles'), 200, [{ id: JOHN, name: 'John Doe', item_id: 1 }]);
  expectJson(t, await s.request('/profiles?select=id,name'), 200, [{ id: JOHN, name: 'John Doe' }]);
  expectJson(t, await s.request('/profiles?select=uid:id'), 200, [{ uid: JOHN }]);
  expectJson(t, await s.request('/items?select=id,profiles(*)&id=eq.1'), 200, [{ id: 1, profiles: [{ id: JOHN, name: 'John Doe', item_id: 1 }] }]);
  expectJson(t, await s.request('/profiles?select=id,...items(name)'), 200, [{ id: JOHN, name: 'one' }]);
  // An explicit cast applies on top of the representation (PostgREST's QuerySpec "formats, renames
  // and allows manual casting on top"): the text of the JSON string.
  expectJson(t, await s.request('/profiles?select=id::text'), 200, [{ id: `"${JOHN}"` }]);
  // Writes answer in the same representation.
  expectJson(t, await s.request('/profiles?select=id,name', { method: 'PATCH', headers: { Prefer: 'return=representation' }, body: { name: 'J' } }), 200, [{ id: JOHN, name: 'J' }]);
});

t.test('filters: a domain cast from text reads the filter value (eq, neq, in), in reads, embeds and writes', async (t) => {
  const s = await server(t);
  expectJson(t, await s.request(`/profiles?id=eq.${JOHN}&select=name`), 200, [{ name: 'John Doe' }]);
  expectJson(t, await s.request(`/profiles?id=neq.${JOHN}&select=name`), 200, []);
  expectJson(t, await s.request(`/profiles?id=in.(${JOHN},zH7HbFJUTfy/GZpwuirpuQ==)&select=name`), 200, [{ name: 'John Doe' }]);
  expectJson(t, await s.request(`/items?select=id,profiles!inner(name)&profiles.id=eq.${JOHN}`), 200, [{ id: 1, profiles: [{ name: 'John Doe' }] }]);
  expectJson(t, await s.request(`/profiles?id=eq.${JOHN}&select=id,name`, { method: 'PATCH', headers: { Prefer: 'return=representation' }, body: { name: 'Z' } }), 200, [{ id: JOHN, name: 'Z' }]);
  // Other operators compare as before.
  expectJson(t, await s.request('/profiles?id=is.null'), 200, []);
});

t.test('payloads: a domain cast from json reads the JSON value (POST, PATCH, upsert, PUT)', async (t) => {
  const s = await server(t);
  const REPR = { Prefer: 'return=representation' };
  const JANE = 'zH7HbFJUTfy/GZpwuirpuQ==';
  expectJson(t, await s.request('/profiles?select=id,name', { method: 'POST', headers: REPR, body: { id: JANE, name: 'Jane Doe' } }), 201, [{ id: JANE, name: 'Jane Doe' }]);
  t.same(await s.db.query("SELECT id::text FROM parity.profiles WHERE name = 'Jane Doe'"), [{ id: 'cc7ec76c-5254-4dfc-bf19-9a70ba2ae9b9' }], 'stored as the uuid it encodes');
  expectJson(t, await s.request(`/profiles?id=eq.${JANE}&select=id,name`, { method: 'PATCH', headers: REPR, body: { id: 'AAAAAAAAAAAAAAAAAAAAAA==', name: 'zero' } }), 200,
    [{ id: 'AAAAAAAAAAAAAAAAAAAAAA==', name: 'zero' }]);
  expectJson(t, await s.request('/profiles?select=id,name', { method: 'POST', headers: { Prefer: 'return=representation,resolution=merge-duplicates,missing=default' }, body: [{ id: JOHN, name: 'merged' }] }), 200,
    [{ id: JOHN, name: 'merged' }]);
  expectJson(t, await s.request(`/profiles?id=eq.${JOHN}&select=id,name`, { method: 'PUT', headers: REPR, body: { id: JOHN, name: 'put', item_id: 1 } }), 200, [{ id: JOHN, name: 'put' }]);
  t.same(await s.db.query('SELECT id::text, name FROM parity.profiles ORDER BY name'), [
    { id: '00000000-0000-0000-0000-000000000000', name: 'zero' },
    { id: '846c4ffd-92ce-4de7-8d11-8e29929f4ec4', name: 'put' },
  ].sort((a, b) => (a.name < b.name ? -1 : 1)));
});
