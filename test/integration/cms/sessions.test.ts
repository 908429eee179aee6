// CMS API sessions (spec §4): log in with SessionInput (JSON or XML) → 201 Session + HttpOnly JWT
// cookie; current session; log out; the pre-request's cookie check (tampered, expired, revoked →
// anonymous) and its CSRF rule for unsafe methods.
import { createHmac } from 'node:crypto';
import t from 'tap';
import { BASE, PASSWORDS, as, child, cookieOf, login, parseXml, startCmsServer } from './cms-server.js';

const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

t.test('CMS API sessions', async (t) => {
  const s = await startCmsServer(t);
  const post = (body: string, contentType: string | null, accept = 'application/json') =>
    s.request(`${BASE}/user/sessions`, { method: 'POST', headers: { ...(contentType ? { 'Content-Type': contentType } : {}), Accept: accept }, body });

  t.test('log in with JSON: 201, Location, Set-Cookie, Session', async (t) => {
    const res = await post(JSON.stringify({ SessionInput: { login: 'admin', password: PASSWORDS['admin'] } }), 'application/vnd.cms.api.SessionInput+json');
    t.equal(res.status, 201);
    t.equal(res.headers['content-type'], 'application/vnd.cms.api.Session+json');
    const session = res.json().Session;
    t.match(session, {
      '_media-type': 'application/vnd.cms.api.Session+json',
      name: 'CMSSESSID',
      User: { '_media-type': 'application/vnd.cms.api.User+json', _href: `${BASE}/user/users/14` },
    });
    t.match(session.identifier, /^[A-Za-z0-9_-]{16}$/);
    t.match(session.csrfToken, /^[A-Za-z0-9_-]{43}$/);
    t.equal(session._href, `${BASE}/user/sessions/${session.identifier}`);
    t.equal(res.headers['location'], `${BASE}/user/sessions/${session.identifier}`);
    const cookie = res.headers['set-cookie']!;
    t.match(cookie, /^CMSSESSID=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=28800$/);
    // The cookie is an HS256 JWT with sub, sid, csrf, iat, exp = iat + 8 h.
    const [h, p] = cookieOf(res).slice('CMSSESSID='.length).split('.');
    t.same(JSON.parse(Buffer.from(h!, 'base64url').toString()), { alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    t.match(claims, { sub: '14', sid: session.identifier, csrf: session.csrfToken });
    t.equal(claims.exp - claims.iat, 28800);
    t.ok(Math.abs(claims.iat - Date.now() / 1000) < 60);
    const stored = await s.db.query('SELECT password_hash FROM cms.users WHERE login = $1', ['admin']);
    t.match(stored[0].password_hash, /^\$2a\$/, 'only a bcrypt hash is stored');
  });

  t.test('log in with XML, answered in XML', async (t) => {
    const res = await post('<?xml version="1.0"?><SessionInput><login>editor</login><password>Editor-Pass-77</password></SessionInput>',
      'application/vnd.cms.api.SessionInput+xml', 'application/vnd.cms.api.Session+xml');
    t.equal(res.status, 201);
    t.equal(res.headers['content-type'], 'application/vnd.cms.api.Session+xml');
    const root = parseXml(res.text).root;
    t.equal(root.name, 'Session');
    const id = child(root, 'identifier')!.text;
    t.same(root.attrs, { 'media-type': 'application/vnd.cms.api.Session+xml', href: `${BASE}/user/sessions/${id}` });
    t.same(root.children.map((c) => c.name), ['name', 'identifier', 'csrfToken', 'User']);
    t.equal(child(root, 'name')!.text, 'CMSSESSID');
    t.same(child(root, 'User')!.attrs, { 'media-type': 'application/vnd.cms.api.User+xml', href: `${BASE}/user/users/41` });
    for (const ct of ['application/xml', 'text/xml', 'application/json']) {
      const body = ct.endsWith('json') ? JSON.stringify({ SessionInput: { login: 'editor', password: 'Editor-Pass-77' } })
        : '<SessionInput><login>editor</login><password>Editor-Pass-77</password></SessionInput>';
      t.equal((await post(body, ct)).status, 201, ct);
    }
    const escaped = await post('<SessionInput><login>&#97;dmin</login><password>Lumen-Admin-2024</password></SessionInput>', 'application/xml');
    t.equal(escaped.status, 201, 'character references are decoded');
  });

  t.test('wrong credentials or a disabled user: 401, one description, no cookie', async (t) => {
    const bodies = [
      { login: 'admin', password: 'wrong' },
      { login: 'nobody', password: 'x' },
      { login: 'translator', password: PASSWORDS['translator'] },
      { login: 'ADMIN', password: PASSWORDS['admin'] },
    ];
    const descriptions = new Set<string>();
    for (const b of bodies) {
      const res = await post(JSON.stringify({ SessionInput: b }), 'application/json');
      t.equal(res.status, 401, b.login);
      t.notOk(res.headers['set-cookie'], 'no cookie');
      const e = res.json().ErrorMessage;
      t.equal(e.errorMessage, 'Unauthorized');
      descriptions.add(e.errorDescription);
    }
    t.equal(descriptions.size, 1, 'logins cannot be probed');
    t.equal((await s.db.query("SELECT count(*)::int AS n FROM cms.sessions WHERE user_id = 63"))[0].n, 0);
  });

  t.test('bad bodies: 400; other content types: 415', async (t) => {
    const bad: Array<[string, string]> = [
      ['', 'application/json'],
      ['{', 'application/json'],
      ['[]', 'application/json'],
      ['{"Session": {"login": "admin", "password": "x"}}', 'application/json'],
      ['{"SessionInput": {"login": "admin"}}', 'application/json'],
      ['{"SessionInput": {"login": 14, "password": "x"}}', 'application/json'],
      ['{"SessionInput": "admin"}', 'application/json'],
      ['{"SessionInput": {"login": "admin", "password": "x"}, "extra": 1}', 'application/json'],
      ['<SessionInput><login>admin</login>', 'application/xml'],
      ['<Session><login>admin</login><password>x</password></Session>', 'application/xml'],
      ['<SessionInput><login>admin</login></SessionInput>', 'application/xml'],
      ['<SessionInput><login>a</login><login>b</login><password>x</password></SessionInput>', 'application/xml'],
    ];
    for (const [body, ct] of bad) {
      const res = await post(body, ct);
      t.equal(res.status, 400, `${ct}: ${body}`);
      t.match(res.json(), { ErrorMessage: { errorCode: 400, errorMessage: 'Bad Request' } });
    }
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.cms.api.ActivityLogGroupListInput+json']) {
      const res = await post('{"SessionInput": {"login": "admin", "password": "x"}}', ct);
      t.equal(res.status, 415, ct);
      t.match(res.json(), { ErrorMessage: { errorCode: 415, errorMessage: 'Unsupported Media Type' } });
    }
    t.equal((await post('x', null)).status, 415, 'a body without a Content-Type');
    const xml = await post('{', 'application/json', 'application/xml');
    t.equal(xml.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+xml', 'errors follow Accept');
  });

  t.test('current session, log out, and the old cookie afterwards', async (t) => {
    const a = await login(s, 'admin');
    const cur = await as(s, a, '/user/sessions/current');
    t.equal(cur.status, 200);
    t.match(cur.json().Session, { identifier: a.identifier, csrfToken: a.csrf });
    const curXml = await as(s, a, '/user/sessions/current', { headers: { Accept: 'application/vnd.cms.api.Session+xml' } });
    t.equal(child(parseXml(curXml.text).root, 'csrfToken')!.text, a.csrf);
    t.equal((await as(s, a, '/user/sessions/current', { method: 'HEAD' })).status, 200);
    t.equal((await s.request(`${BASE}/user/sessions/current`)).status, 404, 'no session → 404');

    t.equal((await as(s, a, '/user/sessions/someone-else', { method: 'DELETE' })).status, 404, 'another identifier → 404');
    t.equal((await s.request(`${BASE}/user/sessions/${a.identifier}`, { method: 'DELETE' })).status, 404, 'no session → 404');
    const noCsrf = await as(s, a, `/user/sessions/${a.identifier}`, { method: 'DELETE', csrf: false });
    t.equal(noCsrf.status, 401, 'log out needs the CSRF token');
    t.equal(noCsrf.json().ErrorMessage.errorDescription, 'Missing or invalid CSRF token');

    const out = await as(s, a, `/user/sessions/${a.identifier}`, { method: 'DELETE' });
    t.equal(out.status, 204);
    t.equal(out.text, '');
    t.equal(out.headers['set-cookie'], 'CMSSESSID=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
    t.equal((await as(s, a, '/user/sessions/current')).status, 404, 'the old cookie is anonymous');
    t.equal((await as(s, a, '/bookmark')).status, 401);
    t.equal((await as(s, a, `/user/sessions/${a.identifier}`, { method: 'DELETE' })).status, 404, 'logging out twice');
    const revoked = await s.db.query('SELECT revoked_at FROM cms.sessions WHERE identifier = $1', [a.identifier]);
    t.ok(revoked[0].revoked_at);
  });

  t.test('a tampered, forged, expired or malformed cookie is no session, never an error', async (t) => {
    const a = await login(s, 'editor');
    const [h, p, sig] = a.cookie.slice('CMSSESSID='.length).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forge = (c: object, key = 'not-the-secret') => {
      const body = `${h}.${b64url(JSON.stringify(c))}`;
      return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
    };
    const secret = (await s.db.query('SELECT jwt_secret FROM cms.settings'))[0].jwt_secret as Buffer;
    const expired = { ...claims, iat: claims.iat - 30000, exp: claims.iat - 1 };
    const sign = (c: object) => {
      const body = `${h}.${b64url(JSON.stringify(c))}`;
      return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
    };
    t.equal((await s.request(`${BASE}/user/sessions/current`, { headers: { Cookie: `CMSSESSID=${sign(claims)}` } })).status, 200, 'control: a well-signed cookie works');
    const cookies = [
      `${h}.${b64url(JSON.stringify({ ...claims, sub: '14' }))}.${sig}`,
      forge({ ...claims, sub: '14' }),
      sign(expired),
      sign({ ...claims, sub: '14' }),
      sign({ ...claims, sid: 'nope' }),
      `${b64url('{"alg":"none"}')}.${p}.`,
      'garbage',
      'a.b.c',
      '',
    ];
    for (const c of cookies) {
      const res = await s.request(`${BASE}/user/sessions/current`, { headers: { Cookie: `CMSSESSID=${c}` } });
      t.equal(res.status, 404, `anonymous: ${c.slice(0, 40)}`);
      const unsafe = await s.request(`${BASE}/bookmark/54`, { method: 'POST', headers: { Cookie: `CMSSESSID=${c}` } });
      t.equal(unsafe.status, 401);
      t.not(unsafe.json().ErrorMessage.errorDescription, 'Missing or invalid CSRF token', 'no session, so no CSRF check');
    }
  });

  t.test('an expired session row, or a user disabled since, is no session', async (t) => {
    const a = await login(s, 'editor');
    t.equal((await as(s, a, '/user/sessions/current')).status, 200);
    await s.db.query("UPDATE cms.sessions SET expires_at = now() - interval '1 second' WHERE identifier = $1", [a.identifier]);
    t.equal((await as(s, a, '/user/sessions/current')).status, 404, 'expired on the server');
    const b = await login(s, 'editor');
    await s.db.query("UPDATE cms.users SET enabled = false WHERE login = 'editor'");
    t.equal((await as(s, b, '/bookmark')).status, 401, 'disabled after log-in');
    await s.db.query("UPDATE cms.users SET enabled = true WHERE login = 'editor'");
    t.equal((await as(s, b, '/bookmark')).status, 200);
  });

  t.test('CSRF: unsafe methods with a session need X-CSRF-Token; safe ones and login never', async (t) => {
    const a = await login(s, 'admin');
    for (const method of ['POST', 'DELETE']) {
      for (const token of [undefined, 'wrong', '']) {
        const headers: Record<string, string> = { Cookie: a.cookie };
        if (token !== undefined) headers['X-CSRF-Token'] = token;
        const res = await s.request(`${BASE}/bookmark/43`, { method, headers });
        t.equal(res.status, 401, `${method} with token ${JSON.stringify(token)}`);
        t.equal(res.json().ErrorMessage.errorDescription, 'Missing or invalid CSRF token');
      }
    }
    const other = await login(s, 'admin');
    t.equal((await s.request(`${BASE}/bookmark/43`, { method: 'POST', headers: { Cookie: a.cookie, 'X-CSRF-Token': other.csrf } })).status, 401,
      "another session's token");
    t.equal((await s.request(`${BASE}/bookmark`, { headers: { Cookie: a.cookie } })).status, 200, 'GET is not checked');
    t.equal((await s.request(`${BASE}/bookmark/65`, { method: 'HEAD', headers: { Cookie: a.cookie } })).status, 200, 'HEAD is not checked');
    const relogin = await s.request(`${BASE}/user/sessions`, {
      method: 'POST',
      headers: { Cookie: a.cookie, 'Content-Type': 'application/json' },
      body: JSON.stringify({ SessionInput: { login: 'editor', password: PASSWORDS['editor'] } }),
    });
    t.equal(relogin.status, 201, 'login is exempt, and opens a new session while another is active');
    t.equal((await as(s, a, '/bookmark/43', { method: 'POST' })).status, 201, 'with the right token');
    t.equal((await as(s, a, '/bookmark/43', { method: 'DELETE' })).status, 204);
  });
});
