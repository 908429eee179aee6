// The auth, context and custom-error cases again through function calls (POST /rpc/f), the way
// PostgREST users meet them most. Skipped, with the reason, while /rpc is not wired yet.
import { SignJWT, type JWTPayload } from 'jose';
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const SECRET = 'auth-integration-secret-of-at-least-32-chars';
const sign = (claims: JWTPayload) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
const bearer = async (claims: JWTPayload) => ({ Authorization: `Bearer ${await sign(claims)}` });

const s = await startTestServer(t, {
  fixtures: [fixture('sql', 'auth.sql')],
  config: { 'db-anon-role': 'auth_anon', 'jwt-secret': SECRET, 'db-pre-request': 'public.check_request' },
});
const probe = await s.request('/rpc/rpc_whoami', { method: 'POST', body: {} });
const skip = probe.status === 405 || probe.status === 404
  ? { skip: `POST /rpc/ is not available yet (answered ${probe.status} ${probe.headers['proxy-status'] ?? ''})` }
  : {};
const post = (fn: string, body: object, headers: Record<string, string> = {}) => s.request(`/rpc/${fn}`, { method: 'POST', body, headers });

t.test('role switch and request context in a function', skip, async (t) => {
  const anon = await post('rpc_whoami', {});
  t.equal(anon.status, 200);
  t.equal(anon.json(), 'auth_anon');
  const authed = await post('rpc_whoami', {}, await bearer({ role: 'auth_user' }));
  t.equal(authed.json(), 'auth_user');

  const ctx = (await post('rpc_context', {}, { ...(await bearer({ role: 'auth_user', sub: 'alice' })), Cookie: 'k=v', 'X-Thing': '1' })).json();
  t.equal(ctx.current_user, 'auth_user');
  t.equal(ctx.method, 'POST');
  t.equal(ctx.path, '/rpc/rpc_context');
  t.equal(ctx.headers['x-thing'], '1');
  t.same(ctx.cookies, { k: 'v' });
  t.same(ctx.claims, { role: 'auth_user', sub: 'alice' });
  t.equal(ctx.pre_request_ran_as, 'auth_user', 'db-pre-request ran first');

  const get = await s.request('/rpc/rpc_whoami');
  t.equal(get.status, 200, 'GET on a stable function');
  t.equal(get.json(), 'auth_anon');
});

t.test('db-pre-request refuses a call with PT403', skip, async (t) => {
  const res = await post('rpc_whoami', {}, { 'X-Block': 'rpc' });
  t.equal(res.status, 403);
  t.equal(res.headers['proxy-status'], 'dbrest; error=PT403');
  t.equal(res.json().details, 'x-block: rpc');
});

t.test('response.status and response.headers set by a function', skip, async (t) => {
  const res = await post('set_response', { status: '201', headers: '[{"X-Fn": "set"}, {"Location": "/somewhere"}]' });
  t.equal(res.status, 201);
  t.equal(res.headers['x-fn'], 'set');
  t.equal(res.headers['location'], '/somewhere');
  t.equal(res.json(), 'done');
  const bad = await post('set_response', { status: '99999999999' });
  t.equal(bad.status, 500);
  t.equal(bad.json().code, 'DBRST112');
  const badHeaders = await post('set_response', { headers: '"just a string"' });
  t.equal(badHeaders.status, 500);
  t.equal(badHeaders.json().code, 'DBRST111');
});

t.test('custom errors raised by a called function', skip, async (t) => {
  const p0001 = await post('raise_kind', { kind: 'p0001' });
  t.equal(p0001.status, 400);
  t.same(p0001.json(), { code: 'P0001', details: 'the details', hint: 'the hint', message: 'Something went wrong' });
  const pt = await post('raise_kind', { kind: 'pt402' });
  t.equal(pt.status, 402);
  t.equal(pt.headers['proxy-status'], 'dbrest; error=PT402');
  const custom = await post('raise_kind', { kind: 'dbrst' });
  t.equal(custom.status, 402);
  t.equal(custom.headers['x-powered-by'], 'Nerd Rage');
  t.same(custom.json(), { code: '123', details: 'Quota exceeded', hint: 'Upgrade your plan', message: 'Payment Required' });
  const invalid = await post('raise_kind', { kind: 'dbrst-bad-message' });
  t.equal(invalid.status, 500);
  t.equal(invalid.json().code, 'DBRST121');
});

t.test('a raise after a write rolls the write back', skip, async (t) => {
  const res = await post('write_then_raise', { note: 'must not stay' });
  t.equal(res.status, 409);
  t.same(res.json(), { code: 'PT409', details: 'must not stay', hint: null, message: 'Conflict after a write' });
  const rows = await s.db.query('SELECT count(*)::int AS n FROM audit');
  t.same(rows, [{ n: 0 }]);
});

t.test('EXECUTE revoked: 401 anonymous, 403 authenticated', skip, async (t) => {
  const anon = await post('secret_fn', {});
  t.equal(anon.status, 401);
  t.equal(anon.headers['www-authenticate'], 'Bearer');
  t.equal(anon.json().code, '42501');
  const authed = await post('secret_fn', {}, await bearer({ role: 'auth_user' }));
  t.equal(authed.status, 403);
});
