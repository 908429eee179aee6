// Content API (examples/content), spec content-api.md §1–§4, §6.1, §6.10, §8.1, §10: listings and
// detail views of pages, images and documents over HTTP — default fields, visibility (hidden, draft,
// private, expired, restricted collections), limit/offset, HEAD, trailing slashes, 405, 404s.
import t from 'tap';
import { startContentServer, getJson, ids } from './content-server.js';

const SITE_A = [2, 3, 4, 5, 18, 6, 7, 8, 9, 11, 13, 14, 15, 20, 21, 22, 23];
const SITE_B = [40, 41, 42, 43, 44, 46, 47];

t.test('content API: listings and detail views', async (t) => {
  const s = await startContentServer(t);

  t.test('§3.4 pages visible per site, in tree order; listing default fields (§4.1)', async (t) => {
    const r = await getJson(s, '/api/v2/pages/');
    t.equal(r.status, 200);
    t.match(r.headers['content-type'], /^application\/json/);
    t.equal(r.body.meta.total_count, 17);
    t.same(r.body.items.map((i: any) => i.id), SITE_A);
    t.strictSame(r.body.items[6], {
      id: 7,
      meta: {
        type: 'blog.BlogPage', detail_url: 'http://api.lumenfield.test/api/v2/pages/7/',
        html_url: 'http://www.lumenfield.test/journal/pruning-roses/', slug: 'pruning-roses',
        first_published_at: '2024-02-12T08:30:00Z', locale: 'en',
      },
      title: 'Pruning roses in late winter',
    });
    t.same(Object.keys(r.body.items[0]), ['id', 'meta', 'title'], 'id, meta, then body fields');
    t.same(Object.keys(r.body.items[0].meta), ['type', 'detail_url', 'html_url', 'slug', 'first_published_at', 'locale']);
    t.same(await ids(s, '/api/v2/pages/?limit=20', { Host: 'journal.harbourline.test' }), SITE_B, 'site B by Host');
    t.same(await ids(s, '/api/v2/pages/', { Host: 'journal.harbourline.test:80' }), SITE_B, 'hostname:port');
    t.same(await ids(s, '/api/v2/pages/', { Host: 'journal.harbourline.test:8080' }), SITE_B, 'the only site with that hostname');
    t.same(await ids(s, '/api/v2/pages/', { Host: 'unknown.example' }), SITE_A, 'else the default site');
  });

  t.test('§3.5 html_url of translations and site B', async (t) => {
    const urls = Object.fromEntries((await getJson(s, '/api/v2/pages/?fields=_,id,html_url')).body.items.map((i: any) => [i.id, i.meta.html_url]));
    t.equal(urls[2], 'http://www.lumenfield.test/');
    t.equal(urls[20], 'http://www.lumenfield.test/fr/');
    t.equal(urls[23], 'http://www.lumenfield.test/fr/journal/tailler-les-rosiers/');
    t.equal(urls[18], 'http://www.lumenfield.test/about/rose-pruning-guide/');
    const b = await getJson(s, '/api/v2/pages/42/?fields=_,html_url', { Host: 'journal.harbourline.test' });
    t.same(b.body, { meta: { html_url: 'http://journal.harbourline.test/dispatches/night-ferries/' } });
  });

  t.test('§8.1 page detail: every field of its type, parent and alias_of', async (t) => {
    const r = await getJson(s, '/api/v2/pages/7/');
    t.equal(r.status, 200);
    t.strictSame(r.body, {
      id: 7,
      meta: {
        type: 'blog.BlogPage',
        detail_url: 'http://api.lumenfield.test/api/v2/pages/7/',
        html_url: 'http://www.lumenfield.test/journal/pruning-roses/',
        slug: 'pruning-roses',
        show_in_menus: false,
        seo_title: 'How to prune roses in late winter',
        search_description: 'A step by step guide to winter rose pruning.',
        first_published_at: '2024-02-12T08:30:00Z',
        expires_at: null,
        alias_of: null,
        parent: { id: 6, meta: { type: 'blog.BlogIndexPage', detail_url: 'http://api.lumenfield.test/api/v2/pages/6/', html_url: 'http://www.lumenfield.test/journal/' }, title: 'Garden journal' },
        locale: 'en',
      },
      title: 'Pruning roses in late winter',
      date: '2024-02-12',
      intro: 'Late winter is the moment to prune bush and climbing roses.',
      body: 'Use clean, sharp secateurs and cut just above an outward facing bud. Remove dead wood first.',
      feed_image: { id: 2, meta: { type: 'wagtailimages.Image', detail_url: 'http://api.lumenfield.test/api/v2/images/2/', download_url: '/media/original_images/rose-pruning-shears.jpg' }, title: 'Rose pruning shears' },
      reading_time: 6,
    });
    t.same(Object.keys(r.body.meta), ['type', 'detail_url', 'html_url', 'slug', 'show_in_menus', 'seo_title', 'search_description', 'first_published_at', 'expires_at', 'alias_of', 'parent', 'locale']);
    t.same(Object.keys(r.body), ['id', 'meta', 'title', 'date', 'intro', 'body', 'feed_image', 'reading_time']);
    const alias = (await getJson(s, '/api/v2/pages/18/')).body;
    t.equal(alias.meta.alias_of.id, 7);
    t.same(alias.meta.alias_of, { id: 7, meta: { type: 'blog.BlogPage', detail_url: 'http://api.lumenfield.test/api/v2/pages/7/', html_url: 'http://www.lumenfield.test/journal/pruning-roses/' }, title: 'Pruning roses in late winter' });
    t.equal(alias.meta.html_url, 'http://www.lumenfield.test/about/rose-pruning-guide/');
    t.equal((await getJson(s, '/api/v2/pages/2/')).body.meta.parent, null, 'a site root has no parent');
    t.equal((await getJson(s, '/api/v2/pages/20/')).body.meta.parent, null, 'a translation root has no parent');
    t.equal((await getJson(s, '/api/v2/pages/14/')).body.meta.expires_at, '2030-12-31T23:59:59Z');
    const home = (await getJson(s, '/api/v2/pages/2/')).body;
    t.same(Object.keys(home), ['id', 'meta', 'title', 'intro', 'hero_image']);
    t.equal(home.hero_image.id, 1);
    const std = (await getJson(s, '/api/v2/pages/3/')).body;
    t.same(std.attachment, { id: 2, meta: { type: 'wagtaildocs.Document', detail_url: 'http://api.lumenfield.test/api/v2/documents/2/', download_url: 'http://api.lumenfield.test/documents/2/annual-report-2023.pdf' }, title: 'Annual report 2023' });
    t.equal((await getJson(s, '/api/v2/pages/4/')).body.attachment, null);
  });

  t.test('§3.4 hidden, draft, private and other-site pages are 404 in detail', async (t) => {
    for (const id of [1, 10, 12, 16, 17, 24, 40, 45, 999, 99999999999]) {
      const r = await getJson(s, `/api/v2/pages/${id}/`);
      t.equal(r.status, 404, `page ${id}`);
      t.strictSame(r.body, { message: 'No Page matches the given query.' });
    }
    t.equal((await getJson(s, '/api/v2/pages/42/', { Host: 'journal.harbourline.test' })).status, 200);
    t.equal((await getJson(s, '/api/v2/pages/7/', { Host: 'journal.harbourline.test' })).status, 404);
    const abc = await getJson(s, '/api/v2/pages/abc/');
    t.equal(abc.status, 404);
    t.type(abc.body.message, 'string');
    t.match(abc.headers['content-type'], /^application\/json/);
  });

  t.test('§8.1, §11.11 detail views ignore listing parameters; a repeated parameter counts with its last value', async (t) => {
    const plain = (await getJson(s, '/api/v2/pages/7/')).body;
    for (const q of ['slug=nope', 'child_of=abc', 'limit=abc&offset=-1', 'order=nope', 'search_operator=x&search=y', 'type=nope', 'locale=xx']) {
      const r = await getJson(s, `/api/v2/pages/7/?${q}`);
      t.equal(r.status, 200, q);
      t.strictSame(r.body, plain, q);
    }
    t.equal((await getJson(s, '/api/v2/images/1/?width=1&order=nope')).status, 200);
    t.equal((await getJson(s, '/api/v2/documents/1/?foo=bar')).status, 200);
    t.same(await ids(s, '/api/v2/pages/?limit=abc&limit=2'), [2, 3], 'limit=abc&limit=2: the last value');
    t.strictSame((await getJson(s, '/api/v2/pages/?limit=2&limit=abc')).body, { message: 'limit must be a positive integer' });
  });

  t.test('§3.4 expired pages are not visible', async (t) => {
    const s2 = await startContentServer(t, ["UPDATE content.pages SET expire_at = '2020-01-01T00:00:00Z' WHERE id = 15"]);
    t.notOk((await ids(s2, '/api/v2/pages/')).includes(15));
    t.equal((await getJson(s2, '/api/v2/pages/15/')).status, 404);
  });

  t.test('§4.2 images: listing, detail, restricted collection hidden', async (t) => {
    const r = await getJson(s, '/api/v2/images/');
    t.equal(r.body.meta.total_count, 8);
    t.same(r.body.items.map((i: any) => i.id), [1, 2, 3, 4, 5, 6, 7, 9]);
    t.same(Object.keys(r.body.items[0]), ['id', 'meta', 'title']);
    t.same(Object.keys(r.body.items[0].meta), ['type', 'detail_url', 'tags', 'download_url']);
    t.strictSame((await getJson(s, '/api/v2/images/1/')).body, {
      id: 1,
      meta: { type: 'wagtailimages.Image', detail_url: 'http://api.lumenfield.test/api/v2/images/1/', tags: ['glasshouse', 'morning'], download_url: '/media/original_images/glasshouse-at-dawn.jpg' },
      title: 'Glasshouse at dawn', width: 1600, height: 1067,
    });
    t.same((await getJson(s, '/api/v2/images/7/')).body.meta.tags, []);
    const hidden = await getJson(s, '/api/v2/images/8/');
    t.equal(hidden.status, 404);
    t.strictSame(hidden.body, { message: 'No Image matches the given query.' });
    t.equal((await getJson(s, '/api/v2/images/x/')).status, 404);
  });

  t.test('§4.3 documents: listing, detail, restricted collection hidden', async (t) => {
    const r = await getJson(s, '/api/v2/documents/');
    t.equal(r.body.meta.total_count, 6);
    t.same(r.body.items.map((i: any) => i.id), [1, 2, 3, 4, 6, 7]);
    t.strictSame(r.body.items[0], {
      id: 1,
      meta: { type: 'wagtaildocs.Document', detail_url: 'http://api.lumenfield.test/api/v2/documents/1/', tags: ['maps', 'visiting'], download_url: 'http://api.lumenfield.test/documents/1/visitor-map-2024.pdf' },
      title: 'Visitor map 2024',
    });
    t.strictSame((await getJson(s, '/api/v2/documents/2/')).body, r.body.items[1]);
    const hidden = await getJson(s, '/api/v2/documents/5/');
    t.equal(hidden.status, 404);
    t.strictSame(hidden.body, { message: 'No Document matches the given query.' });
  });

  t.test('§6.10 limit and offset', async (t) => {
    const r = await getJson(s, '/api/v2/pages/?limit=3&offset=2');
    t.equal(r.body.meta.total_count, 17);
    t.same(r.body.items.map((i: any) => i.id), [4, 5, 18]);
    const zero = await getJson(s, '/api/v2/pages/?limit=0');
    t.same(zero.body, { meta: { total_count: 17 }, items: [] });
    t.same((await getJson(s, '/api/v2/pages/?offset=100')).body, { meta: { total_count: 17 }, items: [] });
    t.same(await ids(s, '/api/v2/images/?limit=2&offset=7'), [9]);
    t.equal((await getJson(s, '/api/v2/pages/?limit=20')).status, 200);
    const cases: Array<[string, string]> = [
      ['limit=21', 'limit cannot be higher than 20'],
      ['limit=99999999999999999999999', 'limit cannot be higher than 20'],
      ['limit=-1', 'limit must be a positive integer'],
      ['limit=abc', 'limit must be a positive integer'],
      ['limit=', 'limit must be a positive integer'],
      ['limit=+5', 'limit must be a positive integer'],
      ['offset=-1', 'offset must be a positive integer'],
      ['offset=x', 'offset must be a positive integer'],
      ['offset=1.5', 'offset must be a positive integer'],
      ['offset=x&limit=x', 'offset must be a positive integer'],
    ];
    for (const [qs, message] of cases) {
      for (const ep of ['pages', 'images', 'documents']) {
        const r = await getJson(s, `/api/v2/${ep}/?${qs}`);
        t.equal(r.status, 400, `${ep} ${qs}`);
        t.strictSame(r.body, { message }, `${ep} ${qs}`);
      }
    }
  });

  t.test('§6.10 limit_max: null disables the check, a smaller one is the default', async (t) => {
    const s2 = await startContentServer(t, ['UPDATE content.settings SET limit_max = NULL']);
    t.equal((await getJson(s2, '/api/v2/pages/?limit=1000')).body.items.length, 17);
    t.equal((await getJson(s2, '/api/v2/pages/')).body.items.length, 17);
    const s3 = await startContentServer(t, ['UPDATE content.settings SET limit_max = 5']);
    t.equal((await getJson(s3, '/api/v2/pages/')).body.items.length, 5);
    t.strictSame((await getJson(s3, '/api/v2/pages/?limit=6')).body, { message: 'limit cannot be higher than 5' });
  });

  t.test('§1 trailing slashes, HEAD, 405', async (t) => {
    for (const p of ['/api/v2/pages', '/api/v2/pages/7', '/api/v2/images', '/api/v2/images/1', '/api/v2/documents', '/api/v2/documents/1']) {
      const a = await s.request(p);
      const b = await s.request(p + '/');
      t.equal(a.status, 200, p);
      t.equal(a.text, b.text, `${p} with and without its slash`);
      const head = await s.request(p + '/', { method: 'HEAD' });
      t.equal(head.status, 200, `HEAD ${p}/`);
      t.equal(head.text, '');
      t.match(head.headers['content-type'], /^application\/json/);
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const r = await s.request(p + '/', { method });
        t.equal(r.status, 405, `${method} ${p}`);
        t.equal(r.headers['allow'], 'GET, HEAD');
        t.equal(r.json().message, `Method "${method}" not allowed.`);
      }
    }
    const headMissing = await s.request('/api/v2/pages/999/', { method: 'HEAD' });
    t.equal(headMissing.status, 404, 'HEAD of a missing page');
    t.equal(headMissing.text, '');
    const headBad = await s.request('/api/v2/pages/?limit=x', { method: 'HEAD' });
    t.equal(headBad.status, 400, 'HEAD of a bad listing');
    for (const p of ['/api/v2/pages/find', '/api/v2/images/find', '/api/v2/documents/find']) {
      t.equal((await s.request(p, { method: 'DELETE' })).headers['allow'], 'GET, HEAD');
    }
    const unknown = await getJson(s, '/api/v2/nothing/');
    t.equal(unknown.status, 404);
    t.type(unknown.body.message, 'string');
  });
});
