// Issue #26, findings 4 and 5 against the CMS example (examples/cms, its own routes.json): the
// anonymous XML login takes no DTD (400) and no body over 8KB (413), both as ErrorMessages in the
// negotiated type, and the login function is not called: the test database wraps
// cms.session_create in a function that first takes a number from a sequence (not rolled back), so
// every call that reached PostgreSQL shows. A normal login still works during and after.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, queryOnce } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { BASE, EXAMPLE_DIR, exampleSql, PASSWORDS } from '../cms/cms-server.js';

const PROBE = `
CREATE SEQUENCE cms.login_reached;
GRANT USAGE ON SEQUENCE cms.login_reached TO web_anon;
ALTER FUNCTION cms.session_create(text, text, text) RENAME TO session_create_probed;
CREATE FUNCTION cms.session_create(p_body text, p_content_type text, p_media text) RETURNS cms."*/*" LANGUAGE plpgsql AS $$
BEGIN
  PERFORM nextval('cms.login_reached');
  RETURN cms.session_create_probed(p_body, p_content_type, p_media);
END $$;
GRANT EXECUTE ON FUNCTION cms.session_create(text, text, text) TO web_anon;`;

const reached = async (s: TestServer) => Number((await queryOnce(s.db.uri, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM cms.login_reached`))[0]!['n']);

/** The finding's body: an internal entity of 500 characters referenced `refs` times, as a SessionInput. */
const entityLogin = (refs: number) =>
  `<?xml version="1.0"?><!DOCTYPE SessionInput [<!ENTITY e "${'x'.repeat(500)}">]><SessionInput><login>${'&e;'.repeat(refs)}</login><password>p</password></SessionInput>`;

const xmlLogin = (login: string, password: string) => `<SessionInput><login>${login}</login><password>${password}</password></SessionInput>`;

t.test('the CMS XML login', async (t) => {
  const db = await createTestDatabase(exampleSql());
  t.teardown(() => db.drop());
  await queryOnce(db.uri, PROBE);
  const routes = readFileSync(path.join(EXAMPLE_DIR, 'routes.json'), 'utf8');
  const s = await startTestServer(t, { db, config: { 'db-anon-role': 'web_anon', routes } });
  const login = (body: string | Buffer, accept = 'application/vnd.cms.api.Session+json') =>
    s.request(`${BASE}/user/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.cms.api.SessionInput+xml', Accept: accept }, body });

  t.test('a clean XML login reaches the login function', async (t) => {
    const before = await reached(s);
    const res = await login(xmlLogin('admin', PASSWORDS['admin']!));
    t.equal(res.status, 201, res.text);
    t.equal(await reached(s), before + 1);
  });

  t.test('finding 4: an entity expansion body', async (t) => {
    const before = await reached(s);
    const full = await login(entityLogin(40_000));
    t.equal(full.status, 413, 'the finding\'s 121 KB body is over the login\'s 8KB');
    t.equal(full.json().ErrorMessage.errorCode, 413);
    const scaled = entityLogin(12);
    t.ok(Buffer.byteLength(scaled) < 8 * 1024);
    const json = await login(scaled);
    t.equal(json.status, 400, json.text);
    t.equal(json.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+json');
    t.equal(json.json().ErrorMessage.errorCode, 400);
    t.equal(json.headers['proxy-status'], 'dbrest; error=DBRST608');
    const xml = await login(scaled, 'application/vnd.cms.api.Session+xml');
    t.equal(xml.status, 400);
    t.equal(xml.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+xml');
    t.match(xml.text, /<ErrorMessage[ >]/);
    t.equal(await reached(s), before, 'the login function was never called');
  });

  t.test('finding 5: a large XML body is refused unread', async (t) => {
    const before = await reached(s);
    const big = await login('<SessionInput>' + '<p/>'.repeat(2 * 1024 * 1024) + '</SessionInput>');
    t.equal(big.status, 413);
    t.equal(big.json().ErrorMessage.errorCode, 413);
    t.equal((await login(xmlLogin('admin', 'x'.repeat(9 * 1024)))).status, 413, 'just over 8KB');
    // The other routes of the group take up to 64KB.
    t.equal(await reached(s), before, 'the login function was never called');
  });

  t.test('other clients are answered during and after a burst of attacks', async (t) => {
    const before = await reached(s);
    const attacks = Array.from({ length: 10 }, (_, i) => login(i % 2 === 0 ? entityLogin(12) : entityLogin(40_000)));
    const normal = login(xmlLogin('editor', PASSWORDS['editor']!));
    const statuses = (await Promise.all(attacks)).map((r) => r.status);
    t.same(statuses, [400, 413, 400, 413, 400, 413, 400, 413, 400, 413]);
    t.equal((await normal).status, 201);
    t.equal((await login(xmlLogin('visitor', PASSWORDS['visitor']!))).status, 201);
    t.equal(await reached(s), before + 2, 'only the two real logins called the login function');
  });
});
