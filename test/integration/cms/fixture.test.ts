// The CMS example's own seed (examples/cms/30-seed.sql) serves exactly the demo fixture
// ../shared/fixtures/cms-demo.json: counts of every entity, and every user, location, content,
// bookmark, activity log group and calendar event as the API answers it.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { BASE, as, login, startCmsServer } from './cms-server.js';

const FIXTURE = JSON.parse(readFileSync(new URL('../../../../../shared/fixtures/cms-demo.json', import.meta.url), 'utf8'));
const unix = (iso: string) => Date.parse(iso) / 1000;
const iso = (s: string) => new Date(Date.parse(s)).toISOString().replace(/\.000Z$/, '+00:00');

t.test('CMS demo data equals the fixture', async (t) => {
  const s = await startCmsServer(t);

  t.test('counts of every entity', async (t) => {
    const tables: Array<[string, number]> = [
      ['languages', FIXTURE.languages.length], ['sections', FIXTURE.sections.length], ['content_types', FIXTURE.content_types.length],
      ['users', FIXTURE.users.length], ['contents', FIXTURE.contents.length], ['locations', FIXTURE.locations.length],
      ['bookmarks', FIXTURE.bookmarks.length], ['activity_log_groups', FIXTURE.activity_log_groups.length],
      ['activity_log_entries', FIXTURE.activity_log_groups.reduce((n: number, g: any) => n + g.entries.length, 0)],
      ['calendar_events', FIXTURE.calendar_events.length],
    ];
    for (const [table, n] of tables) {
      t.equal((await s.db.query(`SELECT count(*)::int AS n FROM cms.${table}`))[0].n, n, table);
    }
    const settings = (await s.db.query('SELECT * FROM cms.settings'))[0];
    for (const [k, v] of Object.entries(FIXTURE.settings)) t.equal(settings[k], v, `settings.${k}`);
  });

  t.test('users: the enabled ones log in with their fixture passwords, with their ids', async (t) => {
    for (const u of FIXTURE.users) {
      const res = await s.request(`${BASE}/user/sessions`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ SessionInput: { login: u.login, password: u.password } }),
      });
      t.equal(res.status, u.enabled ? 201 : 401, u.login);
      if (u.enabled) {
        t.equal(res.json().Session.User._href, `${BASE}/user/users/${u.id}`);
        t.match(res.headers['set-cookie'], new RegExp(`^${FIXTURE.settings.session_cookie}=.*Max-Age=${FIXTURE.settings.session_ttl_seconds}$`));
      }
    }
  });

  t.test('bookmarks of every user, newest first', async (t) => {
    for (const u of FIXTURE.users.filter((x: any) => x.enabled && x.policies.some((p: any) => p.module === 'content'))) {
      const session = await login(s, u.login);
      const list = (await as(s, session, '/bookmark')).json().BookmarkList;
      const mine = FIXTURE.bookmarks.filter((b: any) => b.user_id === u.id).sort((a: any, b: any) => b.id - a.id);
      t.equal(list.count, mine.length, u.login);
      t.same(list.items.map((i: any) => i.Location.id), mine.map((b: any) => b.location_id), u.login);
    }
  });

  t.test('every location and its content, through bookmarks', async (t) => {
    const admin = await login(s, 'admin');
    for (const l of FIXTURE.locations) await as(s, admin, `/bookmark/${l.id}`, { method: 'POST' });
    const items = (await as(s, admin, '/bookmark?limit=100')).json().BookmarkList.items;
    t.equal(items.length, FIXTURE.locations.length);
    const byId = new Map(FIXTURE.locations.map((l: any) => [l.id, l]));
    const contents = new Map(FIXTURE.contents.map((c: any) => [c.id, c]));
    for (const item of items) {
      const got = item.Location;
      const l: any = byId.get(got.id);
      const parent: any = byId.get(l.parent ?? l.id);
      t.match(got, {
        pathString: l.path_string, depth: l.depth, priority: l.priority, hidden: l.hidden, invisible: l.invisible,
        explicitlyHidden: l.explicitly_hidden, remoteId: l.remote_id, sortField: l.sort_field, sortOrder: l.sort_order,
        childCount: FIXTURE.locations.filter((k: any) => k.parent === l.id).length,
        ParentLocation: { _href: `${BASE}/content/locations${parent.path_string.replace(/\/$/, '')}` },
        Content: { _href: `${BASE}/content/objects/${l.content}` },
      }, `location ${l.id}`);
      const c: any = contents.get(l.content);
      t.same(got.ContentInfo.Content._id, c.id);
      t.match(got.ContentInfo.Content, {
        _remoteId: c.remote_id, Name: c.name, TranslatedName: c.name, mainLanguageCode: c.main_language,
        currentVersionNo: c.current_version, alwaysAvailable: c.always_available, isHidden: c.is_hidden, status: c.status,
        lastModificationDate: iso(c.modified), publishedDate: iso(c.published),
        ContentType: { _href: `${BASE}/content/types/${c.content_type}` },
        Section: { _href: `${BASE}/content/sections/${c.section}` },
        Owner: { _href: `${BASE}/user/users/${c.owner}` },
      }, `content ${c.id}`);
    }
    t.ok(FIXTURE.content_types.some((ct: any) => items.some((i: any) => i.Location.ContentInfo.Content.ContentType._href.endsWith(`/${ct.id}`))));
  });

  t.test('every activity log group with its entries', async (t) => {
    const admin = await login(s, 'admin');
    const groups = (await as(s, admin, '/activity-log-group/list?limit=100')).json().ActivityLogGroupList.ActivityLogGroups;
    const want = [...FIXTURE.activity_log_groups].sort((a: any, b: any) => unix(b.logged_at) - unix(a.logged_at) || b.id - a.id);
    t.same(groups.map((g: any) => ({ user_id: g.user_id, logged_at: g.logged_at, entries: g.ActivityLogEntries.map((e: any) => [e.object_class, e.object_id, e.action, e.data]) })),
      want.map((g: any) => ({ user_id: g.user_id, logged_at: unix(g.logged_at), entries: g.entries.map((e: any) => [e.object_class, e.object_id, e.action, e.data]) })));
  });

  t.test('every calendar event; every language', async (t) => {
    const admin = await login(s, 'admin');
    const events = (await as(s, admin, '/calendar/event?start=0&end=4102444800&count=100')).json().EventList;
    t.equal(events.totalCount, FIXTURE.calendar_events.length);
    t.same(events.events.map((e: any) => [e.id, e.type, e.name, e.dateTime, e.language, e.Content._href, e.Owner._href]),
      [...FIXTURE.calendar_events].sort((a: any, b: any) => unix(a.date_time) - unix(b.date_time) || a.id - b.id)
        .map((e: any) => [e.id, e.type, e.name, unix(e.date_time), e.language, `${BASE}/content/objects/${e.content_id}`, `${BASE}/user/users/${e.owner_id}`]));
    for (const lang of FIXTURE.languages) {
      t.equal((await as(s, admin, `/calendar/event?start=0&end=4102444800&languages=${lang.code}`)).status, 200, lang.code);
    }
    t.equal(events.events.length, FIXTURE.calendar_events.length);
    t.equal((await as(s, admin, '/calendar/event?start=0&end=4102444800')).json().EventList.events.length, FIXTURE.settings.calendar_default_count);
    t.equal((await as(s, admin, '/activity-log-group/list')).json().ActivityLogGroupList.ActivityLogGroups.length, FIXTURE.settings.default_limit);
  });
});
