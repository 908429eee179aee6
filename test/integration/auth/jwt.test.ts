// Authentication over real HTTP (PostgREST docs, "Authentication"; seed, "Authentication"): real
// tokens signed with jose for every success and failure, the role switch seen from SQL, the
// WWW-Authenticate challenge of every 401, and `Proxy-Status: dbrest; error=<code>` on every error,
// HEAD included.
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWTPayload } from 'jose';
import t, { type Test } from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestResponse, type TestServer } from '../../helpers/server.js';

const SECRET = 'auth-integration-secret-of-at-least-32-chars';
const OTHER_SECRET = 'some-other-secret-that-is-also-32-chars-long';
const now = () => Math.floor(Date.now() / 1000);

async function sign(claims: JWTPayload, secret = SECRET, alg = 'HS256'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}
const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

interface ErrorExpectation {
  readonly status: number;
  readonly code: string;
  readonly message?: string;
  readonly wwwAuthenticate?: string | null;
}

/** Status, body, Proxy-Status, WWW-Authenticate; then the same request as HEAD: same status and headers, no body. */
async function expectError(t: Test, s: TestServer, path: string, headers: Record<string, string>, want: ErrorExpectation): Promise<TestResponse> {
  const res = await s.request(path, { headers });
  t.equal(res.status, want.status, `${path}: status`);
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(res.headers['proxy-status'], `dbrest; error=${want.code}`, 'Proxy-Status names the error');
  const body = res.json();
  t.equal(body.code, want.code, 'code');
  t.same(Object.keys(body).sort(), ['code', 'details', 'hint', 'message'], 'the error model');
  if (want.message !== undefined) t.equal(body.message, want.message, 'message');
  if (want.wwwAuthenticate !== undefined) {
    t.equal(res.headers['www-authenticate'], want.wwwAuthenticate ?? undefined, 'WWW-Authenticate');
  }
  const head = await s.request(path, { method: 'HEAD', headers });
  t.equal(head.status, want.status, 'HEAD: same status');
  t.equal(head.text, '', 'HEAD: no body');
  t.equal(head.headers['proxy-status'], `dbrest; error=${want.code}`, 'HEAD: Proxy-Status names the error');
  if (want.wwwAuthenticate !== undefined) t.equal(head.headers['www-authenticate'], want.wwwAuthenticate ?? undefined);
  return res;
}

const invalidToken = (description: string) => `Bearer error="invalid_token", error_description="${description}"`;

t.test('with jwt-secret and db-anon-role', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': SECRET, 'jwt-aud': 'dbrest-tests' },
  });

  t.test('no token: the anonymous role', async (t) => {
    const res = await s.request('/whoami');
    t.equal(res.status, 200);
    t.same(res.json(), [{ role: 'auth_anon' }]);
  });

  t.test('HS256 token: the role of its role claim', async (t) => {
    const token = await sign({ role: 'auth_user', exp: now() + 60, aud: 'dbrest-tests' });
    const res = await s.request('/whoami', { headers: bearer(token) });
    t.equal(res.status, 200);
    t.same(res.json(), [{ role: 'auth_user' }]);
    t.notOk(res.headers['proxy-status'], 'no Proxy-Status on success');
  });

  t.test('HS384 and HS512 tokens verify with the same secret', async (t) => {
    for (const alg of ['HS384', 'HS512']) {
      const res = await s.request('/whoami', { headers: bearer(await sign({ role: 'auth_user' }, SECRET, alg)) });
      t.equal(res.status, 200, alg);
      t.same(res.json(), [{ role: 'auth_user' }], alg);
    }
  });

  t.test('a token without a role claim runs as the anonymous role', async (t) => {
    const res = await s.request('/whoami', { headers: bearer(await sign({ sub: 'alice' })) });
    t.equal(res.status, 200);
    t.same(res.json(), [{ role: 'auth_anon' }]);
  });

  t.test('the Bearer scheme is case-insensitive', async (t) => {
    const token = await sign({ role: 'auth_user' });
    const res = await s.request('/whoami', { headers: { Authorization: `bearer ${token}` } });
    t.same(res.json(), [{ role: 'auth_user' }]);
  });

  t.test('alg none: 401 DBRST301', async (t) => {
    const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ role: 'auth_user' })}.`;
    const res = await expectError(t, s, '/whoami', bearer(token), {
      status: 401, code: 'DBRST301', message: 'Wrong or unsupported encoding algorithm',
      wwwAuthenticate: invalidToken('Wrong or unsupported encoding algorithm'),
    });
    t.match(res.json().details, /none/);
  });

  t.test('signed with another key: 401 DBRST301', async (t) => {
    const token = await sign({ role: 'auth_user' }, OTHER_SECRET);
    await expectError(t, s, '/whoami', bearer(token), {
      status: 401, code: 'DBRST301', message: 'No suitable key or wrong key type',
      wwwAuthenticate: invalidToken('No suitable key or wrong key type'),
    });
  });

  t.test('a tampered payload: 401 DBRST301', async (t) => {
    const [h, , sig] = (await sign({ role: 'auth_anon' })).split('.');
    await expectError(t, s, '/whoami', bearer(`${h}.${b64url({ role: 'auth_user' })}.${sig}`), { status: 401, code: 'DBRST301' });
  });

  t.test('not a JWT: 401 DBRST301', async (t) => {
    await expectError(t, s, '/whoami', bearer('not-a-token'), {
      status: 401, code: 'DBRST301', message: 'Expected 3 parts in JWT; got 1',
      wwwAuthenticate: invalidToken('Expected 3 parts in JWT; got 1'),
    });
    await expectError(t, s, '/whoami', { Authorization: 'Bearer ' }, {
      status: 401, code: 'DBRST301', message: 'Empty JWT is sent in Authorization header',
    });
  });

  t.test('expired: 401 DBRST303', async (t) => {
    const token = await sign({ role: 'auth_user', exp: now() - 120 });
    await expectError(t, s, '/whoami', bearer(token), {
      status: 401, code: 'DBRST303', message: 'JWT expired', wwwAuthenticate: invalidToken('JWT expired'),
    });
  });

  t.test('expired by less than the 30 s clock skew: accepted', async (t) => {
    const res = await s.request('/whoami', { headers: bearer(await sign({ role: 'auth_user', exp: now() - 5 })) });
    t.equal(res.status, 200);
  });

  t.test('nbf in the future: 401 DBRST303', async (t) => {
    const token = await sign({ role: 'auth_user', nbf: now() + 300 });
    await expectError(t, s, '/whoami', bearer(token), {
      status: 401, code: 'DBRST303', message: 'JWT not yet valid', wwwAuthenticate: invalidToken('JWT not yet valid'),
    });
  });

  t.test('iat in the future: 401 DBRST303', async (t) => {
    const token = await sign({ role: 'auth_user', iat: now() + 300 });
    await expectError(t, s, '/whoami', bearer(token), { status: 401, code: 'DBRST303', message: 'JWT issued at future' });
  });

  t.test('wrong audience (jwt-aud set): 401 DBRST303', async (t) => {
    const token = await sign({ role: 'auth_user', aud: 'someone-else' });
    await expectError(t, s, '/whoami', bearer(token), {
      status: 401, code: 'DBRST303', message: 'JWT not in audience', wwwAuthenticate: invalidToken('JWT not in audience'),
    });
    const listed = await s.request('/whoami', { headers: bearer(await sign({ role: 'auth_user', aud: ['x', 'dbrest-tests'] })) });
    t.equal(listed.status, 200, 'an audience array that includes jwt-aud is accepted');
  });

  t.test('a non-numeric exp: 401 DBRST303', async (t) => {
    const token = await sign({ role: 'auth_user', exp: 'tomorrow' as unknown as number });
    await expectError(t, s, '/whoami', bearer(token), { status: 401, code: 'DBRST303', message: "The JWT 'exp' claim must be a number" });
  });

  t.test('a role that does not exist: the database error, 401 as PostgREST (ErrorSpec "when role does not exist")', async (t) => {
    const token = await sign({ role: 'auth_no_such_role' });
    const res = await expectError(t, s, '/whoami', bearer(token), { status: 401, code: '22023', wwwAuthenticate: 'Bearer' });
    t.equal(res.json().message, 'role "auth_no_such_role" does not exist');
  });

  t.test('another auth scheme is ignored: anonymous', async (t) => {
    const res = await s.request('/whoami', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    t.same(res.json(), [{ role: 'auth_anon' }]);
  });
});

t.test('jwt-role-claim-key at a nested path: .app.roles[0]', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': SECRET, 'jwt-role-claim-key': '.app.roles[0]' },
  });
  const nested = await s.request('/whoami', { headers: bearer(await sign({ app: { roles: ['auth_user', 'auth_timeout'] } })) });
  t.equal(nested.status, 200);
  t.same(nested.json(), [{ role: 'auth_user' }]);
  const topLevel = await s.request('/whoami', { headers: bearer(await sign({ role: 'auth_user' })) });
  t.same(topLevel.json(), [{ role: 'auth_anon' }], 'the top-level role claim is not read');
});

t.test('jwt-role-claim-key with a quoted key', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': SECRET, 'jwt-role-claim-key': '."https://example.com/claims".role' },
  });
  const res = await s.request('/whoami', { headers: bearer(await sign({ 'https://example.com/claims': { role: 'auth_user' } })) });
  t.same(res.json(), [{ role: 'auth_user' }]);
});

t.test('no db-anon-role: requests without a token get 401 DBRST302', async (t) => {
  const s = await startTestServer(t, { fixtures: [fixture('sql', 'auth.sql')], config: { 'jwt-secret': SECRET } });
  await expectError(t, s, '/whoami', {}, { status: 401, code: 'DBRST302', message: 'Anonymous access is disabled', wwwAuthenticate: 'Bearer' });
  await expectError(t, s, '/whoami', bearer(await sign({ sub: 'no role claim' })), {
    status: 401, code: 'DBRST302', wwwAuthenticate: 'Bearer',
  });
  const ok = await s.request('/whoami', { headers: bearer(await sign({ role: 'auth_user' })) });
  t.equal(ok.status, 200);
  t.same(ok.json(), [{ role: 'auth_user' }]);
});

t.test('a token but no jwt-secret: 500 DBRST300', async (t) => {
  const s = await startTestServer(t, { fixtures: [fixture('sql', 'auth.sql')], config: { 'db-anon-role': 'auth_anon' } });
  await expectError(t, s, '/whoami', bearer(await sign({ role: 'auth_user' })), {
    status: 500, code: 'DBRST300', message: 'Server lacks JWT secret', wwwAuthenticate: null,
  });
  t.same((await s.request('/whoami')).json(), [{ role: 'auth_anon' }], 'anonymous requests still work');
});

t.test('jwt-secret-is-base64', async (t) => {
  const raw = 'a-base64-encoded-secret-of-at-least-32-characters';
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': Buffer.from(raw).toString('base64'), 'jwt-secret-is-base64': 'true' },
  });
  const res = await s.request('/whoami', { headers: bearer(await sign({ role: 'auth_user' }, raw)) });
  t.equal(res.status, 200);
  t.same(res.json(), [{ role: 'auth_user' }]);
});

t.test('jwt-cache-max-lifetime: a token served from the cache keeps its role', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': SECRET, 'jwt-cache-max-lifetime': '60' },
  });
  const token = await sign({ role: 'auth_user', exp: now() + 60 });
  for (let i = 0; i < 3; i++) {
    const res = await s.request('/whoami', { headers: bearer(token) });
    t.same(res.json(), [{ role: 'auth_user' }], `request ${i + 1}`);
  }
});

t.test('jwt-secret as a JWKS: RS256 and ES256 keys chosen by kid', async (t) => {
  const rsa = await generateKeyPair('RS256');
  const ec = await generateKeyPair('ES256');
  const other = await generateKeyPair('RS256');
  const jwks = { keys: [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
  ] };
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': JSON.stringify(jwks) },
  });
  const signWith = (key: CryptoKey, alg: string, kid: string) =>
    new SignJWT({ role: 'auth_user' }).setProtectedHeader({ alg, kid }).sign(key);

  for (const [key, alg, kid] of [[rsa.privateKey, 'RS256', 'rsa-1'], [ec.privateKey, 'ES256', 'ec-1']] as const) {
    const res = await s.request('/whoami', { headers: bearer(await signWith(key, alg, kid)) });
    t.equal(res.status, 200, alg);
    t.same(res.json(), [{ role: 'auth_user' }], alg);
  }
  await expectError(t, s, '/whoami', bearer(await signWith(other.privateKey, 'RS256', 'rsa-1')), {
    status: 401, code: 'DBRST301', wwwAuthenticate: invalidToken('No suitable key or wrong key type'),
  });
  await expectError(t, s, '/whoami', bearer(await signWith(rsa.privateKey, 'RS256', 'unknown-kid')), { status: 401, code: 'DBRST301' });
  await expectError(t, s, '/whoami', bearer(await sign({ role: 'auth_user' }, SECRET)), {
    status: 401, code: 'DBRST301', message: 'No suitable key or wrong key type',
  });
});
