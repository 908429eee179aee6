// A JWT may not name the authenticator role, nor `none` (SET ROLE none goes back to it): issue #26
// finding 10. Refused 403 DBRST304 before any SQL runs. A mounted group's error handler never runs
// as the authenticator: without db-anon-role, a request that did not authenticate is answered in
// the engine's shape.
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { bearer, QUICKSTART, SECRET, startQuickstart, TRIP } from './quickstart.js';

t.test('role claims', async (t) => {
  const s = await startQuickstart(t);
  const [{ session_user: authenticator }] = await s.db.query<{ session_user: string }>('SELECT session_user');

  t.test('a role the authenticator may take runs (and reaches the database)', async (t) => {
    const headers = await bearer({ role: 'web_anon' });
    t.equal((await s.request('/films?select=id&id=eq.1', { headers })).status, 200);
    t.equal((await s.request('/films?select=id&id=eq.1', { headers: { ...headers, ...TRIP } })).status, 418, 'the probe');
  });

  for (const role of [authenticator!, 'none']) {
    t.test(`role = ${role === 'none' ? 'none' : 'the authenticator'}: 403 DBRST304, before any SQL runs`, async (t) => {
      const res = await s.request('/films?select=id', { headers: { ...(await bearer({ role })), ...TRIP } });
      t.equal(res.status, 403);
      t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST304');
      t.same(res.json(), {
        code: 'DBRST304',
        message: `The JWT role claim names a role requests may not run as: ${JSON.stringify(role)}`,
        details: null,
        hint: 'Sign the token with one of the roles the authenticator is granted, not the authenticator itself',
      });
      const call = await s.request('/rpc/film_count', { headers: await bearer({ role }) });
      t.equal(call.json().code, 'DBRST304', 'on calls too');
      t.equal((await s.request('/films?select=id&id=eq.1')).status, 200, 'the server answers the next request');
    });
  }
});

t.test('role claims found through jwt-role-claim-key', async (t) => {
  const s = await startQuickstart(t, { 'jwt-role-claim-key': '.app.roles[0]' });
  const res = await s.request('/films?select=id', { headers: { ...(await bearer({ app: { roles: ['none'] } })), ...TRIP } });
  t.equal(res.json().code, 'DBRST304');
});

const RENDER = `
CREATE FUNCTION render_error(e jsonb) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object('rendered_by', current_user, 'code', e->>'code')
$$;
`;
const ROUTES = JSON.stringify([{ prefix: '/api', 'error-handler': 'render_error', routes: [{ method: 'GET', path: '/films', relation: 'films' }] }]);

t.test('a mounted error handler without db-anon-role', async (t) => {
  const s = await startTestServer(t, { fixtures: [QUICKSTART, RENDER], config: { 'jwt-secret': SECRET, routes: ROUTES } });

  t.test('a request that authenticated gets the handler, run as its role', async (t) => {
    const res = await s.request('/api/nowhere', { headers: await bearer({ role: 'web_anon' }) });
    t.equal(res.status, 404);
    t.same(res.json(), { rendered_by: 'web_anon', code: 'DBRST600' });
  });

  t.test('one that did not: the engine\'s shape, the handler not run as the authenticator', async (t) => {
    const anonymous = await s.request('/api/films');
    t.equal(anonymous.status, 401);
    t.equal(anonymous.json().code, 'DBRST302', 'anonymous access is disabled');
    t.equal(anonymous.json().rendered_by, undefined);
    const badToken = await s.request('/api/films', { headers: { Authorization: 'Bearer not.a.token' } });
    t.equal(badToken.status, 401);
    t.equal(badToken.json().code, 'DBRST301');
    t.equal(badToken.json().rendered_by, undefined);
    const authenticator = await s.request('/api/films', { headers: await bearer({ role: 'none' }) });
    t.equal(authenticator.status, 403);
    t.equal(authenticator.json().code, 'DBRST304');
    t.equal(authenticator.json().rendered_by, undefined);
  });
});
