// Content API, spec §7: the `fields` parameter — grammar and every error text of §7.1, selection
// semantics (§7.2), nested relation fields (§7.3), on listings and detail views of all three resources.
import t from 'tap';
import { startContentServer, getJson } from './content-server.js';

t.test('content API: fields', async (t) => {
  const s = await startContentServer(t);
  const message = async (p: string) => {
    const r = await getJson(s, p);
    return { status: r.status, body: r.body };
  };

  t.test('§7.1 every syntax error, literally', async (t) => {
    const cases: Array<[string, string]> = [
      ['title,', "unexpected char ',' at position 6"],
      ['title,,id', "unexpected char ',' at position 6"],
      [',title', "unexpected char ',' at position 0"],
      ['ti-tle', "unexpected char '-' at position 2"],
      ['--title', "unexpected char '-' at position 1"],
      ['*(id)', "unexpected char '(' at position 1"],
      ['_(id)', "unexpected char '(' at position 1"],
      ['-title(id)', "unexpected char '(' at position 6"],
      [')', "unexpected char ')' at position 0"],
      ['title)', "unexpected char ')' at position 5"],
      ['title!', "unexpected char '!' at position 5"],
      ['*id', "unexpected char 'i' at position 1"],
      ['id*', "unexpected char '*' at position 2"],
      ['title, id', 'unexpected whitespace at position 6'],
      ['title,\tid', 'unexpected whitespace at position 6'],
      [' title', 'unexpected whitespace at position 0'],
      ['id,*', "'*' must be in the first position"],
      ['id,_', "'_' must be in the first position"],
      ['-*', "'*' cannot be negated"],
      ['-_', "'_' cannot be negated"],
      ['_,-title', "negated fields with '_' doesn't make sense"],
      ['*,title', "additional fields with '*' doesn't make sense"],
      ['feed_image(width', 'unexpected end of input (did you miss out a close bracket?)'],
      ['feed_image(width,height', 'unexpected end of input (did you miss out a close bracket?)'],
      ['feed_image()', "unexpected char ')' at position 11"],
      ['feed_image(width))', "unexpected char ')' at position 17"],
    ];
    for (const [fields, text] of cases) {
      for (const ep of ['/api/v2/pages/?type=blog.BlogPage&', '/api/v2/pages/7/?', '/api/v2/images/?', '/api/v2/documents/1/?']) {
        const r = await message(`${ep}fields=${encodeURIComponent(fields)}`);
        t.equal(r.status, 400, `${ep} ${fields}`);
        t.strictSame(r.body, { message: `fields error: ${text}` }, `${ep} ${fields}`);
      }
    }
  });

  t.test('§7.2 unknown fields, sorted, and nested-on-non-relation', async (t) => {
    const cases: Array<[string, string]> = [
      ['/api/v2/pages/?fields=123,title,abc', 'unknown fields: 123, abc'],
      ['/api/v2/pages/?fields=parent', 'unknown fields: parent'],
      ['/api/v2/pages/?fields=body', 'unknown fields: body'],
      ['/api/v2/pages/?fields=_,zeta,Alpha,beta', 'unknown fields: Alpha, beta, zeta'],
      ['/api/v2/pages/?fields=*,-nope', 'unknown fields: nope'],
      ['/api/v2/pages/?fields=-nope', 'unknown fields: nope'],
      ['/api/v2/pages/?type=content.StandardPage&fields=date', 'unknown fields: date'],
      ['/api/v2/pages/?type=blog.BlogPage,content.StandardPage&fields=body', 'unknown fields: body'],
      ['/api/v2/pages/?fields=title(x)', "'title' does not support nested fields"],
      ['/api/v2/pages/7/?fields=parent(id)', "'parent' does not support nested fields"],
      ['/api/v2/pages/18/?fields=alias_of(id)', "'alias_of' does not support nested fields"],
      ['/api/v2/pages/7/?fields=feed_image(foo,bar)', 'unknown fields: bar, foo'],
      ['/api/v2/pages/7/?fields=feed_image(width(x))', "'width' does not support nested fields"],
      ['/api/v2/pages/7/?fields=feed_image(parent)', 'unknown fields: parent'],
      ['/api/v2/images/?fields=body', 'unknown fields: body'],
      ['/api/v2/images/?fields=tags(x)', "'tags' does not support nested fields"],
      ['/api/v2/images/1/?fields=width,slug', 'unknown fields: slug'],
      ['/api/v2/documents/?fields=width', 'unknown fields: width'],
      ['/api/v2/documents/1/?fields=title(x)', "'title' does not support nested fields"],
    ];
    for (const [p, text] of cases) {
      const r = await message(p);
      t.equal(r.status, 400, p);
      t.strictSame(r.body, { message: text }, p);
    }
    t.equal((await message('/api/v2/pages/7/?fields=parent')).status, 200, 'parent is available in the detail view');
    t.equal((await message('/api/v2/pages/?fields=feed_image(x),-feed_image&type=blog.BlogPage')).status, 200, 'a removed relation is not checked');
  });

  t.test('§7.2 selection semantics on listings', async (t) => {
    const first = async (p: string) => (await getJson(s, p)).body.items[0];
    t.strictSame(await first('/api/v2/pages/?fields=_'), {});
    t.strictSame(await first('/api/v2/pages/?fields=_,title'), { title: 'Lumenfield Gardens' });
    t.strictSame(await first('/api/v2/pages/?fields=_,id,slug'), { id: 2, meta: { slug: 'home' } });
    const star = await first('/api/v2/pages/?fields=*');
    t.same(Object.keys(star.meta), ['type', 'detail_url', 'html_url', 'slug', 'show_in_menus', 'seo_title', 'search_description', 'first_published_at', 'expires_at', 'alias_of', 'locale']);
    t.same(Object.keys(star), ['id', 'meta', 'title']);
    const starMinus = await first('/api/v2/pages/?fields=*,-title,-html_url');
    t.notOk('title' in starMinus);
    t.notOk('html_url' in starMinus.meta);
    const added = await first('/api/v2/pages/?fields=expires_at,-slug,show_in_menus');
    t.same(Object.keys(added.meta), ['type', 'detail_url', 'html_url', 'show_in_menus', 'first_published_at', 'expires_at', 'locale']);
    t.strictSame(await first('/api/v2/pages/?fields=-title,-type,-detail_url,-html_url,-slug,-first_published_at,-locale'), { id: 2 });
    const blog = await first('/api/v2/pages/?type=blog.BlogPage&fields=*');
    t.same(Object.keys(blog), ['id', 'meta', 'title', 'date', 'intro', 'body', 'feed_image', 'reading_time']);
    t.same(Object.keys(blog.feed_image), ['id', 'meta', 'title']);
    const dflt = (await getJson(s, '/api/v2/pages/?fields=')).body.items[0];
    t.same(Object.keys(dflt.meta), ['type', 'detail_url', 'html_url', 'slug', 'first_published_at', 'locale'], 'an empty fields is the default');
    t.strictSame(await first('/api/v2/images/?fields=_,width,height'), { width: 1600, height: 1067 });
    t.same(Object.keys(await first('/api/v2/images/?fields=*')), ['id', 'meta', 'title', 'width', 'height']);
    t.strictSame(await first('/api/v2/documents/?fields=_,id,tags'), { id: 1, meta: { tags: ['maps', 'visiting'] } });
    t.strictSame(await first('/api/v2/documents/?fields=-meta_absent_is_fine'.replace('-meta_absent_is_fine', '-tags,-download_url,-type,-detail_url')), { id: 1, title: 'Visitor map 2024' });
  });

  t.test('§7.3 nested relation fields', async (t) => {
    const fi = async (f: string) => (await getJson(s, `/api/v2/pages/7/?fields=_,feed_image(${f})`)).body.feed_image;
    const wh = await fi('width,height');
    t.same(Object.keys(wh), ['id', 'meta', 'title', 'width', 'height']);
    t.same(wh, { id: 2, meta: { type: 'wagtailimages.Image', detail_url: 'http://api.lumenfield.test/api/v2/images/2/', download_url: '/media/original_images/rose-pruning-shears.jpg' }, title: 'Rose pruning shears', width: 1200, height: 800 });
    t.same(Object.keys(await fi('-title')), ['id', 'meta']);
    t.strictSame(await fi('_,id'), { id: 2 });
    t.same(Object.keys((await fi('*')).meta), ['type', 'detail_url', 'tags', 'download_url']);
    t.strictSame((await getJson(s, '/api/v2/pages/3/?fields=_,attachment(_,title)')).body, { attachment: { title: 'Annual report 2023' } });
    t.strictSame((await getJson(s, '/api/v2/pages/2/?fields=_,hero_image(_,id,tags)')).body, { hero_image: { id: 1, meta: { tags: ['glasshouse', 'morning'] } } });
    t.strictSame((await getJson(s, '/api/v2/pages/11/?fields=_,feed_image(width)')).body, { feed_image: null }, 'no related image: null');
    const listing = (await getJson(s, '/api/v2/pages/?type=blog.BlogPage&fields=_,id,feed_image(_,id)')).body.items;
    t.strictSame(listing[0], { id: 18, feed_image: { id: 2 } });
    t.strictSame((await getJson(s, '/api/v2/pages/?type=blog.BlogPage&fields=*,feed_image(_,width)')).body.items[0].feed_image, { width: 1200 }, "'*,x(sub)' is allowed");
  });

  t.test('§7.3 a relation to a hidden image or document is null', async (t) => {
    const s2 = await startContentServer(t, ["UPDATE content.pages SET fields = jsonb_set(fields, '{feed_image}', '8') WHERE id = 7", "UPDATE content.pages SET fields = jsonb_set(fields, '{attachment}', '5') WHERE id = 3"]);
    t.equal((await getJson(s2, '/api/v2/pages/7/')).body.feed_image, null);
    t.equal((await getJson(s2, '/api/v2/pages/3/')).body.attachment, null);
  });

  t.test('§8.1 detail fields', async (t) => {
    t.strictSame((await getJson(s, '/api/v2/pages/7/?fields=_,id')).body, { id: 7 });
    t.strictSame((await getJson(s, '/api/v2/pages/7/?fields=_')).body, {});
    t.strictSame((await getJson(s, '/api/v2/pages/7/?fields=_,parent')).body, { meta: { parent: { id: 6, meta: { type: 'blog.BlogIndexPage', detail_url: 'http://api.lumenfield.test/api/v2/pages/6/', html_url: 'http://www.lumenfield.test/journal/' }, title: 'Garden journal' } } });
    const noBody = (await getJson(s, '/api/v2/pages/7/?fields=-body,-intro,-parent')).body;
    t.notOk('body' in noBody);
    t.notOk('parent' in noBody.meta);
    t.strictSame((await getJson(s, '/api/v2/images/2/?fields=_,id,width')).body, { id: 2, width: 1200 });
    t.strictSame((await getJson(s, '/api/v2/documents/2/?fields=_,download_url')).body, { meta: { download_url: 'http://api.lumenfield.test/documents/2/annual-report-2023.pdf' } });
    t.equal((await getJson(s, '/api/v2/pages/999/?fields=bad,')).status, 404, 'not found comes before fields errors');
  });
});
