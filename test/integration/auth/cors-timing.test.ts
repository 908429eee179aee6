// CORS (PostgREST docs, "CORS": permissive by default, server-cors-allowed-origins restricts,
// preflights answered with a 24 h max-age) and Server-Timing (PostgREST docs, "Server-Timing":
// jwt, parse, plan, transaction, response when server-timing-enabled).
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const EXPOSE = 'Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit';

t.test('CORS, default (any origin)', async (t) => {
  const s = await startTestServer(t, { fixtures: [fixture('sql', 'auth.sql')], config: { 'db-anon-role': 'auth_anon' } });

  t.test('a POST preflight, exactly as the docs show it', async (t) => {
    const res = await s.request('/whoami', {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'Content-Type' },
    });
    t.equal(res.status, 200);
    // Any origin allowed: `*` without credentials (PostgREST's CorsSpec, issue 12 item 8).
    t.equal(res.headers['access-control-allow-origin'], '*');
    t.equal(res.headers['access-control-allow-credentials'], undefined);
    t.equal(res.headers['access-control-allow-methods'], 'GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD');
    t.equal(res.headers['access-control-allow-headers'], 'Authorization, Content-Type, Accept, Accept-Language, Content-Language');
    t.equal(res.headers['access-control-max-age'], '86400');
    t.equal(res.text, '');
  });

  t.test('requested headers come after Authorization, then the simple headers (PostgREST CorsSpec)', async (t) => {
    const res = await s.request('/', {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'Foo,Bar' },
    });
    t.equal(res.headers['access-control-allow-headers'], 'Authorization, Foo, Bar, Accept, Accept-Language, Content-Language');
    const prefer = await s.request('/whoami', {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.com', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization, prefer, accept' },
    });
    t.equal(prefer.headers['access-control-allow-headers'], 'Authorization, prefer, accept, Accept-Language, Content-Language', 'no duplicates');
  });

  t.test('a preflight never reaches the database or authentication', async (t) => {
    const res = await s.request('/secrets', {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.com', 'Access-Control-Request-Method': 'GET', Authorization: 'Bearer garbage' },
    });
    t.equal(res.status, 200);
    t.equal(res.headers['access-control-allow-origin'], '*');
  });

  t.test('an ordinary request with Origin: allow any origin, expose the headers', async (t) => {
    const res = await s.request('/whoami', { headers: { Origin: 'http://example.com' } });
    t.equal(res.status, 200);
    t.equal(res.headers['access-control-allow-origin'], '*');
    t.notOk(res.headers['access-control-allow-credentials'], 'no credentials with *');
    t.equal(res.headers['access-control-expose-headers'], EXPOSE);
  });

  t.test('errors carry the CORS headers too (the browser must be able to read them)', async (t) => {
    const res = await s.request('/secrets', { headers: { Origin: 'http://example.com' } });
    t.equal(res.status, 401);
    t.equal(res.headers['access-control-allow-origin'], '*');
  });

  t.test('OPTIONS that is not a preflight (no Access-Control-Request-Method) is answered by the resource (PostgREST CorsSpec)', async (t) => {
    const res = await s.request('/whoami', { method: 'OPTIONS', headers: { Origin: 'http://localhost:8000', Accept: 'text/csv, */*; q=0.01' } });
    t.equal(res.status, 200);
    t.equal(res.headers['access-control-allow-origin'], '*');
    t.ok(res.headers['allow'], `Allow: ${res.headers['allow']}`);
    t.notOk(res.headers['access-control-allow-methods'], 'not a preflight answer');
  });

  t.test('no Origin: no CORS headers', async (t) => {
    const res = await s.request('/whoami');
    t.notOk(res.headers['access-control-allow-origin']);
    t.notOk(res.headers['access-control-expose-headers']);
  });
});

t.test('CORS with server-cors-allowed-origins', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'server-cors-allowed-origins': 'http://example.com, http://example2.com' },
  });

  t.test('an allowed origin: preflight and ordinary request name it, with credentials', async (t) => {
    const pre = await s.request('/whoami', {
      method: 'OPTIONS',
      headers: { Origin: 'http://example2.com', 'Access-Control-Request-Method': 'GET' },
    });
    t.equal(pre.status, 200);
    t.equal(pre.headers['access-control-allow-origin'], 'http://example2.com');
    t.equal(pre.headers['access-control-allow-credentials'], 'true');
    t.equal(pre.headers['access-control-allow-headers'], 'Authorization, Accept, Accept-Language, Content-Language');
    const res = await s.request('/whoami', { headers: { Origin: 'http://example.com' } });
    t.equal(res.status, 200);
    t.equal(res.headers['access-control-allow-origin'], 'http://example.com');
    t.equal(res.headers['access-control-allow-credentials'], 'true');
    t.equal(res.headers['access-control-expose-headers'], EXPOSE);
  });

  t.test('another origin: no CORS headers at all (the browser refuses)', async (t) => {
    const pre = await s.request('/whoami', {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'GET' },
    });
    t.notOk(pre.headers['access-control-allow-origin'], 'preflight: no Allow-Origin');
    t.notOk(pre.headers['access-control-allow-methods'], 'preflight: no Allow-Methods');
    const res = await s.request('/whoami', { headers: { Origin: 'http://evil.example' } });
    t.equal(res.status, 200, 'the server still answers; enforcement is the browser\'s');
    t.notOk(res.headers['access-control-allow-origin']);
    t.notOk(res.headers['access-control-expose-headers']);
  });
});

t.test('Server-Timing', async (t) => {
  t.test('absent unless server-timing-enabled', async (t) => {
    const s = await startTestServer(t, { fixtures: [fixture('sql', 'auth.sql')], config: { 'db-anon-role': 'auth_anon' } });
    const res = await s.request('/whoami');
    t.equal(res.status, 200);
    t.notOk(res.headers['server-timing']);
  });

  t.test('present on reads when server-timing-enabled', async (t) => {
    const s = await startTestServer(t, {
      fixtures: [fixture('sql', 'auth.sql')],
      config: { 'db-anon-role': 'auth_anon', 'server-timing-enabled': 'true' },
    });
    const res = await s.request('/whoami');
    t.equal(res.status, 200);
    const header = res.headers['server-timing'];
    t.ok(header, `Server-Timing: ${String(header)}`);
    if (header) {
      t.match(header, /^jwt;dur=\d+\.\d, parse;dur=\d+\.\d, plan;dur=\d+\.\d, transaction;dur=\d+\.\d, response;dur=\d+\.\d$/,
        "PostgREST's stages, in order");
    }
  });
});
