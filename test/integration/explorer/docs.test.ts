// The API explorer over HTTP (server-docs-path): the page, swagger-ui-dist's files byte for byte from
// node_modules with their content types and cache headers, nothing else under the path (no way out
// of it), the root path's OpenAPI answers unchanged by the explorer, and the key's off values.
// The explorer in a real browser is browser.test.ts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, nologinRolesSql } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { CONTENT_ROUTES, CONTENT_SQL } from '../content/content-server.js';

const DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const CONTENT = { 'db-schemas': 'content', 'db-anon-role': 'web_anon', routes: CONTENT_ROUTES };

/** A request line sent as is (undici would normalise `..` and encoded slashes away). */
function rawGet(url: string, target: string): Promise<{ status: number; head: string; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => socket.write(`GET ${target} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`));
    let data = '';
    socket.on('data', (c) => (data += c.toString('latin1')));
    socket.on('end', () => {
      const at = data.indexOf('\r\n\r\n');
      resolve({ status: Number(data.slice(9, 12)), head: data.slice(0, at), body: data.slice(at + 4) });
    });
    socket.on('error', reject);
  });
}

t.test('the explorer under server-docs-path', async (t) => {
  const db = await createTestDatabase(CONTENT_SQL);
  t.teardown(() => db.drop());
  const s = await startTestServer(t, { db, config: { ...CONTENT, 'server-docs-path': '/_docs' } });
  const plain = await startTestServer(t, { db, config: CONTENT });

  t.test('the path without its slash redirects (relatively, for proxies), the page answers at the slash', async (t) => {
    const r = await s.request('/_docs');
    t.equal(r.status, 301);
    t.equal(r.headers['location'], '_docs/');
    const page = await s.request('/_docs/');
    t.equal(page.status, 200);
    t.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    t.equal(page.headers['cache-control'], 'no-cache');
    t.match(page.headers['content-security-policy'], /default-src 'none'/);
    t.match(page.headers['content-security-policy'], /connect-src 'self'/, 'the page may fetch from its own origin only');
    t.match(page.text, /<script src="swagger-ui-bundle\.js"><\/script>/);
    t.match(page.text, /data-api-root="\.\.\/"/, 'the API root is one level up');
    t.notMatch(page.text, /https?:\/\//, 'no absolute URL in the page');
    const index = await s.request('/_docs/index.html');
    t.equal(index.text, page.text, 'index.html is the page too');
  });

  t.test("swagger-ui-dist's files, byte for byte, with their types and cache headers", async (t) => {
    for (const [name, type] of [
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['favicon-32x32.png', 'image/png'],
    ] as const) {
      const r = await s.request(`/_docs/${name}`);
      t.equal(r.status, 200, name);
      t.equal(r.headers['content-type'], type, `${name}: Content-Type`);
      t.equal(r.headers['x-content-type-options'], 'nosniff');
      t.equal(r.headers['cache-control'], 'public, max-age=86400', `${name}: cached`);
      t.ok(r.bytes.equals(readFileSync(path.join(DIST, name))), `${name}: the package's bytes`);
      const again = await s.request(`/_docs/${name}`, { headers: { 'If-None-Match': r.headers['etag']! } });
      t.equal(again.status, 304, `${name}: revalidated by ETag`);
      t.equal(again.bytes.length, 0);
    }
    const script = await s.request('/_docs/explorer.js');
    t.equal(script.status, 200);
    t.match(script.text, /validatorUrl: null/, "Swagger UI's validator badge (an outside image) is off");
    const head = await s.request('/_docs/swagger-ui-bundle.js', { method: 'HEAD' });
    t.equal(head.status, 200);
    t.equal(head.bytes.length, 0, 'HEAD: no body');
    t.equal(head.headers['content-length'], String(readFileSync(path.join(DIST, 'swagger-ui-bundle.js')).length));
  });

  t.test('nothing else is served from under the path', async (t) => {
    for (const target of [
      '/_docs/..%2fpackage.json',
      '/_docs/..%2f..%2f..%2fpackage.json',
      '/_docs/%2e%2e/%2e%2e/package.json',
      '/_docs/../_docs/../package.json',
      '/_docs/swagger-ui-bundle.js.map',
      '/_docs/package.json',
      '/_docs/oauth2-redirect.html',
      '/_docs//etc/passwd',
    ]) {
      const r = await rawGet(s.url, target);
      t.ok(r.status === 404, `${target}: 404 (got ${r.status})`);
      if (r.status === 404 && target.startsWith('/_docs/') && !target.includes('/../')) {
        t.match(JSON.parse(r.body), { code: 'DBRST125' }, `${target}: the error model`);
      }
      t.notMatch(r.body, /"name":\s*"(dbrest|swagger-ui-dist)"/, `${target}: no package file leaks`);
    }
    const post = await s.request('/_docs/', { method: 'POST', body: '{}' });
    t.equal(post.status, 405);
    t.equal(post.headers['allow'], 'GET, HEAD');
    t.match(post.json(), { code: 'DBRST117' });
  });

  t.test('the root path answers exactly as without the explorer', async (t) => {
    for (const accept of [undefined, 'application/openapi+json', 'application/openapi+json;version=3.1', 'text/csv']) {
      const headers: Record<string, string> = accept === undefined ? {} : { Accept: accept };
      const [a, b] = await Promise.all([s.request('/', { headers }), plain.request('/', { headers })]);
      t.equal(a.status, b.status, `${accept}: status`);
      t.equal(a.headers['content-type'], b.headers['content-type'], `${accept}: Content-Type`);
      t.equal(a.text, b.text, `${accept}: body`);
    }
  });

  t.test('off: the path is an ordinary (missing) relation again', async (t) => {
    const off = await plain.request('/_docs/');
    t.equal(off.status, 404);
    t.notMatch(off.headers['content-type'], /html/);
    const emptied = await startTestServer(t, { db, config: { ...CONTENT, 'server-docs-path': '' } });
    t.equal((await emptied.request('/_docs/')).status, 404, '"" turns it off');
    const falsy = await startTestServer(t, { db, config: { ...CONTENT, 'server-docs-path': 'false' } });
    t.equal((await falsy.request('/_docs/')).status, 404, 'false turns it off');
  });

  t.test('another path, nested', async (t) => {
    const nested: TestServer = await startTestServer(t, { db, config: { ...CONTENT, 'server-docs-path': '/dev/explorer/' } });
    t.equal((await nested.request('/dev/explorer')).headers['location'], 'explorer/');
    const page = await nested.request('/dev/explorer/');
    t.equal(page.status, 200);
    t.match(page.text, /data-api-root="\.\.\/\.\.\/"/, 'two levels up to the API root');
    t.equal((await nested.request('/_docs/')).status, 404, 'not at the default path');
  });
});

t.test('a table the explorer hides is named in a start-up warning', async (t) => {
  const db = await createTestDatabase([]);
  t.teardown(() => db.drop());
  await db.query('DO $$ BEGIN CREATE ROLE docs_anon NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$');
  await db.query('CREATE TABLE public._docs (id int); CREATE TABLE public.docs (id int); GRANT SELECT ON public._docs, public.docs TO docs_anon');
  const lines: string[] = [];
  const s = await startTestServer(t, { db, logLines: lines, config: { 'log-level': 'warn', 'db-schemas': 'public', 'db-anon-role': 'docs_anon', 'server-docs-path': '/_docs' } });
  t.equal((await s.request('/_docs')).status, 301, 'the explorer answers at the path');
  const warned = lines.filter((l) => /server-docs-path \/_docs hides/.test(l));
  t.equal(warned.length, 1, 'one warning');
  t.match(warned[0], /hides public\._docs: the API explorer answers there first/);
  t.notMatch(warned[0], /public\.docs\b/, 'a table of another name is not named');
  const quiet: string[] = [];
  await startTestServer(t, { db, logLines: quiet, config: { 'log-level': 'warn', 'db-schemas': 'public', 'db-anon-role': 'docs_anon', 'server-docs-path': '/explorer' } });
  t.notOk(quiet.some((l) => /hides/.test(l)), 'no warning when nothing is hidden');
});

t.test('a route mount whose template reaches the explorer path is named in a start-up warning', async (t) => {
  const db = await createTestDatabase([]);
  t.teardown(() => db.drop());
  await db.query(nologinRolesSql('docs_anon'));
  await db.query(`CREATE FUNCTION public.echo_slug(slug text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT slug $$;
    GRANT EXECUTE ON FUNCTION public.echo_slug(text) TO docs_anon`);
  const mount = (path: string) => ({ method: 'GET', path, call: 'echo_slug', args: { slug: 'path.slug' } });
  const base = { 'log-level': 'warn', 'db-schemas': 'public', 'db-anon-role': 'docs_anon', 'server-docs-path': '/_docs' };
  const lines: string[] = [];
  const routes = JSON.stringify([mount('/:slug'), mount('/:slug(int)/x'), mount('/p/:slug'), mount('/:a/:slug')]);
  const s = await startTestServer(t, { db, logLines: lines, config: { ...base, routes } });
  t.equal((await s.request('/_docs')).status, 301, 'the explorer answers where /:slug would');
  t.same((await s.request('/hello')).json(), 'hello', 'the mount answers elsewhere');
  const warned = lines.filter((l) => /server-docs-path \/_docs hides the route mount/.test(l));
  t.equal(warned.length, 1, 'one warning');
  t.match(warned[0], /hides the route mounts GET \/:slug, GET \/:a\/:slug at \/_docs and below: the API explorer answers there first/);
  t.notMatch(warned[0], /:slug\(int\)|\/p\/:slug/, 'a typed parameter that cannot be "_docs" and a literal start elsewhere are not named');

  const quiet: string[] = [];
  await startTestServer(t, { db, logLines: quiet, config: { ...base, routes: JSON.stringify([mount('/:slug(int)'), mount('/p/:slug')]) } });
  t.notOk(quiet.some((l) => /hides/.test(l)), 'no warning when no mount reaches the explorer');
});
