// log-format=json (issue 29): one JSON object per line, an access event per request with its fields,
// lifecycle events, and never a secret: the JWT secret, the database password, a token, a cookie or
// an Authorization header sent to the server appear nowhere in the whole output.
import t from 'tap';
import { SignJWT } from 'jose';
import { freePort } from '../../../src/embedded/postgres.js';
import { startServer } from '../../../src/http/start.js';
import { createJsonLogger } from '../../../src/observe/json-log.js';
import { createTestDatabase } from '../../helpers/db.js';
import { httpRequest, testConfig } from '../../helpers/server.js';
import { OPS_ROUTES, OPS_SQL } from './fixture.js';

const SECRET = 'ops-test-secret-0123456789-abcdefghijklmnop';
const COOKIE = 'session=cookie-value-5f8e2a91';
const BASIC = 'Basic b3BzOnBhc3N3b3JkLTc3MjE=';

t.test('JSON access and lifecycle events carry their fields and no secret', async (t) => {
  const db = await createTestDatabase([OPS_SQL]);
  t.teardown(() => db.drop());
  const admin = await freePort();
  const config = await testConfig(db.uri, {
    'db-anon-role': 'ops_anon', 'jwt-secret': SECRET, 'log-level': 'info', 'log-format': 'json',
    'admin-server-port': String(admin), routes: OPS_ROUTES,
  });
  t.equal(config.logFormat, 'json');
  const lines: string[] = [];
  const server = await startServer(config, db.uri, createJsonLogger(config.logLevel, (l) => void lines.push(l)));
  t.teardown(() => server.close());
  const jwt = await new SignJWT({ role: 'ops_user' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

  const r1 = await httpRequest(`${server.url}/items?id=eq.1`, {
    headers: { Authorization: `Bearer ${jwt}`, Cookie: COOKIE, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
  });
  t.equal(r1.status, 200);
  // Not a Bearer token: ignored, the request runs anonymously (PostgREST).
  const r2 = await httpRequest(`${server.url}/items?id=eq.2`, { headers: { Authorization: BASIC, Cookie: COOKIE } });
  t.equal(r2.status, 200);
  const r3 = await httpRequest(`${server.url}/things/2`, { headers: { Authorization: 'Bearer not.a.jwt' } });
  t.equal(r3.status, 401);
  // The admin endpoints print the configuration and the schema cache; they log nothing secret either.
  await httpRequest(`http://127.0.0.1:${admin}/config`);
  await server.reloadSchemaCache();

  const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  t.ok(events.length > 0);
  for (const e of events) {
    t.type(e.time, 'string');
    t.type(e.level, 'string');
  }
  const access = events.filter((e) => e.event === 'request');
  t.equal(access.length, 3, 'one access event per request');
  const first = access.find((e) => e.role === 'ops_user')!;
  t.match(access.find((e) => e.role === 'ops_anon'), { route: '/items', status: 200 });
  t.match(first, { method: 'GET', route: '/items', status: 200, code: null, role: 'ops_user', trace_id: traceId, level: 'info' });
  t.type(first.id, 'string');
  t.equal(first.id, r1.headers['x-request-id'], 'the id is the X-Request-Id sent back');
  t.type(first.duration_ms, 'number');
  t.type(first.db_ms, 'number');
  t.equal(first.bytes, r1.bytes.length);
  const mounted = access.find((e) => e.route === '/things/:id(int)')!;
  t.match(mounted, { status: 401, code: 'DBRST301', trace_id: null, role: null });

  const loaded = events.filter((e) => e.event === 'schema_cache_loaded');
  t.equal(loaded.length, 2, 'the first load and the reload');
  t.match(loaded[0], { relations: 2, functions: 2, reload: false });
  t.match(loaded[1], { reload: true });

  // The whole output, searched for every secret this test used.
  const all = lines.join('\n');
  const password = decodeURIComponent(new URL(db.uri).password);
  const secrets = [SECRET, jwt, jwt.split('.')[2]!, 'cookie-value-5f8e2a91', BASIC, 'b3BzOnBhc3N3b3JkLTc3MjE=', 'not.a.jwt'];
  if (password) secrets.push(password);
  for (const s of secrets) t.notOk(all.includes(s), `no "${s.slice(0, 12)}…" in the log`);
  t.notOk(/authorization|cookie/i.test(all), 'no header names either');
});

// The body's length is measured once for its Content-Length and its event (http/server.ts keeps the
// last): answers of as many characters but not as many bytes, one after the other, each get their own.
t.test('each access event counts its own answer\'s bytes, as its Content-Length does', async (t) => {
  const db = await createTestDatabase([OPS_SQL, `
    CREATE FUNCTION echo(t text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT t';
    GRANT EXECUTE ON FUNCTION echo(text) TO ops_anon;`]);
  t.teardown(() => db.drop());
  const config = await testConfig(db.uri, { 'db-anon-role': 'ops_anon', 'log-level': 'info', 'log-format': 'json' });
  const lines: string[] = [];
  const server = await startServer(config, db.uri, createJsonLogger(config.logLevel, (l) => void lines.push(l)));
  t.teardown(() => server.close());
  const sent = ['e', 'é', 'e', '€', '€', 'e'];
  const answers = [];
  for (const s of sent) answers.push(await httpRequest(`${server.url}/rpc/echo?t=${encodeURIComponent(s)}`));
  const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.event === 'request');
  t.equal(access.length, sent.length);
  answers.forEach((r, i) => {
    t.equal(r.status, 200);
    t.equal(Number(r.headers['content-length']), r.bytes.length, `answer ${i}: Content-Length`);
    t.equal(access[i]!.bytes, r.bytes.length, `answer ${i} (${r.bytes.length} bytes): its event's bytes`);
  });
  t.same(answers.map((r) => r.bytes.length), [3, 4, 3, 5, 5, 3], 'three lengths in bytes, one in characters');
});
