// CMS API calendar (spec §8): the window [start, end), types and languages, totalCount, pages of
// `count` walked with the opaque _nextPage cursor, _currentPage, defaults (now, 30 days, 10), XML,
// every bad parameter a 400, and calendar/read for every demo user.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { BASE, as, asXmlText, login, parseXml, startCmsServer, xmlToJson } from './cms-server.js';

interface Ev { id: number; type: string; name: string; date_time: string; language: string; content_id: number; owner_id: number }
const FIXTURE = JSON.parse(readFileSync(new URL('../../../../../shared/fixtures/cms-demo.json', import.meta.url), 'utf8'));
const EVENTS: Ev[] = FIXTURE.calendar_events;
const at = (e: Ev) => Date.parse(e.date_time) / 1000;
const MAY = 1714521600;
const JUNE = 1717200000;

t.test('CMS API calendar', async (t) => {
  const s = await startCmsServer(t);
  const admin = await login(s, 'admin');
  const editor = await login(s, 'editor');
  const visitor = await login(s, 'visitor');
  const get = async (q: string, who = admin) => {
    const res = await as(s, who, `/calendar/event?${q}`);
    if (res.status !== 200) throw new Error(`${q}: ${res.status} ${res.text}`);
    return res.json().EventList;
  };
  /** Every event of a query, page after page through _nextPage. */
  const walk = async (q: string) => {
    let page = await get(q);
    const ids: number[] = page.events.map((e: any) => e.id);
    const totals = new Set([page.totalCount]);
    let pages = 1;
    while (page._nextPage) {
      t.ok(page._nextPage.startsWith(`${BASE}/calendar/event?`), 'a path under the prefix');
      page = (await as(s, admin, page._nextPage)).json().EventList;
      ids.push(...page.events.map((e: any) => e.id));
      totals.add(page.totalCount);
      pages++;
    }
    return { ids, totals: [...totals], pages };
  };
  const expected = (start: number, end: number, f: (e: Ev) => boolean = () => true) =>
    EVENTS.filter((e) => at(e) >= start && at(e) < end && f(e)).sort((a, b) => at(a) - at(b) || a.id - b.id).map((e) => e.id);

  t.test('the spec example: May 2024, two per page', async (t) => {
    const page = await get(`start=${MAY}&end=${JUNE}&count=2`);
    t.equal(page['_media-type'], 'application/vnd.cms.api.EventList+json');
    t.equal(page._currentPage, `${BASE}/calendar/event?start=${MAY}&end=${JUNE}&count=2`);
    t.match(page._nextPage, new RegExp(`^${BASE}/calendar/event\\?start=${MAY}&end=${JUNE}&count=2&cursor=[A-Za-z0-9_-]+$`));
    t.equal(page.totalCount, 7);
    t.same(page.events, [
      { '_media-type': 'application/vnd.cms.api.Event+json', id: 101, type: 'future_publication', name: 'Summer opening hours', dateTime: 1714629600, language: 'eng-GB',
        Content: { '_media-type': 'application/vnd.cms.api.Content+json', _href: '/api/cms/v2/content/objects/63' },
        Owner: { '_media-type': 'application/vnd.cms.api.User+json', _href: '/api/cms/v2/user/users/14' } },
      { '_media-type': 'application/vnd.cms.api.Event+json', id: 102, type: 'reminder', name: 'Review rose pruning guide', dateTime: 1714986000, language: 'eng-GB',
        Content: { '_media-type': 'application/vnd.cms.api.Content+json', _href: '/api/cms/v2/content/objects/63' },
        Owner: { '_media-type': 'application/vnd.cms.api.User+json', _href: '/api/cms/v2/user/users/41' } },
    ]);
    const walked = await walk(`start=${MAY}&end=${JUNE}&count=2`);
    t.same(walked.ids, expected(MAY, JUNE), 'every event once, in order (ties by id: 103, 104)');
    t.same(walked.totals, [7], 'totalCount ignores cursor and count');
    t.equal(walked.pages, 4);
    const second = (await as(s, admin, page._nextPage)).json().EventList;
    t.equal(second._currentPage, page._nextPage, '_currentPage carries the cursor');
    t.same(second.events.map((e: any) => e.id), [103, 104]);
  });

  t.test('windows, types, languages, counts', async (t) => {
    const all = [0, 4102444800];
    const cases: Array<[string, number[]]> = [
      [`start=${all[0]}&end=${all[1]}&count=100`, expected(all[0]!, all[1]!)],
      [`start=${at(EVENTS[7]!)}&end=${at(EVENTS[7]!) + 1}`, [108]],
      [`start=${at(EVENTS[7]!) + 1}&end=${at(EVENTS[8]!)}`, []],
      [`start=0&end=4102444800&count=100&types=reminder`, expected(all[0]!, all[1]!, (e) => e.type === 'reminder')],
      [`start=0&end=4102444800&count=100&types=future_hide,reminder`, expected(all[0]!, all[1]!, (e) => ['future_hide', 'reminder'].includes(e.type))],
      [`start=0&end=4102444800&count=100&languages=fre-FR`, expected(all[0]!, all[1]!, (e) => e.language === 'fre-FR')],
      [`start=0&end=4102444800&count=100&languages=fre-FR,eng-GB&types=future_publication`, expected(all[0]!, all[1]!, (e) => e.type === 'future_publication')],
    ];
    for (const [q, ids] of cases) {
      const page = await get(q);
      t.same(page.events.map((e: any) => e.id), ids, q);
      t.equal(page.totalCount, ids.length);
      t.notOk(page._nextPage, 'one page');
    }
    const filtered = await walk('start=0&end=4102444800&count=3&types=future_publication&languages=eng-GB');
    t.same(filtered.ids, expected(0, 4102444800, (e) => e.type === 'future_publication' && e.language === 'eng-GB'));
    const firstPage = await get('start=0&end=4102444800&count=3&types=future_publication&languages=eng-GB');
    t.match(firstPage._nextPage, /&types=future_publication&languages=eng-GB&cursor=/, 'types and languages carried');
    t.equal((await walk('start=0&end=4102444800&count=1')).ids.length, 24, 'count=1, page by page');
    const tie = await walk(`start=${at(EVENTS[21]!)}&end=${at(EVENTS[21]!) + 1}&count=1`);
    t.same(tie.ids, [122, 123], 'events at the same second are paged by id');
    t.equal((await get('start=0&end=4102444800&count=100')).events.length, 24);
    t.equal((await get('start=0&end=4102444800')).events.length, 10, 'count defaults to 10');
  });

  t.test('defaults: start = now, end = start + 30 days', async (t) => {
    const now = Math.floor(Date.now() / 1000);
    await s.db.query(`INSERT INTO cms.calendar_events (id, type, name, date_time, language, content_id, owner_id) VALUES
      (900, 'reminder', 'Soon', now() + interval '1 day', 'eng-GB', 63, 14),
      (901, 'reminder', 'Later', now() + interval '40 days', 'eng-GB', 63, 14),
      (902, 'reminder', 'Past', now() - interval '1 day', 'eng-GB', 63, 14)`);
    const page = await get('');
    const m = /^\/api\/cms\/v2\/calendar\/event\?start=(\d+)&end=(\d+)&count=10$/.exec(page._currentPage);
    t.ok(m, page._currentPage);
    t.ok(Math.abs(Number(m![1]) - now) < 60, 'start is now');
    t.equal(Number(m![2]) - Number(m![1]), 2592000, '30 days');
    t.same(page.events.map((e: any) => e.id), [900]);
    t.same((await get(`start=${now - 10}`)).events.map((e: any) => e.id), [900]);
    await s.db.query('DELETE FROM cms.calendar_events WHERE id >= 900');
  });

  t.test('XML: the same tree, page links as attributes', async (t) => {
    const q = `/calendar/event?start=${MAY}&end=${JUNE}&count=2`;
    const xml = await as(s, admin, q, { headers: { Accept: 'application/vnd.cms.api.EventList+xml' } });
    t.equal(xml.headers['content-type'], 'application/vnd.cms.api.EventList+xml');
    const root = parseXml(xml.text).root;
    t.equal(root.name, 'EventList');
    t.equal(root.attrs['currentPage'], `${BASE}/calendar/event?start=${MAY}&end=${JUNE}&count=2`, 'escaped & decoded back');
    t.ok(root.attrs['nextPage']);
    t.same(root.children.map((c) => c.name), ['totalCount', 'Event', 'Event']);
    t.same(root.children[1]!.children.map((c) => c.name), ['id', 'type', 'name', 'dateTime', 'language', 'Content', 'Owner']);
    const json = (await as(s, admin, q)).json().EventList;
    delete json._nextPage;
    const fromXml = xmlToJson(root) as Record<string, unknown>;
    delete fromXml['_nextPage'];
    t.same(fromXml, asXmlText(json));
    const next = await as(s, admin, root.attrs['nextPage']!, { headers: { Accept: 'application/xml' } });
    t.same(parseXml(next.text).root.children.filter((c) => c.name === 'Event').map((e) => e.children[0]!.text), ['103', '104'], 'the XML cursor works');
    t.equal((await as(s, admin, q, { method: 'HEAD' })).status, 200, 'HEAD');
  });

  t.test('bad parameters: 400', async (t) => {
    const page = await get(`start=${MAY}&end=${JUNE}&count=2`);
    const cursor = /cursor=([^&]+)/.exec(page._nextPage)![1]!;
    const forged = Buffer.from(Buffer.from(cursor, 'base64url').toString().replace(/^\d+/, '1714900000')).toString('base64url');
    const bad = [
      'start=abc', 'start=-1', 'start=1.5', 'start=', 'end=x', `start=${JUNE}&end=${MAY}`, `start=${MAY}&end=${MAY}`,
      'count=0', 'count=101', 'count=ten', 'types=meeting', 'types=reminder,', 'types=', 'types=Reminder',
      'languages=deu-DE', 'languages=eng-GB,xx', 'cursor=nope', 'cursor=', `cursor=${forged}`, `cursor=${cursor}x`,
      'start=1&start=2', 'types=reminder&types=future_hide',
    ];
    for (const q of bad) {
      const res = await as(s, admin, `/calendar/event?${q}`);
      t.equal(res.status, 400, q);
      t.match(res.json(), { ErrorMessage: { errorCode: 400, errorMessage: 'Bad Request' } });
    }
    t.equal((await as(s, admin, `/calendar/event?start=${MAY}&end=${JUNE}&count=2&cursor=${cursor}`)).status, 200, 'an issued cursor');
    t.equal((await as(s, admin, `/calendar/event?start=${MAY}&end=${JUNE}&count=100&unknown=1`)).status, 200, 'other parameters are ignored');
  });

  t.test('calendar/read: admin and editor yes, visitor and anonymous 401', async (t) => {
    t.equal((await get(`start=${MAY}&end=${JUNE}`, editor)).totalCount, 7, 'every user with calendar/read sees every event');
    t.equal((await as(s, visitor, '/calendar/event')).status, 401);
    t.equal((await as(s, null, '/calendar/event')).status, 401);
    t.equal((await as(s, visitor, '/calendar/event?count=0')).status, 401, '401 before 400');
  });
});
