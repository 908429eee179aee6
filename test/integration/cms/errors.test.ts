// CMS API errors (spec §2.4, §9): every error of /api/cms/v2 is an ErrorMessage in the negotiated
// format — the engine's 404/405/406 included — with the status as errorCode and its reason phrase.
import t from 'tap';
import { BASE, as, child, login, parseXml, startCmsServer } from './cms-server.js';

const ENDPOINTS: Array<[string, string]> = [
  ['/user/sessions', 'POST'],
  // DELETE /user/sessions/{identifier} matches "current" too: Allow lists what each method would answer.
  ['/user/sessions/current', 'GET, HEAD, DELETE'],
  ['/user/sessions/abc', 'DELETE'],
  ['/activity-log-group/list', 'GET, HEAD, POST'],
  ['/bookmark', 'GET, HEAD'],
  ['/bookmark/65', 'GET, HEAD, POST, DELETE'],
  ['/calendar/event', 'GET, HEAD'],
];

t.test('CMS API errors', async (t) => {
  const s = await startCmsServer(t);

  t.test('an unknown path under the prefix is a 404 ErrorMessage, in JSON or XML', async (t) => {
    const res = await s.request(`${BASE}/nope`);
    t.equal(res.status, 404);
    t.equal(res.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+json');
    const e = res.json().ErrorMessage;
    t.equal(e['_media-type'], 'application/vnd.cms.api.ErrorMessage+json');
    t.equal(e.errorCode, 404);
    t.equal(e.errorMessage, 'Not Found');
    t.type(e.errorDescription, 'string');

    const xml = await s.request(`${BASE}/nope`, { headers: { Accept: 'application/vnd.cms.api.ErrorMessage+xml' } });
    t.equal(xml.status, 404);
    t.equal(xml.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+xml');
    const doc = parseXml(xml.text);
    t.equal(doc.declaration, '<?xml version="1.0" encoding="UTF-8"?>');
    t.equal(doc.root.name, 'ErrorMessage');
    t.same(doc.root.attrs, { 'media-type': 'application/vnd.cms.api.ErrorMessage+xml' });
    t.same(doc.root.children.map((c) => [c.name, c.text]).slice(0, 2), [['errorCode', '404'], ['errorMessage', 'Not Found']]);
    t.ok(child(doc.root, 'errorDescription')?.text);

    t.equal((await s.request(`${BASE}/bookmark/abc`)).status, 404, 'a locationId that is not digits does not match');
    t.equal((await s.request(`${BASE}/bookmark/-1`)).status, 404);
    t.equal((await s.request(`${BASE}/bookmark/1.5`)).status, 404);
  });

  t.test('another method on a known path is a 405 with Allow', async (t) => {
    for (const [path, allow] of ENDPOINTS) {
      const res = await s.request(BASE + path, { method: 'PATCH' });
      t.equal(res.status, 405, `PATCH ${path}`);
      t.equal(res.headers['allow'], allow, `Allow of ${path}`);
      t.match(res.json(), { ErrorMessage: { errorCode: 405, errorMessage: 'Method Not Allowed' } });
    }
    const put = await s.request(`${BASE}/bookmark`, { method: 'PUT', headers: { Accept: 'application/xml' } });
    t.equal(put.status, 405);
    t.equal(parseXml(put.text).root.children[0]?.text, '405', 'in XML when XML is asked for');
  });

  t.test('nothing acceptable is a 406 in JSON', async (t) => {
    for (const accept of ['text/html', 'image/png, text/plain', 'application/json;q=0, text/html']) {
      const res = await s.request(`${BASE}/bookmark`, { headers: { Accept: accept } });
      t.equal(res.status, 406, accept);
      t.equal(res.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+json');
      t.match(res.json(), { ErrorMessage: { errorCode: 406, errorMessage: 'Not Acceptable' } });
    }
    t.equal((await s.request(`${BASE}/bookmark/65`, { method: 'HEAD', headers: { Accept: 'text/html' } })).status, 406, 'HEAD too');
    // Every row of the endpoint table, as a logged-in user with a CSRF token: 406 comes first.
    const a = await login(s, 'admin');
    for (const [path, allow] of ENDPOINTS) {
      for (const method of allow.split(', ')) {
        const res = await as(s, a, path, { method, headers: { Accept: 'text/html', 'Content-Type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
        t.equal(res.status, 406, `${method} ${path}`);
        if (method !== 'HEAD') t.match(res.json(), { ErrorMessage: { errorCode: 406 } });
      }
    }
    t.equal((await as(s, a, '/bookmark/65')).status, 200, 'nothing changed');
  });

  t.test('negotiation (§2.1) comes before the session check: q-values, wildcards, suffixes', async (t) => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'json'],
      ['*/*', 'json'],
      ['application/*', 'json'],
      ['application/json', 'json'],
      ['application/vnd.cms.api.BookmarkList+json', 'json'],
      ['application/vnd.cms.api.BookmarkList+xml', 'xml'],
      ['application/xml', 'xml'],
      ['text/xml', 'xml'],
      ['application/json;q=0.5, application/xml', 'xml'],
      ['text/html, application/xml;q=0.9, application/json;q=0.8', 'xml'],
      ['application/xml;q=0, application/json', 'json'],
      ['application/xml, application/json', 'xml'],
      ['application/json, application/xml', 'json'],
      ['application/vnd.cms.api.Other+xml', 'xml'],
      ['text/html;q=0.9, */*;q=0.1', 'json'],
    ];
    for (const [accept, format] of cases) {
      const res = await s.request(`${BASE}/bookmark`, accept ? { headers: { Accept: accept } } : {});
      t.equal(res.status, 401, `anonymous, Accept ${accept ?? '(none)'}`);
      t.equal(res.headers['content-type'], `application/vnd.cms.api.ErrorMessage+${format}`, `Accept ${accept ?? '(none)'} → ${format}`);
    }
  });

  t.test('errors keep their status on HEAD, without a body', async (t) => {
    const res = await s.request(`${BASE}/bookmark`, { method: 'HEAD' });
    t.equal(res.status, 401);
    t.equal(res.text, '');
  });

  t.test('no error is a 5xx: odd input everywhere', async (t) => {
    const a = await login(s, 'admin');
    const probes = [
      as(s, a, '/bookmark?offset=%FF'),
      as(s, a, '/bookmark/99999999999999999999'),
      as(s, a, '/bookmark/99999999999999999999', { method: 'POST' }),
      as(s, a, '/activity-log-group/list?limit=1e3'),
      as(s, a, '/activity-log-group/list?offset=999999999999'),
      as(s, a, '/bookmark?offset=999999999999'),
      as(s, a, '/bookmark?offset=9999999999999999999999'),
      as(s, a, '/activity-log-group/list', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[1,' }),
      as(s, a, '/activity-log-group/list', { method: 'POST', headers: { 'Content-Type': 'application/xml' }, body: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><ActivityLogListInput><limit>&e;</limit></ActivityLogListInput>' }),
      as(s, a, '/calendar/event?start=9999999999999999999999'),
      as(s, a, '/calendar/event?cursor=%00'),
      s.request(`${BASE}/user/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"SessionInput": {"login": "\\u0000", "password": "x"}}' }),
    ];
    for (const res of await Promise.all(probes)) {
      t.ok(res.status < 500, `${res.status}: ${res.text.slice(0, 120)}`);
      if (res.status >= 400) t.ok(res.json().ErrorMessage, 'an ErrorMessage');
      else t.equal(res.status, 200, 'a huge offset is a valid, empty page');
    }
  });
});
