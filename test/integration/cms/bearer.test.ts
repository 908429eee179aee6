// §4.5: an Authorization: Bearer token the engine verified is not a session by itself: it counts only
// when its claims carry sub and sid of a live session, and it is never CSRF-checked. Also §10's body
// limit: an oversize body is a 413 ErrorMessage.
import { SignJWT } from 'jose';
import t from 'tap';
import { as, login, startCmsServer } from './cms-server.js';

const SECRET = 'cms-bearer-test-secret-of-at-least-32-chars';
const sign = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));

t.test('Bearer tokens and body limits', async (t) => {
  const s = await startCmsServer(t, { 'jwt-secret': SECRET, 'server-max-body-size': '4096' });
  const admin = await login(s, 'admin');
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  t.test('a token naming a live session acts for its user, without CSRF', async (t) => {
    const token = await sign({ sub: '14', sid: admin.identifier });
    const list = await as(s, null, '/bookmark', { headers: bearer(token) });
    t.equal(list.status, 200);
    t.equal(list.json().BookmarkList.count, 4);
    t.equal((await as(s, null, '/bookmark/66', { method: 'POST', headers: bearer(token) })).status, 201, 'no CSRF token needed');
    t.equal((await as(s, null, '/bookmark/66', { method: 'DELETE', headers: bearer(token) })).status, 204);
  });

  t.test('any other token is anonymous', async (t) => {
    for (const claims of [{}, { sub: '14' }, { sid: admin.identifier }, { sub: '41', sid: admin.identifier }, { sub: '14', sid: 'nope' }]) {
      const res = await as(s, null, '/bookmark', { headers: bearer(await sign(claims)) });
      t.equal(res.status, 401, JSON.stringify(claims));
      t.equal(res.json().ErrorMessage.errorCode, 401);
    }
    const other = await login(s, 'editor');
    const token = await sign({ sub: '41', sid: other.identifier });
    t.equal((await as(s, other, `/user/sessions/${other.identifier}`, { method: 'DELETE' })).status, 204);
    t.equal((await as(s, null, '/bookmark', { headers: bearer(token) })).status, 401, 'a revoked session');
  });

  t.test('an oversize body is a 413 ErrorMessage', async (t) => {
    // Over the group's max-body-size (64KB in routes.json), which replaces server-max-body-size.
    const res = await as(s, admin, '/activity-log-group/list', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/xml' },
      body: JSON.stringify({ ActivityLogGroupListInput: { criteria: Array(3000).fill({ type: 'user', value: 14 }) } }),
    });
    t.equal(res.status, 413);
    t.equal(res.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+xml');
  });
});
