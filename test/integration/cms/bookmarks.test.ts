// CMS API bookmarks (spec §6): the list (paging, newest first, JSON and XML as the same tree), the
// state machine of /bookmark/{locationId} (GET/HEAD/POST/DELETE), the authorisation matrix for every
// demo user, and simultaneous POSTs for one user and location.
import t from 'tap';
import { BASE, as, asXmlText, login, parseXml, startCmsServer, xmlToJson, type Session } from './cms-server.js';

const link = (type: string, href: string) => ({ '_media-type': `application/vnd.cms.api.${type}+json`, _href: href });

/** The spec's §6.1 example, verbatim: admin's newest bookmark (location 74). */
const BOOKMARK_74 = {
  '_media-type': 'application/vnd.cms.api.Bookmark+json', __href: '/api/cms/v2/bookmark/74',
  Location: {
    ...link('Location', '/api/cms/v2/content/locations/1/43/51/74'),
    id: 74, priority: 0, hidden: false, invisible: false, explicitlyHidden: false,
    ParentLocation: link('Location', '/api/cms/v2/content/locations/1/43/51'),
    pathString: '/1/43/51/74/', depth: 3, childCount: 0, remoteId: 'bec3ef14503aa8658c6b51f6e7149f6e',
    Children: link('LocationList', '/api/cms/v2/content/locations/1/43/51/74/children'),
    Content: link('Content', '/api/cms/v2/content/objects/73'),
    sortField: 'PATH', sortOrder: 'ASC',
    UrlAliases: link('UrlAliasRefList', '/api/cms/v2/content/locations/1/43/51/74/urlaliases'),
    ContentInfo: {
      ...link('ContentInfo', '/api/cms/v2/content/objects/73'),
      Content: {
        ...link('ContentInfo', '/api/cms/v2/content/objects/73'),
        _remoteId: '177cdd7b929d7fb170ab8729d65497d6', _id: 73,
        ContentType: link('ContentType', '/api/cms/v2/content/types/5'),
        Name: 'Glasshouse photo', TranslatedName: 'Glasshouse photo',
        Versions: link('VersionList', '/api/cms/v2/content/objects/73/versions'),
        CurrentVersion: link('Version', '/api/cms/v2/content/objects/73/currentversion'),
        Section: link('Section', '/api/cms/v2/content/sections/3'),
        Locations: link('LocationList', '/api/cms/v2/content/objects/73/locations'),
        Owner: link('User', '/api/cms/v2/user/users/14'),
        lastModificationDate: '2024-05-27T08:05:00+00:00', publishedDate: '2024-05-27T08:05:00+00:00',
        mainLanguageCode: 'eng-GB', currentVersionNo: 1, alwaysAvailable: true, isHidden: false,
        status: 'PUBLISHED',
        ObjectStates: link('ContentObjectStates', '/api/cms/v2/content/objects/73/objectstates'),
      },
    },
  },
};

t.test('CMS API bookmarks', async (t) => {
  const s = await startCmsServer(t);
  const admin = await login(s, 'admin');
  const editor = await login(s, 'editor');
  const visitor = await login(s, 'visitor');
  const ids = async (who: Session, q = '') => (await as(s, who, `/bookmark${q}`)).json().BookmarkList.items.map((i: any) => i.Location.id);

  t.test('GET /bookmark: newest first, count, the spec example', async (t) => {
    const res = await as(s, admin, '/bookmark?limit=1');
    t.equal(res.status, 200);
    t.equal(res.headers['content-type'], 'application/vnd.cms.api.BookmarkList+json');
    const list = res.json().BookmarkList;
    t.equal(list['_media-type'], 'application/vnd.cms.api.BookmarkList+json');
    t.equal(list.count, 4, 'count is the total, not the page size');
    t.same(list.items, [BOOKMARK_74]);
    t.same(await ids(admin), [74, 59, 68, 65], 'bookmark id descending');
    t.same(await ids(editor), [70, 54], 'per user');
    t.same((await as(s, editor, '/bookmark')).json().BookmarkList.count, 2);
    const root = (await as(s, admin, '/bookmark')).json().BookmarkList.items.find((i: any) => i.Location.id === 59).Location;
    t.equal(root.childCount, 3, 'childCount counts direct children');
    t.equal(root.sortField, 'NAME');
    t.same(root.ParentLocation, link('Location', '/api/cms/v2/content/locations/1/2'));
  });

  t.test('paging: offset, limit (1–100, default 25); bad values → 400', async (t) => {
    t.same(await ids(admin, '?offset=1&limit=2'), [59, 68]);
    t.same(await ids(admin, '?offset=3'), [65]);
    t.same(await ids(admin, '?offset=10'), []);
    t.same(await ids(admin, '?limit=100&other=x'), [74, 59, 68, 65], 'other parameters are ignored');
    const empty = (await as(s, admin, '/bookmark?offset=4')).json().BookmarkList;
    t.same(empty, { '_media-type': 'application/vnd.cms.api.BookmarkList+json', count: 4, items: [] });
    for (const q of ['limit=0', 'limit=101', 'limit=-1', 'limit=abc', 'limit=', 'offset=-1', 'offset=1.5', 'offset=x', 'limit=1&limit=2', 'limit=%201']) {
      const res = await as(s, admin, `/bookmark?${q}`);
      t.equal(res.status, 400, q);
      t.match(res.json(), { ErrorMessage: { errorCode: 400, errorMessage: 'Bad Request' } });
    }
    // Many bookmarks: the default page is 25, the maximum 100.
    await s.db.query(`INSERT INTO cms.locations (id, parent, path_string, depth, remote_id, sort_field, sort_order, content)
      SELECT 1000 + g, 1, '/1/' || (1000 + g) || '/', 1, 'r' || g, 'PATH', 'ASC', 1 FROM generate_series(1, 120) g`);
    const many = await login(s, 'visitor');
    await s.db.query("UPDATE cms.users SET policies = '[{\"module\": \"content\", \"function\": \"read\", \"subtrees\": [\"/1/\"]}]' WHERE login = 'visitor'");
    await s.db.query('INSERT INTO cms.bookmarks (user_id, location_id) SELECT 57, 1000 + g FROM generate_series(1, 120) g');
    t.equal((await ids(many)).length, 25);
    t.equal((await ids(many, '?limit=100')).length, 100);
    t.equal((await as(s, many, '/bookmark')).json().BookmarkList.count, 120);
    t.same((await ids(many, '?offset=119'))[0], 1001, 'the oldest last');
    await s.db.query('DELETE FROM cms.bookmarks WHERE user_id = 57');
    await s.db.query("UPDATE cms.users SET policies = '[]' WHERE login = 'visitor'");
  });

  t.test('XML: the same tree under the §2.3 mapping', async (t) => {
    for (const accept of ['application/vnd.cms.api.BookmarkList+xml', 'application/xml', 'text/xml']) {
      const xml = await as(s, admin, '/bookmark?limit=2', { headers: { Accept: accept } });
      t.equal(xml.status, 200);
      t.equal(xml.headers['content-type'], 'application/vnd.cms.api.BookmarkList+xml', accept);
      const doc = parseXml(xml.text);
      t.equal(doc.declaration, '<?xml version="1.0" encoding="UTF-8"?>');
      t.equal(doc.root.name, 'BookmarkList');
      t.same(doc.root.children.map((c) => c.name), ['count', 'Bookmark', 'Bookmark']);
      t.same(doc.root.children[1]!.attrs, { 'media-type': 'application/vnd.cms.api.Bookmark+xml', _href: '/api/cms/v2/bookmark/74' });
      const json = (await as(s, admin, '/bookmark?limit=2')).json().BookmarkList;
      t.same(xmlToJson(doc.root), asXmlText(json), 'XML and JSON carry the same data');
    }
    const content = parseXml((await as(s, admin, '/bookmark?limit=1', { headers: { Accept: 'application/xml' } })).text).root
      .children[1]!.children[0]!.children.find((c) => c.name === 'ContentInfo')!.children[0]!;
    t.same(content.attrs, { 'media-type': 'application/vnd.cms.api.ContentInfo+xml', href: '/api/cms/v2/content/objects/73', remoteId: '177cdd7b929d7fb170ab8729d65497d6', id: '73' });
    const empty = parseXml((await as(s, admin, '/bookmark?offset=9', { headers: { Accept: 'application/xml' } })).text).root;
    t.same(empty.children.map((c) => [c.name, c.text]), [['count', '4']], 'an empty page: no Bookmark elements');
  });

  t.test('HEAD /bookmark', async (t) => {
    const res = await as(s, admin, '/bookmark', { method: 'HEAD' });
    t.equal(res.status, 200);
    t.equal(res.text, '');
    t.equal(res.headers['content-type'], 'application/vnd.cms.api.BookmarkList+json');
  });

  t.test('the state machine of /bookmark/{locationId}', async (t) => {
    const check = (m: string) => as(s, admin, '/bookmark/66', { method: m });
    t.equal((await check('GET')).status, 404, 'not bookmarked: GET 404');
    t.equal((await check('HEAD')).status, 404, 'not bookmarked: HEAD 404');
    const notBookmarked = await check('DELETE');
    t.equal(notBookmarked.status, 404, 'not bookmarked: DELETE 404');
    t.equal(notBookmarked.json().ErrorMessage.errorDescription, 'Location 66 is not bookmarked.');
    const created = await check('POST');
    t.equal(created.status, 201);
    t.equal(created.headers['location'], '/api/cms/v2/bookmark/66');
    t.equal(created.text, '');
    t.same((await ids(admin)).slice(0, 1), [66], 'the newest bookmark comes first');
    const get = await check('GET');
    t.equal(get.status, 200);
    t.equal(get.text, '');
    const head = await check('HEAD');
    t.equal(head.status, 200);
    t.equal(head.text, '');
    const again = await check('POST');
    t.equal(again.status, 409);
    t.match(again.json(), { ErrorMessage: { errorCode: 409, errorMessage: 'Conflict', errorDescription: 'Location is already bookmarked.' } });
    const againXml = await as(s, admin, '/bookmark/66', { method: 'POST', headers: { Accept: 'application/xml' } });
    t.equal(againXml.status, 409);
    t.equal(parseXml(againXml.text).root.children[0]!.text, '409');
    const deleted = await check('DELETE');
    t.equal(deleted.status, 204);
    t.equal(deleted.text, '');
    t.equal((await check('GET')).status, 404);
    t.equal((await as(s, admin, '/bookmark')).json().BookmarkList.count, 4);
    // One user's bookmarks never answer for another.
    t.equal((await as(s, editor, '/bookmark/65')).status, 404, "admin's bookmark is not editor's");
    t.equal((await as(s, editor, '/bookmark/65', { method: 'DELETE' })).status, 404);
    t.equal((await as(s, admin, '/bookmark/65')).status, 200);
    t.equal((await as(s, admin, '/bookmark/65/')).status, 200, 'trailing slash');
  });

  t.test('a missing location is 404 before the permission check, an unreadable one 401', async (t) => {
    for (const m of ['GET', 'HEAD', 'POST', 'DELETE']) {
      t.equal((await as(s, admin, '/bookmark/999', { method: m })).status, 404, `${m} missing location`);
      t.equal((await as(s, visitor, '/bookmark/999', { method: m })).status, 404, `${m} missing location, user without policy`);
      t.equal((await as(s, editor, '/bookmark/74', { method: m })).status, 401, `${m} bookmarked but not readable`);
      t.equal((await as(s, null, '/bookmark/65', { method: m })).status, 401, `${m} anonymous`);
      t.equal((await as(s, null, '/bookmark/999', { method: m })).status, 401, `${m} anonymous, missing location`);
    }
    const desc = (await as(s, admin, '/bookmark/999')).json().ErrorMessage.errorDescription;
    t.equal(desc, 'Location 999 does not exist.');
    t.equal((await as(s, admin, '/bookmark/74', { method: 'DELETE' })).status, 204, 'admin can still delete it');
    t.equal((await as(s, admin, '/bookmark/74', { method: 'POST' })).status, 201);
  });

  t.test('authorisation matrix: every demo user', async (t) => {
    // location → readable by [admin, editor, visitor]
    const matrix: Array<[number, boolean, boolean]> = [[1, true, false], [2, true, true], [58, true, true], [73, true, true], [5, true, false], [43, true, false], [76, true, false]];
    for (const [loc, adminReads, editorReads] of matrix) {
      for (const [who, reads] of [[admin, adminReads], [editor, editorReads], [visitor, false]] as Array<[Session, boolean]>) {
        const post = await as(s, who, `/bookmark/${loc}`, { method: 'POST' });
        t.equal(post.status, reads ? 201 : 401, `user ${who.userId} POST ${loc}`);
        const get = await as(s, who, `/bookmark/${loc}`);
        t.equal(get.status, reads ? 200 : 401, `user ${who.userId} GET ${loc}`);
        const del = await as(s, who, `/bookmark/${loc}`, { method: 'DELETE' });
        t.equal(del.status, reads ? 204 : 401, `user ${who.userId} DELETE ${loc}`);
      }
    }
    t.equal((await as(s, visitor, '/bookmark')).status, 401, 'visitor has no content/read');
    t.equal((await as(s, null, '/bookmark')).status, 401, 'anonymous');
    const translator = await s.request(`${BASE}/user/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"SessionInput": {"login": "translator", "password": "Traduire-2024"}}' });
    t.equal(translator.status, 401, 'translator (disabled) cannot log in at all');
    t.equal((await as(s, editor, '/bookmark')).status, 200, 'editor lists its bookmarks');
    t.equal((await as(s, admin, '/bookmark')).status, 200);
  });

  t.test('a failed request changes nothing, and none writes the activity log', async (t) => {
    const before = await s.db.query('SELECT (SELECT count(*) FROM cms.bookmarks)::int AS b, (SELECT count(*) FROM cms.activity_log_groups)::int AS g');
    await as(s, editor, '/bookmark/74', { method: 'POST' });
    await as(s, admin, '/bookmark/65', { method: 'POST' });
    await as(s, admin, '/bookmark/999', { method: 'POST' });
    await as(s, admin, '/bookmark/66', { method: 'DELETE' });
    await as(s, admin, '/bookmark/65', { method: 'DELETE', csrf: false });
    const after = await s.db.query('SELECT (SELECT count(*) FROM cms.bookmarks)::int AS b, (SELECT count(*) FROM cms.activity_log_groups)::int AS g');
    t.same(after, before);
  });

  t.test('simultaneous POSTs for one user and location: one 201, the rest 409', async (t) => {
    for (const loc of [66, 69, 71]) {
      const results = await Promise.all(Array.from({ length: 12 }, () => as(s, admin, `/bookmark/${loc}`, { method: 'POST' })));
      const statuses = results.map((r) => r.status).sort();
      t.same(statuses, [201, ...Array(11).fill(409)], `location ${loc}`);
      const rows = await s.db.query('SELECT count(*)::int AS n FROM cms.bookmarks WHERE user_id = 14 AND location_id = $1', [loc]);
      t.equal(rows[0].n, 1, 'no duplicate');
    }
    // Two users at once on the same location: both win.
    const both = await Promise.all([as(s, admin, '/bookmark/72', { method: 'POST' }), as(s, editor, '/bookmark/72', { method: 'POST' })]);
    t.same(both.map((r) => r.status), [201, 201]);
    // Simultaneous DELETEs: one 204, the rest 404.
    const dels = await Promise.all(Array.from({ length: 8 }, () => as(s, admin, '/bookmark/66', { method: 'DELETE' })));
    t.same(dels.map((r) => r.status).sort(), [204, ...Array(7).fill(404)]);
  });
  void BASE;
});
