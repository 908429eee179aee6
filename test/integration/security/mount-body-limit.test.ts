// Issue #26, finding 5: route mounts have their own body limits (`max-body-size`, and
// `max-body-size-by-media` per media type, on a group or a route), decided from the request head: a
// larger body is answered 413 in the group's error shape without being read, and without a request
// transaction reaching PostgreSQL (`xsec.reached`, see xml-dtd.test.ts). Paths no mount claims keep
// server-max-body-size.
import http from 'node:http';
import t from 'tap';
import { fixture, queryOnce } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const ROUTES = [{
  prefix: '/api/x',
  schema: 'xsec',
  'pre-request': 'pre',
  'error-handler': 'render_error',
  'max-body-size': '4KB',
  'max-body-size-by-media': { 'application/xml': '1KB' },
  routes: [
    { method: 'POST', path: '/length', call: 'body_length', args: { body: 'body' } },
    { method: 'POST', path: '/upload', call: 'body_length', args: { body: 'body' }, 'max-body-size': '64KB' },
    { method: 'POST', path: '/upload-xml', call: 'body_length', args: { body: 'body' }, 'max-body-size-by-media': { 'application/xml': '16KB' } },
  ],
}];

const reached = async (s: TestServer) => Number((await queryOnce(s.db.uri, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM xsec.reached`))[0]!['n']);

const post = (s: TestServer, path: string, ct: string, bytes: number) =>
  s.request(path, { method: 'POST', headers: { 'Content-Type': ct }, body: 'a'.repeat(bytes) });

/** A chunked POST that sends `bytes` and then keeps the request open; resolves with the answer's status. */
function streamWithoutEnd(s: TestServer, path: string, bytes: number, headers: Record<string, string> = {}): Promise<{ status: number; ended: boolean }> {
  return new Promise((resolve, reject) => {
    let ended = false;
    const req = http.request(s.url + path, { method: 'POST', headers: { 'Content-Type': 'text/plain', ...headers }, agent: false });
    req.on('response', (res) => {
      resolve({ status: res.statusCode ?? 0, ended });
      res.resume();
      req.destroy();
    });
    req.on('error', (e) => (ended ? undefined : reject(e)));
    req.write('a'.repeat(bytes));
    // Never ended: a server that waited for the whole body would never answer.
    setTimeout(() => {
      ended = true;
      req.destroy();
    }, 10_000).unref();
  });
}

t.test('route mount body limits', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'xml-security.sql')],
    config: {
      'db-schemas': 'xsec', 'db-anon-role': 'xsec_anon', 'db-pre-request': 'xsec.pre',
      'server-max-body-size': String(1024 * 1024), routes: JSON.stringify(ROUTES),
    },
  });

  t.test("the group's max-body-size", async (t) => {
    const ok = await post(s, '/api/x/length', 'text/plain', 4096);
    t.equal(ok.status, 200, ok.text);
    t.equal(ok.json(), 4096);
    const before = await reached(s);
    const big = await post(s, '/api/x/length', 'text/plain', 4097);
    t.equal(big.status, 413);
    t.equal(big.headers['proxy-status'], 'dbrest; error=DBRST604');
    // Rendered by the group's error handler, as its other errors.
    t.match(big.json(), { Error: { status: 413, code: 'DBRST604', details: /larger than 4096 bytes \(max-body-size of the route group\)/ } });
    t.equal(await reached(s), before, 'no request transaction reached PostgreSQL');
  });

  t.test('max-body-size-by-media: the most specific range, +xml as XML, an unreadable type the smallest', async (t) => {
    const before = await reached(s);
    for (const ct of ['application/xml', 'application/xml; charset=utf-8', 'application/vnd.cms.api.SessionInput+xml', 'application/xml;;;', 'nonsense']) {
      const res = await post(s, '/api/x/length', ct, 2048);
      t.equal(res.status, 413, ct);
      t.match(res.json(), { Error: { code: 'DBRST604', details: /larger than 1024 bytes \(max-body-size-by-media "application\/xml" of the route group\)/ } }, ct);
    }
    t.equal(await reached(s), before, 'no request transaction reached PostgreSQL');
    t.equal((await post(s, '/api/x/length', 'application/xml', 1024)).json(), 1024, 'at the limit: taken');
    t.equal((await post(s, '/api/x/length', 'text/plain', 2048)).json(), 2048, 'another type: the group max-body-size');
  });

  t.test("a route's settings replace its group's", async (t) => {
    t.equal((await post(s, '/api/x/upload', 'text/plain', 60 * 1024)).json(), 60 * 1024, 'larger than the group allows');
    const big = await post(s, '/api/x/upload', 'text/plain', 64 * 1024 + 1);
    t.equal(big.status, 413);
    t.match(big.json(), { Error: { details: /larger than 65536 bytes \(max-body-size of the route\)/ } });
    t.equal((await post(s, '/api/x/upload', 'application/xml', 2048)).status, 413, "the group's by-media entry still applies to XML");
    t.equal((await post(s, '/api/x/upload-xml', 'application/xml', 10 * 1024)).json(), 10 * 1024);
    const xml = await post(s, '/api/x/upload-xml', 'application/xml', 16 * 1024 + 1);
    t.equal(xml.status, 413);
    t.match(xml.json(), { Error: { details: /max-body-size-by-media "application\/xml" of the route\)/ } });
  });

  t.test('a body over the limit is not read: the answer comes while the client is still sending', async (t) => {
    const before = await reached(s);
    const chunked = await streamWithoutEnd(s, '/api/x/length', 8 * 1024);
    t.same(chunked, { status: 413, ended: false }, 'chunked: 413 before the request ended');
    // Announced as 100 MB, a few bytes sent: refused from the head alone.
    const announced = await streamWithoutEnd(s, '/api/x/length', 10, { 'Content-Length': String(100 * 1024 * 1024) });
    t.same(announced, { status: 413, ended: false }, 'Content-Length over the limit: 413 at once');
    t.equal(await reached(s), before);
    t.equal((await post(s, '/api/x/length', 'text/plain', 10)).json(), 10, 'the server answers others after');
  });

  t.test('paths no mount claims keep server-max-body-size', async (t) => {
    const json = (n: number) => JSON.stringify({ body: 'a'.repeat(n) });
    const ok = await s.request('/rpc/body_length', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: json(100 * 1024) });
    t.equal(ok.status, 200, ok.text);
    t.equal(ok.json(), 100 * 1024);
    const big = await s.request('/rpc/body_length', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: json(1024 * 1024) });
    t.equal(big.status, 413);
    t.match(big.json(), { code: 'DBRST604', details: /larger than 1048576 bytes \(server-max-body-size\)/ });
  });
});
