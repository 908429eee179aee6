// Issue 12, item 3: response details as PostgREST v16 sends them (test/spec/Feature/Query/*.hs,
// HttpHeaderSpec.hs, OptionsSpec.hs, ServerTimingSpec.hs).
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }, config: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity.sql')],
    config: { 'db-schemas': 'parity,parity_other', 'db-anon-role': 'postgres', ...config },
  });
}

t.test('no Content-Length on a 204 (RFC 9110 §8.6) and none of 0 on HEAD', async (t) => {
  const s = await server(t);
  const patch = await s.request('/items?id=eq.1', { method: 'PATCH', body: { name: 'x' } });
  t.equal(patch.status, 204);
  t.equal(patch.headers['content-length'], undefined);
  const del = await s.request('/items?id=eq.99', { method: 'DELETE' });
  t.equal(del.status, 204);
  t.equal(del.headers['content-length'], undefined);
  const call = await s.request('/rpc/pre_req', { method: 'POST', body: {} });
  t.equal(call.status, 204);
  t.equal(call.headers['content-length'], undefined);
  const head = await s.request('/items', { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.headers['content-length'], undefined);
  t.equal(head.headers['content-range'], '0-2/*');
  const headError = await s.request('/nope', { method: 'HEAD' });
  t.equal(headError.status, 404);
  t.equal(headError.headers['content-length'], undefined);
  const get = await s.request('/items?id=eq.2&select=id');
  t.equal(get.headers['content-length'], String(Buffer.byteLength(get.text)));
});

t.test('server-trace-header: the request header is echoed back under its name (HttpHeaderSpec.hs / ObservabilitySpec.hs)', async (t) => {
  const s = await server(t, { 'server-trace-header': 'X-Request-Id' });
  const res = await s.request('/items?select=id&id=eq.1', { headers: { 'X-Request-Id': 'trace-42' } });
  t.equal(res.status, 200);
  t.equal(res.headers['x-request-id'], 'trace-42');
  const err = await s.request('/nope', { headers: { 'X-Request-Id': 'trace-43' } });
  t.equal(err.status, 404);
  t.equal(err.headers['x-request-id'], 'trace-43', 'errors too');
  const none = await s.request('/items?select=id&id=eq.1');
  t.equal(none.headers['x-request-id'], undefined, 'nothing to echo: no header');

  const other = await server(t, { 'server-trace-header': 'X-Trace' });
  const traced = await other.request('/items?select=id&id=eq.1', { headers: { 'X-Trace': 'abc' } });
  t.equal(traced.headers['x-trace'], 'abc');
  t.equal(traced.headers['x-request-id'], undefined);
});

t.test('Vary: Accept, Prefer, Range on answers; a Vary set by the request SQL replaces it (HttpHeaderSpec.hs)', async (t) => {
  const s = await server(t);
  for (const [path, method, body] of [['/items?select=id', 'GET'], ['/items', 'HEAD'], ['/rpc/add_them?a=1&b=2', 'GET'], ['/items?id=eq.1', 'PATCH', { name: 'x' }]] as const) {
    const res = await s.request(path, { method, ...(body ? { body } : {}) });
    t.equal(res.headers['vary'], 'Accept, Prefer, Range', `${method} ${path}`);
  }
  t.equal((await s.request('/nope')).headers['vary'], undefined, 'not on errors');
  const custom = await server(t, { 'db-pre-request': 'parity.custom_vary' });
  const res = await custom.request('/items?select=id');
  t.equal(res.status, 200);
  t.equal(res.headers['vary'], 'X-Test-Accept');
});

t.test('Content-Location on reads: the relation and its query string in canonical order (Query/QuerySpec.hs "Canonical location")', async (t) => {
  const s = await server(t);
  const a = await s.request('/items?select=id,name&id=in.(1,2)&order=id.desc&name=neq.x+y&id=gt.0');
  t.equal(a.status, 200);
  t.equal(a.headers['content-location'], '/items?id=in.%281%2C2%29&id=gt.0&name=neq.x%20y&order=id.desc&select=id%2Cname');
  t.equal((await s.request('/items?b=eq.1&a=eq.1'.replace('b=', 'name=').replace('a=', 'id='))).headers['content-location'], '/items?id=eq.1&name=eq.1');
  t.equal((await s.request('/items')).headers['content-location'], '/items', 'no question mark without parameters');
  t.equal((await s.request('/items?id=eq.1', { method: 'HEAD' })).headers['content-location'], '/items?id=eq.1');
});

t.test('Preference-Applied on reads: count, tx, handling and timezone that were honoured', async (t) => {
  const s = await server(t, { 'db-tx-end': 'rollback-allow-override' });
  const res = await s.request('/items?select=id', { headers: { Prefer: 'tx=commit, count=exact' } });
  t.equal(res.status, 200);
  t.equal(res.headers['preference-applied'], 'count=exact, tx=commit');
  const head = await s.request('/items', { method: 'HEAD', headers: { Prefer: 'tx=rollback' } });
  t.equal(head.headers['preference-applied'], 'tx=rollback');
  const fixed = await server(t);
  const none = await fixed.request('/items?select=id', { headers: { Prefer: 'tx=rollback' } });
  t.equal(none.headers['preference-applied'], undefined, 'db-tx-end without -allow-override: tx= is not honoured');
});

t.test('Content-Location is left out when longer than 8 KiB (clients refuse such headers)', async (t) => {
  const s = await server(t);
  const ids = Array.from({ length: 3000 }, (_, i) => i).join(',');
  const res = await s.request(`/items?select=id&id=in.(${ids})&order=id`);
  t.equal(res.status, 200);
  t.equal(res.headers['content-location'], undefined);
  t.same(res.json(), [{ id: 1 }, { id: 2 }, { id: 3 }]);
});

t.test('Server-Timing on OPTIONS names the response stage (Query/ServerTimingSpec.hs)', async (t) => {
  const s = await server(t, { 'server-timing-enabled': 'true' });
  for (const path of ['/rpc/all_items', '/items', '/']) {
    const res = await s.request(path, { method: 'OPTIONS' });
    t.equal(res.status, 200, path);
    t.match(res.headers['server-timing'], /^jwt;dur=\d+\.\d, parse;dur=\d+\.\d, response;dur=\d+\.\d$/, path);
  }
  t.equal((await s.request('/rpc/all_items', { method: 'OPTIONS' })).headers['allow'], 'OPTIONS,GET,HEAD,POST');
});
