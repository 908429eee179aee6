// Issue 12, item 4: error messages and codes as PostgREST v16 words them (DBRSTnnn for PGRSTnnn).
// Each case names the PostgREST spec file (test/spec/Feature/…) that states the answer.
import t, { type Test } from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestResponse, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }, config: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity.sql')],
    config: { 'db-schemas': 'parity,parity_other', 'db-anon-role': 'postgres', ...config },
  });
}

function expectError(t: Test, res: TestResponse, status: number, body: Record<string, unknown>): void {
  t.equal(res.status, status, 'status');
  t.equal(res.headers['proxy-status'], `dbrest; error=${String(body['code'])}`);
  t.same(res.json(), body, 'body');
}

const OBJECT = { Accept: 'application/vnd.pgrst.object+json' };

t.test('DBRST116: "Cannot coerce the result to a single JSON object" (Query/SingularSpec.hs)', async (t) => {
  const s = await server(t);
  const body = (n: number) => ({ code: 'DBRST116', details: `The result contains ${n} rows`, hint: null, message: 'Cannot coerce the result to a single JSON object' });
  expectError(t, await s.request('/items', { headers: OBJECT }), 406, body(3));
  expectError(t, await s.request('/items?id=eq.99', { headers: OBJECT }), 406, body(0));
  expectError(t, await s.request('/items?id=gt.1', { method: 'PATCH', headers: { ...OBJECT, Prefer: 'return=representation' }, body: { name: 'x' } }), 406, body(2));
  expectError(t, await s.request('/items?id=gt.1', { method: 'DELETE', headers: OBJECT }), 406, body(2));
  expectError(t, await s.request('/rpc/all_items', { headers: OBJECT }), 406, body(3));
  const still = await s.request('/items?select=name&order=id');
  t.same(still.json(), [{ name: 'one' }, { name: 'two' }, { name: 'three' }], 'the failed writes were rolled back');
});

t.test('DBRST106: "Invalid schema: …" with the exposed schemas in the hint (Query/MultipleSchemaSpec.hs)', async (t) => {
  const s = await server(t);
  const body = { code: 'DBRST106', details: null, hint: 'Only the following schemas are exposed: parity, parity_other', message: 'Invalid schema: unknown' };
  expectError(t, await s.request('/items', { headers: { 'Accept-Profile': 'unknown' } }), 406, body);
  expectError(t, await s.request('/items', { method: 'POST', headers: { 'Content-Profile': 'unknown' }, body: { id: 9, name: 'n' } }), 406, body);
});

t.test("RAISE SQLSTATE 'PGRST' works as 'DBRST' does, with PostgREST's DBRST121 texts (Query/RpcSpec.hs, Query/ErrorSpec.hs)", async (t) => {
  const s = await server(t);
  const raise = (kind: string) => s.request(`/rpc/raise_pgrst?kind=${kind}`);

  const full = await raise('full');
  t.equal(full.status, 332);
  t.equal(full.headers['x-header'], 'str');
  t.equal(full.headers['proxy-status'], 'dbrest; error=123');
  t.same(full.json(), { code: '123', details: 'DEF', hint: 'XYZ', message: 'ABC' });
  const std = await raise('standard-status');
  t.equal(std.status, 404);
  t.same(std.json(), { code: '123', details: null, hint: null, message: 'ABC' });

  const message = `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`;
  const detailHint = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";
  expectError(t, await raise('bad-message'), 500, {
    code: 'DBRST121', details: "Invalid JSON value for MESSAGE: 'INVALID'",
    hint: "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.", message,
  });
  expectError(t, await raise('bad-detail'), 500, { code: 'DBRST121', details: "Invalid JSON value for DETAIL: 'INVALID'", hint: detailHint, message });
  expectError(t, await raise('no-detail'), 500, { code: 'DBRST121', details: 'DETAIL is missing in the RAISE statement', hint: detailHint, message });
  expectError(t, await raise('dbrst-bad-detail'), 500, {
    code: 'DBRST121', details: "Invalid JSON value for DETAIL: 'INVALID'", hint: detailHint,
    message: `Could not parse JSON in the "RAISE SQLSTATE 'DBRST'" error`,
  });
});

t.test('42703 for an unknown column: the hint PostgreSQL gives, and none where it gives none (Query/QuerySpec.hs)', async (t) => {
  const s = await server(t);
  for (const [table, column] of [
    ['items', 'nam'], ['items', 'nme'], ['items', 'na'], ['items', 'ie'], ['items', 'abcdefgh'],
    ['wide', 'description_lo'], ['wide', 'descriptionlongerer'], ['wide', 'description'], ['wide', 'a'], ['wide', 'ax'], ['wide', 'abc'],
  ] as const) {
    let pgHint: string | null = null;
    try {
      await s.db.query(`SELECT ${table}.${column} FROM parity.${table}`);
      t.fail('PostgreSQL found the column');
    } catch (e) {
      pgHint = (e as { hint?: string }).hint ?? null;
    }
    const res = await s.request(`/${table}?select=${column}`);
    t.equal(res.status, 400, `${table}.${column}`);
    t.same(res.json(), { code: '42703', details: null, hint: pgHint, message: `column ${table}.${column} does not exist` }, `${table}.${column}: hint ${pgHint}`);
  }
});

t.test('DBRST203 lists the candidates fewest parameters first (Query/RpcSpec.hs)', async (t) => {
  const s = await server(t);
  expectError(t, await s.request('/rpc/overloaded_same_args?arg=value'), 300, {
    code: 'DBRST203',
    details: null,
    hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    message: 'Could not choose the best candidate function between: parity.overloaded_same_args(arg => integer), ' +
      'parity.overloaded_same_args(arg => xml), parity.overloaded_same_args(arg => text, num => integer)',
  });
});

t.test('JWT decode errors: PostgREST v16 texts, details only where PostgREST gives them (Auth/AuthSpec.hs)', async (t) => {
  const s = await server(t, { 'jwt-secret': 'reallyreallyreallyreallyverysafe' });
  const call = (token: string) => s.request('/items', { headers: { Authorization: `Bearer ${token}` } });
  const expect401 = async (token: string, message: string) => {
    const res = await call(token);
    expectError(t, res, 401, { code: 'DBRST301', details: null, hint: null, message });
    t.equal(res.headers['www-authenticate'], `Bearer error="invalid_token", error_description="${message.replace(/"/g, '\\"')}"`);
  };
  await expect401('', 'Empty JWT is sent in Authorization header');
  await expect401('ey9zdGdyZXN0X3Rlc3RfYXV0aG9yIiwiaWQiOiJqZG9lIn0.y4vZuu1dDdwAl0-S00MCRWRYMlJ5YAMSir6Es6WtWx0', 'Expected 3 parts in JWT; got 2');
  // jose-jwt (PostgREST's JWT library) reports any token it cannot parse as a failed cryptographic operation.
  await expect401('!!.b.c', 'JWT cryptographic operation failed');
});
