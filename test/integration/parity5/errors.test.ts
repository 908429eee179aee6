// Issue 28, item 10 (the rest): JWT decode errors with the texts of PostgREST's ErrorSpec ("Test JWT
// Token format errors"), and "Perhaps you meant" hints exactly where PostgREST's fuzzy match gives one.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }, config: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity5.sql')],
    config: { 'db-schemas': 'parity5', 'db-anon-role': 'postgres', ...config },
  });
}

t.test('JWT decode errors as PostgREST words them', async (t) => {
  const s = await server(t, { 'jwt-secret': 'reallyreallyreallyreallyverysafe' });
  const call = (token: string) => s.request('/projects', { headers: { Authorization: `Bearer ${token}` } });

  const random = await call('quifquirndsjagnrgniur.fonvoienqhhdj.iuqvnvhojah');
  t.equal(random.status, 401, 'random characters: status');
  t.same(random.json(), { code: 'DBRST301', details: null, hint: null, message: 'JWT cryptographic operation failed' });
  t.equal(random.headers['www-authenticate'], 'Bearer error="invalid_token", error_description="JWT cryptographic operation failed"');

  const none = await call('eyJ0eXAiOiJKV1QiLCJhbGciOiJub25lIn0.e30.yOBhlOIqn56T-4NvyEXCjfi3UmyQZ-BzXtePMO2NgRI');
  t.equal(none.status, 401, 'alg none: status');
  t.same(none.json(), {
    code: 'DBRST301',
    details: "JWT is unsecured but expected 'alg' was not 'none'",
    hint: null,
    message: 'Wrong or unsupported encoding algorithm',
  });

  // An RS256 token where only an HMAC secret is configured: no key of that type.
  const rs256 = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.e30.c2ln';
  const noKey = await call(rs256);
  t.equal(noKey.status, 401, 'no key for the algorithm: status');
  t.same(noKey.json(), { code: 'DBRST301', details: 'No suitable key was found to decode the JWT', hint: null, message: 'No suitable key or wrong key type' });
});

t.test('a hint only where PostgREST\'s fuzzy match finds one', async (t) => {
  const s = await server(t);
  // Edit distance says "(xbz)" is 40% like "(abc)"; the fuzzy set shares no n-gram, so no hint.
  const noHint = await s.request('/rpc/one_param?abc=1');
  t.equal(noHint.status, 404);
  t.same(noHint.json(), {
    code: 'DBRST202',
    details: 'Searched for the function parity5.one_param with parameter abc, but no matches were found in the schema cache.',
    hint: null,
    message: 'Could not find the function parity5.one_param(abc) in the schema cache',
  });
  const hint = await s.request('/rpc/one_param?xbx=1');
  t.equal(hint.json().hint, 'Perhaps you meant to call the function parity5.one_param(xbz)', 'a close parameter list');
  // ErrorSpec: at least 75% similar to a table name.
  t.equal((await s.request('/projecxx')).json().hint, "Perhaps you meant the table 'parity5.projects'");
  t.equal((await s.request('/projxxxx')).json().hint, null);
});
