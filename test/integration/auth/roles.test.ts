// Authorization happens in the database (PostgREST docs, "Authentication" → roles; seed,
// "Authentication"): 42501 gives 401 with a Bearer challenge to an anonymous request and 403 to an
// authenticated one; row level security sees the `sub` claim through request.jwt.claims.
import { SignJWT, type JWTPayload } from 'jose';
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const SECRET = 'auth-integration-secret-of-at-least-32-chars';
const sign = (claims: JWTPayload) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
const bearer = async (claims: JWTPayload) => ({ Authorization: `Bearer ${await sign(claims)}` });

t.test('roles and privileges', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': SECRET },
  });

  t.test('42501 anonymous: 401 with WWW-Authenticate: Bearer', async (t) => {
    const res = await s.request('/secrets');
    t.equal(res.status, 401);
    t.equal(res.headers['www-authenticate'], 'Bearer');
    t.equal(res.headers['proxy-status'], 'dbrest; error=42501');
    t.same(res.json(), { code: '42501', details: null, hint: null, message: 'permission denied for table secrets' });
    const head = await s.request('/secrets', { method: 'HEAD' });
    t.equal(head.status, 401);
    t.equal(head.text, '');
    t.equal(head.headers['proxy-status'], 'dbrest; error=42501');
  });

  t.test('42501 authenticated: 403, no challenge', async (t) => {
    const res = await s.request('/secrets', { headers: await bearer({ role: 'auth_user' }) });
    t.equal(res.status, 403);
    t.notOk(res.headers['www-authenticate']);
    t.equal(res.headers['proxy-status'], 'dbrest; error=42501');
    t.equal(res.json().code, '42501');
  });

  t.test('a token without a role claim is not "authenticated" for 42501: 401', async (t) => {
    const res = await s.request('/secrets', { headers: await bearer({ sub: 'alice' }) });
    t.equal(res.status, 401);
    t.equal(res.headers['www-authenticate'], 'Bearer');
  });

  t.test('a raised insufficient_privilege follows the same rule', async (t) => {
    const anon = await s.request('/raising', { headers: { 'X-Raise': 'insufficient' } });
    t.equal(anon.status, 401);
    t.equal(anon.headers['www-authenticate'], 'Bearer');
    t.same(anon.json(), { code: '42501', details: null, hint: null, message: 'Not yours' });
    const authed = await s.request('/raising', { headers: { 'X-Raise': 'insufficient', ...(await bearer({ role: 'auth_user' })) } });
    t.equal(authed.status, 403);
  });

  t.test('row level security filters rows per sub claim', async (t) => {
    const alice = await s.request('/notes?order=id', { headers: await bearer({ role: 'auth_user', sub: 'alice' }) });
    t.equal(alice.status, 200);
    t.same(alice.json(), [
      { id: 1, owner: 'alice', body: 'alice 1' },
      { id: 2, owner: 'alice', body: 'alice 2' },
    ]);
    t.equal(alice.headers['content-range'], '0-1/*');
    const bob = await s.request('/notes', { headers: await bearer({ role: 'auth_user', sub: 'bob' }) });
    t.same(bob.json(), [{ id: 3, owner: 'bob', body: 'bob 1' }]);
    const nobody = await s.request('/notes', { headers: await bearer({ role: 'auth_user', sub: 'carol' }) });
    t.same(nobody.json(), []);
    const anon = await s.request('/notes');
    t.equal(anon.status, 200);
    t.same(anon.json(), [], 'anonymous: no sub, no rows');
    const counted = await s.request('/notes', { headers: { Prefer: 'count=exact', ...(await bearer({ role: 'auth_user', sub: 'alice' })) } });
    t.equal(counted.headers['content-range'], '0-1/2', 'the exact count sees only the permitted rows');
  });

  t.test('the role does not leak into the next request on the same connection', async (t) => {
    const results: string[] = [];
    for (let i = 0; i < 6; i++) {
      const headers: Record<string, string> = i % 2 === 0 ? await bearer({ role: 'auth_user' }) : {};
      results.push((await s.request('/whoami', { headers })).json()[0].role);
    }
    t.same(results, ['auth_user', 'auth_anon', 'auth_user', 'auth_anon', 'auth_user', 'auth_anon']);
  });
});
