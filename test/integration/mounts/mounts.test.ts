// Route mounts over real HTTP (engine spec §5): every binding source, typed segments, `*rest`, both
// trailing-slash spellings, 405 + Allow, HEAD, OPTIONS, status/header/cookie setting (201, 204, 302,
// Set-Cookie), `produces` negotiation, relation mounts with PostgREST's grammar, the group's
// pre-request, JWT roles, one transaction per request, and a group's own error shape (JSON and XML)
// for the engine's errors and the functions' raises alike.
import { SignJWT } from 'jose';
import { Readable } from 'node:stream';
import { request as undiciRequest } from 'undici';
import t from 'tap';
import { startMountServer } from './mount-server.js';

const SECRET = 'mount-integration-secret-of-at-least-32-chars';

/** `<Error><status>404</status>…</Error>` → { status: '404', … } (flat elements are all this API sends). */
function xmlFields(xml: string): Record<string, string> {
  const root = /^<(\w+)>([\s\S]*)<\/\1>$/.exec(xml.trim());
  if (!root) throw new Error(`not one XML element: ${xml}`);
  const out: Record<string, string> = { _root: root[1]! };
  for (const m of root[2]!.matchAll(/<(\w+)>([^<]*)<\/\1>/g)) out[m[1]!] = m[2]!;
  return out;
}

t.test('route mounts', async (t) => {
  const s = await startMountServer(t, { 'jwt-secret': SECRET, 'server-max-body-size': '2048' });

  t.test('every binding source reaches its argument', async (t) => {
    const res = await s.request('/api/shop/echo/a%20b?q=first&q=second&n=1&n=2&x=y', {
      headers: { 'X-Thing': 'thing', Cookie: 'session=s1; other=o' },
    });
    t.equal(res.status, 200);
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    const body = res.json();
    t.equal(body.path, 'a b', 'path.<name>, percent-decoded');
    t.equal(body.query, 'first', 'query.<name>: the first occurrence');
    t.same(body.all, { q: ['first', 'second'], n: ['1', '2'], x: 'y' }, 'query: every parameter, repeated ones as arrays');
    t.equal(body.header, 'thing', 'header.<name>, case-insensitive');
    t.equal(body.cookie, 's1', 'cookie.<name>');
    t.equal(body.method, 'GET', 'method');
    t.same(body.list, [1, 2], 'an array argument takes every value of a repeated parameter');
    t.equal(body.opt, 'fallback', 'an absent optional argument keeps its default');
    t.equal(body.media, 'application/json', 'media: the type negotiated from produces');
    t.equal(body.role, 'mount_anon');
    t.equal(body.gucPath, '/api/shop/echo/a%20b', 'request.path is the mounted path');
    t.equal(body.gucMethod, 'GET');
    t.same(body.gucCookies, { session: 's1', other: 'o' }, 'request.cookies');
    t.equal(res.headers['content-range'], undefined, "no /rpc Content-Range on a mount's answer");

    const post = (await s.request('/api/shop/echo/z?opt=given', { method: 'POST' })).json();
    t.equal(post.method, 'POST');
    t.equal(post.opt, 'given');
    t.equal(post.header, null, 'an absent required source is NULL');
    t.same(post.all, { opt: 'given' });
  });

  t.test('typed segments, *rest, trailing slashes', async (t) => {
    t.same((await s.request('/api/shop/items/1')).json(), { id: 1, name: 'apple', qty: 3 });
    t.same((await s.request('/api/shop/items/1/')).json(), { id: 1, name: 'apple', qty: 3 }, 'with a trailing slash');
    const notInt = await s.request('/api/shop/items/abc');
    t.equal(notInt.status, 404, 'a segment that is not an int does not match');
    t.equal(notInt.json().Error.code, 'DBRST600');
    t.equal((await s.request('/api/shop/items/-1')).status, 404, 'int means decimal digits');
    const tail = await s.request('/api/shop/files/docs/a%2Fb/c.txt');
    t.equal(tail.status, 200);
    t.equal(tail.json(), 'file:docs/a/b/c.txt', '*rest spans segments');
    t.equal((await s.request('/api/shop/files')).status, 404, 'a tail needs at least one segment... or is an unknown path');
    t.equal((await s.request('/hello/ann')).json(), 'ANN', 'a mount without a prefix');
  });

  t.test('405 with Allow, OPTIONS, HEAD', async (t) => {
    const put = await s.request('/api/shop/items/1', { method: 'PUT' });
    t.equal(put.status, 405);
    t.equal(put.headers['allow'], 'GET, HEAD, DELETE');
    t.equal(put.headers['proxy-status'], 'dbrest; error=DBRST601');
    t.match(put.json(), { Error: { status: 405, reason: 'Method Not Allowed', code: 'DBRST601' } });

    const options = await s.request('/api/shop/items', { method: 'OPTIONS' });
    t.equal(options.status, 200);
    t.equal(options.headers['allow'], 'GET, HEAD, POST');
    t.equal(options.text, '');

    const head = await s.request('/api/shop/items/2', { method: 'HEAD' });
    t.equal(head.status, 200, 'HEAD is served for every GET mount');
    t.equal(head.text, '');
    t.equal(head.headers['content-type'], 'application/json; charset=utf-8');
    const headMissing = await s.request('/api/shop/items/99', { method: 'HEAD' });
    t.equal(headMissing.status, 404);
    t.equal(headMissing.text, '', 'an error to HEAD has no body');
    t.equal(headMissing.headers['proxy-status'], 'dbrest; error=PT404');
  });

  t.test('functions set status, headers and cookies', async (t) => {
    const created = await s.request('/api/shop/items', { method: 'POST', body: { name: 'kiwi', qty: 4 } });
    t.equal(created.status, 201);
    const location = created.headers['location']!;
    t.match(location, /^\/api\/shop\/items\/\d+$/);
    t.equal(created.text, '');
    t.same((await s.request(location)).json(), { id: Number(location.split('/').pop()), name: 'kiwi', qty: 4 });

    const xmlOnly = await s.request('/api/shop/items', { method: 'POST', headers: { Accept: 'application/xml' }, body: { name: 'fig' } });
    t.equal(xmlOnly.status, 201, 'a void function has no body, so any Accept the mount takes will do');
    t.equal(xmlOnly.headers['content-type'], undefined);

    const found = await s.request('/api/shop/find?name=kiwi');
    t.equal(found.status, 302);
    t.equal(found.headers['location'], location);

    const deleted = await s.request(location, { method: 'DELETE' });
    t.equal(deleted.status, 204);
    t.equal(deleted.text, '');
    const again = await s.request(location, { method: 'DELETE' });
    t.equal(again.status, 404);
    t.match(again.json(), { Error: { status: 404, code: 'PT404', description: `Item ${location.split('/').pop()} does not exist` } });

    const login = await s.request('/api/shop/login/ann', { method: 'POST' });
    t.equal(login.status, 200);
    t.same(login.json(), { user: 'ann' });
    // undici joins repeated headers with ', '.
    t.equal(login.headers['set-cookie'], 'sid=ann; Path=/; HttpOnly, theme=dark; Path=/', 'two Set-Cookie headers');
  });

  t.test('produces: Accept negotiated with q-values, wildcards and +xml/+json suffixes', async (t) => {
    const xml = await s.request('/api/shop/items/1/repr', { headers: { Accept: 'application/vnd.shop.Item+xml' } });
    t.equal(xml.status, 200);
    t.equal(xml.headers['content-type'], 'application/vnd.shop.Item+xml');
    t.equal(xml.text, '<Item id="1"><name>apple</name></Item>');
    const json = await s.request('/api/shop/items/1/repr', { headers: { Accept: 'application/xml;q=0.5, application/json' } });
    t.equal(json.headers['content-type'], 'application/vnd.shop.Item+json');
    t.same(json.json(), { Item: { id: 1, name: 'apple' } });
    const any = await s.request('/api/shop/items/1/repr', { headers: { Accept: '*/*' } });
    t.same(any.json(), { Item: { id: 1, name: 'apple' } }, '*/* gets the first produced type');
    const textXml = await s.request('/api/shop/items/1/repr', { headers: { Accept: 'text/html, text/xml;q=0.2' } });
    t.equal(textXml.headers['content-type'], 'application/vnd.shop.Item+xml', 'text/xml is served by application/xml');
    const none = await s.request('/api/shop/items/1/repr', { headers: { Accept: 'text/html' } });
    t.equal(none.status, 406);
    t.equal(none.headers['content-type'], 'application/vnd.shop.Error+json', 'nothing acceptable: the error in the first produced type');
    t.match(none.json(), { Error: { status: 406, reason: 'Not Acceptable', code: 'DBRST107' } });
  });

  t.test("the group's error shape, JSON and XML, for engine errors and raises", async (t) => {
    const cases: Array<[string, string, Record<string, string>, string | undefined, number, string]> = [
      ['GET', '/api/shop/nothing/here', {}, undefined, 404, 'DBRST600'],
      ['GET', '/api/shop', {}, undefined, 404, 'DBRST600'],
      ['GET', '/api/shop/items/99/repr', {}, undefined, 404, 'PT404'],
      ['GET', '/api/shop/repr?id=many', {}, undefined, 400, '22P02'],
      ['POST', '/api/shop/items', { 'Content-Type': 'application/json' }, '{"name":', 400, 'DBRST102'],
      ['POST', '/api/shop/items', { 'Content-Type': 'text/csv' }, 'name\nx', 415, 'DBRST602'],
      ['POST', '/api/shop/shout', { 'Content-Type': 'application/json' }, '"hi"', 415, 'DBRST602'],
      ['GET', '/api/shop/items/1/repr', { 'X-Block': 'yes' }, undefined, 401, 'PT401'],
      ['GET', '/api/shop/items/1', { Authorization: 'Bearer not-a-token' }, undefined, 401, 'DBRST301'],
      ['GET', '/api/shop/broken', {}, undefined, 500, 'DBRST603'],
      ['POST', '/api/shop/items', { 'Content-Type': 'application/json' }, JSON.stringify({ name: 'x'.repeat(4000) }), 413, 'DBRST604'],
    ];
    for (const [method, path, headers, body, status, code] of cases) {
      for (const format of ['json', 'xml'] as const) {
        const accept = format === 'xml' ? 'application/xml' : 'application/json';
        const res = await s.request(path, { method, headers: { ...headers, Accept: accept }, ...(body !== undefined ? { body } : {}) });
        const label = `${method} ${path} (${format})`;
        t.equal(res.status, status, `${label}: status`);
        t.equal(res.headers['proxy-status'], `dbrest; error=${code}`, `${label}: Proxy-Status`);
        t.equal(res.headers['content-type'], `application/vnd.shop.Error+${format}`, `${label}: Content-Type`);
        if (format === 'json') t.match(res.json(), { Error: { status, code } }, `${label}: body`);
        else t.match(xmlFields(res.text), { _root: 'Error', status: String(status) }, `${label}: body`);
      }
    }
    const jsonOnly = await s.request('/api/shop/items/1', { headers: { Accept: 'application/xml' } });
    t.equal(jsonOnly.status, 406, 'a function answering JSON only cannot answer XML');
    t.equal(jsonOnly.headers['content-type'], 'application/vnd.shop.Error+xml', 'the 406 itself in the XML the client asked for');
    const badArg = await s.request('/api/shop/items?limit=many');
    t.equal(badArg.status, 400);
    t.match(badArg.json(), { Error: { status: 400, code: '22P02' } });
    const teapot = await s.request('/api/shop/teapot');
    t.equal(teapot.status, 418, 'a DBRST raise keeps its status');
    t.equal(teapot.headers['x-pot'], 'tea', 'and its headers');
    t.match(teapot.json(), { Error: { status: 418, reason: 'I am a teapot', code: 'TEA', description: 'Short and stout' } });
    const unauthorized = await s.request('/api/shop/items/1', { headers: { Authorization: 'Bearer not-a-token' } });
    t.match(unauthorized.headers['www-authenticate'], /^Bearer/, 'the error\'s own headers are kept');
  });

  t.test('a JWT role runs the mounted call', async (t) => {
    const token = await new SignJWT({ role: 'mount_user' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
    const res = await s.request('/api/shop/echo/x', { headers: { Authorization: `Bearer ${token}` } });
    t.equal(res.status, 200);
    t.equal(res.json().role, 'mount_user');
  });

  t.test('bodies: XML and plain text', async (t) => {
    const xml = await s.request('/api/shop/xml-name', { method: 'POST', headers: { 'Content-Type': 'application/xml' }, body: '<item><name>fig</name></item>' });
    t.equal(xml.status, 200);
    t.equal(xml.json(), 'fig');
    const badXml = await s.request('/api/shop/xml-name', { method: 'POST', headers: { 'Content-Type': 'text/xml' }, body: '<item><name>fig</item>' });
    t.equal(badXml.status, 400, 'malformed XML is a 400');
    const text = await s.request('/api/shop/shout', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'quiet' });
    t.equal(text.json(), 'QUIET');
  });

  t.test('one transaction: a failing request leaves nothing behind', async (t) => {
    const before = await s.db.query('SELECT count(*)::int AS n FROM shop.audit');
    const res = await s.request('/api/shop/fail/ghost', { method: 'POST' });
    t.equal(res.status, 400, 'a check violation');
    t.equal(res.json().Error.code, '23514');
    t.same(await s.db.query("SELECT * FROM shop.audit WHERE what = 'fail ghost'"), [], 'the audit row of the failed call is gone');
    t.same(await s.db.query('SELECT count(*)::int AS n FROM shop.audit'), before);
  });

  t.test('relation mounts answer PostgREST\'s grammar below their path', async (t) => {
    const list = await s.request('/api/shop/stock?select=name&qty=gt.1&order=name.desc');
    t.equal(list.status, 200);
    t.same(list.json(), [{ name: 'plum' }, { name: 'apple' }]);
    t.equal(list.headers['content-range'], '0-1/*');
    const one = await s.request('/api/shop/stock/3', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    t.equal(one.status, 200);
    t.same(one.json(), { id: 3, name: 'plum', qty: 7 }, 'a path-bound column is an eq filter');
    const patched = await s.request('/api/shop/stock/3', { method: 'PATCH', headers: { Prefer: 'return=representation' }, body: { qty: 8 } });
    t.equal(patched.status, 200);
    t.same(patched.json(), [{ id: 3, name: 'plum', qty: 8 }]);
    t.equal((await s.request('/api/shop/stock/3', { method: 'DELETE' })).status, 405, 'methods the mount does not list');
    const bad = await s.request('/api/shop/stock?nope=eq.1');
    t.equal(bad.status, 400);
    t.equal(bad.json().Error.code, '42703');

    const created = await s.request('/api/shop/stock/', { method: 'POST', headers: { Prefer: 'return=headers-only' }, body: { name: 'quince', qty: 0 } });
    t.equal(created.status, 201);
    const location = created.headers['location']!;
    t.match(location, /^\/api\/shop\/stock\?id=eq\.\d+$/, 'Location names the row below the mounted path, not PostgREST\'s /items');
    t.same((await s.request(location)).json(), [{ id: Number(location.split('.').pop()), name: 'quince', qty: 0 }], 'and answers it');
    await s.db.query("DELETE FROM shop.items WHERE name = 'quince'");
  });

  t.test('PostgREST\'s URLs are untouched next to the mounts', async (t) => {
    const res = await s.request('/items');
    t.equal(res.status, 404, 'the shop schema is not exposed at /');
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(res.json().code, 'DBRST205');
  });

  t.test('413: a body over server-max-body-size is refused unread, on any URL', async (t) => {
    const big = await s.request('/rpc/anything', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(5000) });
    t.equal(big.status, 413);
    t.equal(big.headers['proxy-status'], 'dbrest; error=DBRST604');
    t.match(big.json(), { code: 'DBRST604', message: 'Payload Too Large', details: /larger than 2048 bytes/ });
    // Chunked, with no Content-Length: refused once the limit is passed.
    const chunks = async function* () {
      for (let i = 0; i < 10; i++) yield Buffer.alloc(512, 32);
    };
    const res = await undiciRequest(`${s.url}/api/shop/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Readable.from(chunks()) });
    t.equal(res.statusCode, 413);
    t.equal(res.headers['content-type'], 'application/vnd.shop.Error+json', "in the group's shape under a mount prefix");
    t.match(await res.body.json(), { Error: { status: 413, code: 'DBRST604' } });
    t.same(await s.db.query("SELECT * FROM shop.items WHERE name = ''"), []);
  });
});

t.test('405: Allow lists the methods of every template that matches the path', async (t) => {
  // Two templates match `/things/5` (an int segment for GET, any segment for DELETE); only the
  // second matches `/things/abc`.
  const s = await startMountServer(t, {
    routes: JSON.stringify([
      {
        prefix: '/api/two',
        schema: 'shop',
        routes: [
          { method: 'GET', path: '/things/:id(int)', call: 'item_get', args: { item_id: 'path.id' } },
          { method: 'DELETE', path: '/things/:name', call: 'item_delete', args: { item_id: 'path.name' } },
        ],
      },
    ]),
  });
  const both = await s.request('/api/two/things/5', { method: 'PUT' });
  t.equal(both.status, 405);
  t.equal(both.headers['allow'], 'GET, HEAD, DELETE');
  const options = await s.request('/api/two/things/5/', { method: 'OPTIONS' });
  t.equal(options.status, 200);
  t.equal(options.headers['allow'], 'GET, HEAD, DELETE', 'OPTIONS answers the same list');
  const one = await s.request('/api/two/things/abc', { method: 'GET' });
  t.equal(one.status, 405, 'the int template does not match, the other one does');
  t.equal(one.headers['allow'], 'DELETE');
});
