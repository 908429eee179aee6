// Issue 12, item 5: RPC details as PostgREST v16 answers them (test/spec/Feature/Query/RpcSpec.hs).
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

t.test('GET /rpc/f: a parameter that is neither an argument nor a filter is an unknown argument → 404 DBRST202', async (t) => {
  const s = await server(t);
  expectJson(t, await s.request('/rpc/add_them?a=1&b=2&smthelse=blabla'), 404, {
    code: 'DBRST202',
    details: 'Searched for the function parity.add_them with parameters a, b, smthelse, but no matches were found in the schema cache.',
    hint: 'Perhaps you meant to call the function parity.add_them(a, b)',
    message: 'Could not find the function parity.add_them(a, b, smthelse) in the schema cache',
  });
  expectJson(t, await s.request('/rpc/sayhello?nam=Peter'), 404, {
    code: 'DBRST202',
    details: 'Searched for the function parity.sayhello with parameter nam, but no matches were found in the schema cache.',
    hint: 'Perhaps you meant to call the function parity.sayhello(name)',
    message: 'Could not find the function parity.sayhello(nam) in the schema cache',
  });
  expectJson(t, await s.request('/rpc/overloaded?wrong_arg=value'), 404, {
    code: 'DBRST202',
    details: 'Searched for the function parity.overloaded with parameter wrong_arg, but no matches were found in the schema cache.',
    hint: null,
    message: 'Could not find the function parity.overloaded(wrong_arg) in the schema cache',
  });
  expectJson(t, await s.request('/rpc/overloaded?a=1&b=2&wrong_arg=value'), 404, {
    code: 'DBRST202',
    details: 'Searched for the function parity.overloaded with parameters a, b, wrong_arg, but no matches were found in the schema cache.',
    hint: 'Perhaps you meant to call the function parity.overloaded(a, b, c)',
    message: 'Could not find the function parity.overloaded(a, b, wrong_arg) in the schema cache',
  });
  const head = await s.request('/rpc/add_them?a=1&b=2&smthelse=blabla', { method: 'HEAD' });
  t.equal(head.status, 404);
  t.equal(head.headers['proxy-status'], 'dbrest; error=DBRST202');
});

t.test('GET /rpc/f: the first occurrence of an argument name is the argument, later filters filter', async (t) => {
  const s = await server(t);
  expectJson(t, await s.request('/rpc/get_projects_below?id=3&id=gt.1&select=id'), 200, [{ id: 2 }]);
  expectJson(t, await s.request('/rpc/get_projects_below?id=4&id=not.in.(1,3)&select=id'), 200, [{ id: 2 }]);
  expectJson(t, await s.request('/rpc/sayhello?name=eq.x'), 200, 'Hello, eq.x');
  // Values that are not filters stay arguments: the last one wins (RpcSpec: "returns last value for repeated params").
  expectJson(t, await s.request('/rpc/sayhello?name=ignored&name=world'), 200, 'Hello, world');
  // Names that are not arguments filter the result, as before.
  expectJson(t, await s.request('/rpc/all_items?id=gt.1&id=lt.3&select=id'), 200, [{ id: 2 }]);
  expectJson(t, await s.request('/rpc/add_them?a=1&b=2'), 200, 3);
});

t.test('char(n) and bit(n) parameters are passed as character varying / bit varying, not cut to one character (Query/RpcSpec.hs, #1586)', async (t) => {
  const s = await server(t);
  expectJson(t, await s.request('/rpc/char_param_select?char_=abcdefg&char_arr={abc,abcdefg}'), 200, [{ char_: 'abcdefg', char_arr: ['abc', 'abcdefg'] }]);
  expectJson(t, await s.request('/rpc/bit_param_select?bit_=101010&bit_arr={101,101010}'), 200, [{ bit_: '101010', bit_arr: ['101', '101010'] }]);
  expectJson(t, await s.request('/rpc/char_param_insert', { method: 'POST', body: { char_: 'abcdefg', char_arr: '{abc,abcdefg}' } }), 400,
    { code: '22001', details: null, hint: null, message: 'value too long for type character(5)' });
  expectJson(t, await s.request('/rpc/bit_param_insert', { method: 'POST', body: { bit_: '101010', bit_arr: '{101,101010}' } }), 400,
    { code: '22026', details: null, hint: null, message: 'bit string length 6 does not match type bit(5)' });
  const ok = await s.request('/rpc/char_param_insert', { method: 'POST', body: { char_: 'abc', char_arr: '{abc}' } });
  t.equal(ok.status, 204);
  t.same(await s.db.query('SELECT char_, char_arr::text FROM parity.char_param_table'), [{ char_: 'abc  ', char_arr: '{"abc  "}' }]);
});

t.test('an unqualified db-pre-request is found through the search path (the request schema first)', async (t) => {
  const s = await server(t, { 'db-pre-request': 'pre_req' });
  const res = await s.request('/items?select=id&id=eq.1');
  t.equal(res.status, 200);
  t.equal(res.headers['x-pre-request'], 'parity');
  const call = await s.request('/rpc/add_them?a=1&b=2');
  t.equal(call.headers['x-pre-request'], 'parity');
});

t.test('request.jwt.claims carries the role in force: {"role": <anon role>} for anonymous requests (Query/RpcSpec.hs "current role is available as GUC claim")', async (t) => {
  const s = await server(t, { 'jwt-secret': 'reallyreallyreallyreallyverysafe' });
  expectJson(t, await s.request('/rpc/jwt_claims'), 200, { role: 'postgres' });
  // A token without a role claim runs as the anonymous role, and says so in its claims.
  const noRole = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1MSJ9.';
  const { createHmac } = await import('node:crypto');
  const signed = noRole + createHmac('sha256', 'reallyreallyreallyreallyverysafe').update(noRole.slice(0, -1)).digest('base64url');
  expectJson(t, await s.request('/rpc/jwt_claims', { headers: { Authorization: `Bearer ${signed}` } }), 200, { sub: 'u1', role: 'postgres' });
});

t.test('the Range header is ignored for every method but GET (Query/RpcSpec.hs)', async (t) => {
  const s = await server(t);
  const range = (r: string) => ({ 'Range-Unit': 'items', Range: r, Prefer: 'count=exact' });
  const get = await s.request('/rpc/all_items?select=id', { headers: range('1-1') });
  t.equal(get.status, 206);
  t.equal(get.headers['content-range'], '1-1/3');
  t.same(get.json(), [{ id: 2 }]);
  const post = await s.request('/rpc/all_items?select=id', { method: 'POST', headers: range('1-1'), body: {} });
  t.equal(post.status, 200);
  t.equal(post.headers['content-range'], '0-2/3');
  t.same(post.json(), [{ id: 1 }, { id: 2 }, { id: 3 }]);
  const head = await s.request('/rpc/all_items', { method: 'HEAD', headers: range('1-1') });
  t.equal(head.status, 200);
  t.equal(head.headers['content-range'], '0-2/3');
  const headTable = await s.request('/items', { method: 'HEAD', headers: range('1-1') });
  t.equal(headTable.status, 200);
  t.equal(headTable.headers['content-range'], '0-2/3');
  // limit/offset still apply, and a Range that would be unsatisfiable is not an error.
  const limited = await s.request('/rpc/all_items?select=id&limit=2&offset=1', { method: 'POST', headers: range('0-0'), body: {} });
  t.equal(limited.status, 206);
  t.equal(limited.headers['content-range'], '1-2/3');
  const patch = await s.request('/items?id=eq.1', { method: 'PATCH', headers: { ...range('5-9'), Prefer: 'return=representation' }, body: { name: 'one' } });
  t.equal(patch.status, 200);
  t.same(patch.json(), [{ id: 1, name: 'one' }]);
});
