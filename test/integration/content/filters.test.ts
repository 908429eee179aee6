// Content API, spec §5, §6.2–§6.9: unknown parameters, typed field filters, order, type, tree filters,
// site, locale, translation_of, search — every error text of §9 literally, the processing order of §6.3,
// and the combinations the spec calls out (the examples of the spec are taken from the demo data).
import { readFileSync } from 'node:fs';
import t from 'tap';
import { FIXTURE_PATH, startContentServer, getJson, ids } from './content-server.js';

const SITE_A = [2, 3, 4, 5, 18, 6, 7, 8, 9, 11, 13, 14, 15, 20, 21, 22, 23];
const SITE_B = [40, 41, 42, 43, 44, 46, 47];

t.test('content API: parameters', async (t) => {
  const s = await startContentServer(t);
  const fixture = JSON.parse(readFileSync(FIXTURE_PATH, 'utf8'));
  const byId = new Map<number, any>(fixture.pages.map((p: any) => [p.id, p]));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const err = async (t: any, p: string, status: number, message: string, headers: Record<string, string> = {}) => {
    const r = await getJson(s, p, headers);
    t.equal(r.status, status, p);
    t.strictSame(r.body, { message }, p);
  };
  const list = (p: string, headers: Record<string, string> = {}) => ids(s, p, headers);

  t.test('§6.2 unknown parameters, sorted; known ones accepted', async (t) => {
    await err(t, '/api/v2/pages/?date=2024-02-12', 400, 'query parameter is not an operation or a recognised field: date');
    await err(t, '/api/v2/pages/?foo=1&bar=2&Zed=3', 400, 'query parameter is not an operation or a recognised field: Zed, bar, foo');
    await err(t, '/api/v2/pages/?html_path=/', 400, 'query parameter is not an operation or a recognised field: html_path');
    await err(t, '/api/v2/pages/?parent=2', 400, 'query parameter is not an operation or a recognised field: parent');
    await err(t, '/api/v2/images/?type=wagtailimages.Image', 400, 'query parameter is not an operation or a recognised field: type');
    await err(t, '/api/v2/images/?child_of=2&site=x', 400, 'query parameter is not an operation or a recognised field: child_of, site');
    await err(t, '/api/v2/documents/?width=1', 400, 'query parameter is not an operation or a recognised field: width');
    await err(t, '/api/v2/pages/?type=blog.BlogPage&body=x&attachment=1', 400, 'query parameter is not an operation or a recognised field: attachment');
    t.same(await list('/api/v2/pages/?format=json&_=12345'), SITE_A, 'format and _ are ignored');
    t.same(await list('/api/v2/images/?format=json&_=1&search_operator=or'), [1, 2, 3, 4, 5, 6, 7, 9], 'search_operator without search is ignored');
  });

  t.test('§6.3 processing order', async (t) => {
    await err(t, '/api/v2/pages/?type=nope&site=nope&zzz=1', 400, "type doesn't exist");
    await err(t, '/api/v2/pages/?site=nope&zzz=1', 404, 'No Site matches the given query.');
    await err(t, '/api/v2/pages/?zzz=1&id=x', 400, 'query parameter is not an operation or a recognised field: zzz');
    await err(t, '/api/v2/pages/?id=x&child_of=x', 400, "field filter error. 'x' is not a valid value for id (expected an integer)");
    await err(t, '/api/v2/pages/?child_of=x&ancestor_of=x', 400, 'child_of must be a positive integer');
    await err(t, '/api/v2/pages/?ancestor_of=x&descendant_of=x', 400, 'ancestor_of must be a positive integer');
    await err(t, '/api/v2/pages/?descendant_of=x&order=nope', 400, 'descendant_of must be a positive integer');
    await err(t, '/api/v2/pages/?order=nope&translation_of=x', 400, "cannot order by 'nope' (unknown field)");
    await err(t, '/api/v2/pages/?translation_of=x&locale=xx', 400, 'translation_of must be a positive integer');
    await err(t, '/api/v2/pages/?locale=xx&search=a&search_operator=x', 404, 'No Locale matches the given query.');
    await err(t, '/api/v2/pages/?search=a&search_operator=x&offset=x', 400, "search_operator must be 'and' or 'or'");
    await err(t, '/api/v2/pages/?offset=x&limit=x&fields=,', 400, 'offset must be a positive integer');
    await err(t, '/api/v2/pages/?limit=x&fields=,', 400, 'limit must be a positive integer');
    await err(t, '/api/v2/pages/?fields=nope', 400, 'unknown fields: nope');
  });

  t.test('§6.5 field filters with typed validation', async (t) => {
    t.same(await list('/api/v2/pages/?type=blog.BlogPage&date=2024-02-12'), [18, 7, 23], 'spec example');
    t.same(await list('/api/v2/pages/?show_in_menus=true'), [3, 5, 6, 13, 21, 22]);
    t.same(await list('/api/v2/pages/?show_in_menus=1'), [3, 5, 6, 13, 21, 22]);
    t.same(await list('/api/v2/pages/?show_in_menus=0&limit=3'), [2, 4, 18]);
    t.same(await list('/api/v2/pages/?show_in_menus=false&limit=3'), [2, 4, 18]);
    for (const v of ['yes', 'True', 'FALSE', '']) {
      await err(t, `/api/v2/pages/?show_in_menus=${v}`, 400, `field filter error. '${v}' is not a valid value for show_in_menus (expected 'true' or 'false', got '${v}')`);
    }
    t.same(await list('/api/v2/pages/?id=7'), [7]);
    t.same(await list('/api/v2/pages/?id=%2B7'), [7], 'an optional sign');
    t.same(await list('/api/v2/pages/?id=99999999999999'), []);
    t.same(await list('/api/v2/pages/?id=17'), [], 'hidden pages are not found by filters');
    for (const [f, v] of [['id', 'abc'], ['id', '1.5'], ['id', ''], ['alias_of', 'x'], ['first_published_at', '2024-02-12'], ['expires_at', 'soon'], ['first_published_at', '2024-02-12T08:30:00']]) {
      const r = await getJson(s, `/api/v2/pages/?${f}=${encodeURIComponent(v!)}`);
      t.equal(r.status, 400, `${f}=${v}`);
      t.ok(r.body.message.startsWith(`field filter error. '${v}' is not a valid value for ${f}`), r.body.message);
    }
    t.same(await list('/api/v2/pages/?slug=journal'), [6, 22]);
    t.same(await list('/api/v2/pages/?title=Pruning%20roses%20in%20late%20winter'), [18, 7]);
    t.same(await list('/api/v2/pages/?seo_title=How%20to%20prune%20roses%20in%20late%20winter'), [18, 7]);
    t.same(await list('/api/v2/pages/?search_description=Notes%20from%20the%20gardeners.'), [6]);
    t.same(await list('/api/v2/pages/?alias_of=7'), [18]);
    t.same(await list('/api/v2/pages/?first_published_at=2024-02-12T08:30:00Z'), [7]);
    t.same(await list('/api/v2/pages/?first_published_at=2024-02-12T09:30:00%2B01:00'), [7], 'with an offset');
    t.same(await list('/api/v2/pages/?expires_at=2030-12-31T23:59:59Z'), [14]);
    t.same(await list('/api/v2/pages/?type=blog.BlogPage&reading_time=6'), [18, 7, 23]);
    t.same(await list('/api/v2/pages/?type=blog.BlogPage&feed_image=2'), [18, 7, 23]);
    t.same(await list('/api/v2/pages/?type=blog.BlogPage&intro=Saving%20seed%20is%20easy%20once%20you%20know%20which%20plants%20come%20true.'), [9]);
    t.same(await list('/api/v2/pages/?type=content.StandardPage&attachment=1'), [13, 15]);
    t.same(await list('/api/v2/pages/?type=home.HomePage&hero_image=1'), [2, 20]);
    for (const [f, v] of [['reading_time', 'six'], ['feed_image', 'x'], ['date', '2024-02-30'], ['date', '2024-2-1'], ['date', 'today']]) {
      const r = await getJson(s, `/api/v2/pages/?type=blog.BlogPage&${f}=${encodeURIComponent(v!)}`);
      t.equal(r.status, 400, `${f}=${v}`);
      t.ok(r.body.message.startsWith(`field filter error. '${v}' is not a valid value for ${f}`), r.body.message);
    }
    await err(t, '/api/v2/pages/?title=a%00b', 400, 'field filter error. null characters are not allowed for title');
    await err(t, '/api/v2/pages/?id=1%00', 400, 'field filter error. null characters are not allowed for id');
    await err(t, '/api/v2/images/?tags=a%00', 400, 'field filter error. null characters are not allowed for tags');
    t.same(await list('/api/v2/images/?tags=harbour'), [5, 6]);
    t.same(await list('/api/v2/images/?tags=harbour,night'), [5], 'every listed tag');
    t.same(await list('/api/v2/images/?tags=kitchen%20garden'), [3]);
    t.same(await list('/api/v2/images/?tags=internal'), [], 'restricted collection');
    t.same(await list('/api/v2/images/?width=1600'), [1, 9]);
    t.same(await list('/api/v2/images/?width=1600&height=1067&title=Meadow%20in%20June'), [9]);
    await err(t, '/api/v2/images/?height=tall', 400, "field filter error. 'tall' is not a valid value for height (expected an integer)");
    t.same(await list('/api/v2/documents/?tags=roses'), [3]);
    t.same(await list('/api/v2/documents/?title=membership%20form'), [7]);
    t.same(await list('/api/v2/documents/?id=5'), []);
  });

  t.test('§6.8 order', async (t) => {
    const byTitle = (dir: 1 | -1) => SITE_A.slice().sort((a, b) => dir * Buffer.compare(Buffer.from(byId.get(a).title), Buffer.from(byId.get(b).title)) || SITE_A.indexOf(a) - SITE_A.indexOf(b));
    t.same(await list('/api/v2/pages/?order=title'), byTitle(1));
    t.same(await list('/api/v2/pages/?order=-title'), byTitle(-1), 'ties stay in tree order');
    t.same(await list('/api/v2/images/?order=title'), [1, 7, 3, 6, 9, 5, 2, 4], 'byte order: lower case after upper case');
    t.same(await list('/api/v2/images/?order=-title'), [4, 2, 5, 9, 6, 3, 7, 1]);
    t.same(await list('/api/v2/images/?order=width'), [6, 4, 2, 7, 1, 9, 5, 3]);
    t.same(await list('/api/v2/images/?order=-width'), [3, 5, 1, 9, 7, 2, 4, 6]);
    t.same(await list('/api/v2/images/?order=height,-id'), [4, 2, 7, 9, 1, 5, 6, 3]);
    t.same(await list('/api/v2/documents/?order=title'), [2, 4, 3, 1, 6, 7]);
    t.same(await list('/api/v2/documents/?order=-id'), [7, 6, 4, 3, 2, 1]);
    t.same(await list('/api/v2/pages/?order=-first_published_at&limit=4'), [9, 18, 23, 7]);
    t.same(await list('/api/v2/pages/?order=-show_in_menus,-id&limit=3'), [22, 21, 13]);
    t.same(await list('/api/v2/pages/?order=expires_at,id&limit=2'), [14, 2], 'NULLs last ascending');
    t.same(await list('/api/v2/pages/?order=-expires_at&limit=2'), [2, 3], 'NULLs first descending, then tree order');
    t.same(await list('/api/v2/pages/?order=slug,-id&limit=3'), [21, 3, 20]);
    t.same(await list('/api/v2/pages/?type=blog.BlogPage&order=-date,id'), [9, 7, 18, 23, 11, 8]);
    t.same(await list('/api/v2/pages/?type=blog.BlogPage&order=reading_time,id'), [11, 9, 7, 18, 23, 8]);
    t.same(await list('/api/v2/pages/?order='), SITE_A, 'empty order: default');
    const random = await list('/api/v2/pages/?order=random');
    t.same(random.slice().sort((a, b) => a - b), SITE_A.slice().sort((a, b) => a - b));
    t.equal((await list('/api/v2/pages/?order=random&limit=5')).length, 5);
    await err(t, '/api/v2/pages/?order=nope', 400, "cannot order by 'nope' (unknown field)");
    await err(t, '/api/v2/pages/?order=-random', 400, "cannot order by '-random' (unknown field)");
    await err(t, '/api/v2/pages/?order=title,', 400, "cannot order by '' (unknown field)");
    await err(t, '/api/v2/pages/?order=type', 400, "cannot order by 'type' (unknown field)");
    await err(t, '/api/v2/pages/?order=date', 400, "cannot order by 'date' (unknown field)");
    await err(t, '/api/v2/pages/?order=Title', 400, "cannot order by 'Title' (unknown field)");
    await err(t, '/api/v2/images/?order=tags', 400, "cannot order by 'tags' (unknown field)");
    await err(t, '/api/v2/documents/?order=-tags', 400, "cannot order by '-tags' (unknown field)");
    await err(t, '/api/v2/pages/?order=random,title', 400, 'random ordering cannot be combined with other fields');
    await err(t, '/api/v2/pages/?order=title,random', 400, 'random ordering cannot be combined with other fields');
    await err(t, '/api/v2/pages/?order=random&offset=0', 400, 'random ordering with offset is not supported');
    await err(t, '/api/v2/images/?order=random&offset=x', 400, 'random ordering with offset is not supported');
  });

  t.test('§6.4 type', async (t) => {
    t.same(await list('/api/v2/pages/?type=blog.BlogPage'), [18, 7, 8, 9, 11, 23]);
    const lower = await getJson(s, '/api/v2/pages/?type=blog.blogpage&fields=_,type');
    t.equal(lower.body.meta.total_count, 6);
    t.equal(lower.body.items[0].meta.type, 'blog.BlogPage');
    t.same(await list('/api/v2/pages/?type=blog.BlogPage,content.StandardPage'), [3, 4, 5, 18, 7, 8, 9, 11, 13, 14, 15, 21, 23]);
    t.same(await list('/api/v2/pages/?type=wagtailcore.Page'), SITE_A);
    t.same(await list('/api/v2/pages/?type='), SITE_A, 'an empty type is no type');
    t.same(await list('/api/v2/pages/?type=blog.BlogIndexPage', { Host: 'journal.harbourline.test' }), [41]);
    for (const v of ['nope', 'wagtailimages.Image', 'wagtaildocs.Document', 'Blog.BlogPage', 'blog', 'a.b.c', 'blog.BlogPage,', ',blog.BlogPage', '.', 'blog.BlogPage,nope']) {
      await err(t, `/api/v2/pages/?type=${encodeURIComponent(v)}`, 400, "type doesn't exist");
    }
    const multi = await getJson(s, '/api/v2/pages/?type=blog.BlogPage,content.StandardPage&fields=*');
    t.same(Object.keys(multi.body.items[0]), ['id', 'meta', 'title'], 'several types: base fields only');
  });

  t.test('§6.6 tree filters', async (t) => {
    t.same(await list('/api/v2/pages/?child_of=6'), [7, 8, 9, 11]);
    t.same(await list('/api/v2/pages/?child_of=root'), [3, 6, 13]);
    t.same(await list('/api/v2/pages/?descendant_of=3'), [4, 5, 18]);
    t.same(await list('/api/v2/pages/?descendant_of=root'), [3, 4, 5, 18, 6, 7, 8, 9, 11, 13, 14, 15]);
    t.same(await list('/api/v2/pages/?ancestor_of=7'), [2, 6]);
    t.same(await list('/api/v2/pages/?ancestor_of=23'), [20, 22]);
    t.same(await list('/api/v2/pages/?ancestor_of=2'), []);
    t.same(await list('/api/v2/pages/?translation_of=7'), [23]);
    t.same(await list('/api/v2/pages/?translation_of=23'), [7]);
    t.same(await list('/api/v2/pages/?translation_of=root'), [20]);
    t.same(await list('/api/v2/pages/?translation_of=9'), [], 'its translation is a draft');
    t.same(await list('/api/v2/pages/?child_of=6&order=-title'), [11, 9, 7, 8]);
    t.same(await list('/api/v2/pages/?type=blog.BlogPage&child_of=6'), [7, 8, 9, 11], 'the reference page may be of another type');
    t.same(await list('/api/v2/pages/?type=blog.BlogPage&descendant_of=root&order=title'), [8, 18, 7, 9, 11]);
    t.same(await list('/api/v2/pages/?descendant_of=20&locale=fr'), [21, 22, 23]);
    await err(t, '/api/v2/pages/?child_of=16', 400, "parent page doesn't exist");
    await err(t, '/api/v2/pages/?child_of=10', 400, "parent page doesn't exist");
    await err(t, '/api/v2/pages/?child_of=41', 400, "parent page doesn't exist");
    await err(t, '/api/v2/pages/?child_of=1', 400, "parent page doesn't exist");
    await err(t, '/api/v2/pages/?child_of=99999999999999', 400, "parent page doesn't exist");
    await err(t, '/api/v2/pages/?descendant_of=999', 400, "ancestor page doesn't exist");
    await err(t, '/api/v2/pages/?ancestor_of=17', 400, "descendant page doesn't exist");
    await err(t, '/api/v2/pages/?translation_of=12', 400, "translation_of page doesn't exist");
    for (const p of ['child_of', 'descendant_of', 'translation_of', 'ancestor_of']) {
      for (const v of ['abc', '-1', '+1', '1.0', '', ' 1']) {
        await err(t, `/api/v2/pages/?${p}=${encodeURIComponent(v)}`, 400, `${p} must be a positive integer`);
      }
    }
    await err(t, '/api/v2/pages/?ancestor_of=root', 400, 'ancestor_of must be a positive integer');
    await err(t, '/api/v2/pages/?child_of=6&descendant_of=2', 400, 'filtering by descendant_of with child_of is not supported');
    await err(t, '/api/v2/pages/?child_of=6&descendant_of=x', 400, 'filtering by descendant_of with child_of is not supported');
    await err(t, '/api/v2/pages/?child_of=x&descendant_of=2', 400, 'child_of must be a positive integer');
  });

  t.test('§5 site', async (t) => {
    t.same(await list('/api/v2/pages/?site=journal.harbourline.test'), SITE_B);
    t.same(await list('/api/v2/pages/?site=journal.harbourline.test:80'), SITE_B);
    t.same(await list('/api/v2/pages/?site=www.lumenfield.test', { Host: 'journal.harbourline.test' }), SITE_A, 'site= replaces the Host');
    t.same(await list('/api/v2/pages/?site=journal.harbourline.test&child_of=root'), [41, 46, 47]);
    t.same(await list('/api/v2/pages/?site=journal.harbourline.test&descendant_of=root&type=blog.BlogPage'), [42, 43, 44]);
    t.equal((await getJson(s, '/api/v2/pages/42/?site=journal.harbourline.test')).status, 200);
    await err(t, '/api/v2/pages/7/?site=journal.harbourline.test', 404, 'No Page matches the given query.');
    for (const v of ['nope.example', 'journal.harbourline.test:81', 'journal.harbourline.test:', 'journal.harbourline.test:x', '']) {
      await err(t, `/api/v2/pages/?site=${encodeURIComponent(v)}`, 404, 'No Site matches the given query.');
    }
    await err(t, '/api/v2/pages/7/?site=nope', 404, 'No Site matches the given query.');
    const s2 = await startContentServer(t, ["INSERT INTO content.sites (id, hostname, port, site_name, root_page, is_default_site) VALUES (3, 'journal.harbourline.test', 8080, 'B again', 40, false)"]);
    const r = await getJson(s2, '/api/v2/pages/?site=journal.harbourline.test');
    t.equal(r.status, 400);
    t.strictSame(r.body, { message: 'Your query returned multiple sites. Try adding a port number to your site filter.' });
    t.same(await ids(s2, '/api/v2/pages/?site=journal.harbourline.test:8080'), SITE_B);
    t.same(await ids(s2, '/api/v2/pages/', { Host: 'journal.harbourline.test:8080' }), SITE_B);
  });

  t.test('§6.7 locale', async (t) => {
    t.same(await list('/api/v2/pages/?locale=fr'), [20, 21, 22, 23]);
    t.same(await list('/api/v2/pages/?locale=en&child_of=root'), [3, 6, 13]);
    t.same(await list('/api/v2/pages/?locale=fr', { Host: 'journal.harbourline.test' }), []);
    await err(t, '/api/v2/pages/?locale=de', 404, 'No Locale matches the given query.');
    await err(t, '/api/v2/pages/?locale=', 404, 'No Locale matches the given query.');
    await err(t, '/api/v2/pages/?locale=FR', 404, 'No Locale matches the given query.');
  });

  t.test('§6.9 search', async (t) => {
    t.same(await list('/api/v2/pages/?search=roses'), [18, 7]);
    t.same(await list('/api/v2/pages/?search=ROSES'), [18, 7], 'lowercased');
    t.same(await list('/api/v2/pages/?search=kitchen%20garden'), [2, 5, 8]);
    t.same(await list('/api/v2/pages/?search=kitchen%20garden&search_operator=and'), [2, 5, 8]);
    t.same(await list('/api/v2/pages/?search=kitchen%20garden&search_operator=or'), [2, 3, 4, 5, 6, 8]);
    t.same(await list('/api/v2/pages/?search=garden,kitchen!'), [2, 5, 8], 'words are runs of letters and digits');
    t.same(await list('/api/v2/pages/?search=secret'), [], 'page 17 is hidden');
    t.same(await list('/api/v2/pages/?search=gard'), [], 'no prefixes');
    t.same(await list('/api/v2/pages/?search=%C3%A0%20propos'), [21], 'unaccented');
    t.same(await list('/api/v2/pages/?search=etait'), [21]);
    t.same(await list('/api/v2/pages/?search=jardin'), [21, 22]);
    t.same(await list('/api/v2/pages/?search=1921'), [3, 21]);
    const none = await getJson(s, '/api/v2/pages/?search=');
    t.strictSame(none.body, { meta: { total_count: 0 }, items: [] }, 'no words: nothing');
    t.same(await list('/api/v2/pages/?search=%21%21'), []);
    t.same(await list('/api/v2/pages/?search=roses&order=-id'), [18, 7]);
    t.same(await list('/api/v2/pages/?search=roses&type=blog.BlogPage&descendant_of=6'), [7]);
    t.same(await list('/api/v2/pages/?search=roses&locale=fr'), []);
    t.same(await list('/api/v2/pages/?search=harbour', { Host: 'journal.harbourline.test' }), [40, 42, 44, 47]);
    t.same(await list('/api/v2/pages/?type=blog.BlogPage&search=beans'), [8, 9], 'text custom fields are searched');
    t.same(await list('/api/v2/images/?search=harbour'), [5, 6, 7], 'titles and tags');
    t.same(await list('/api/v2/images/?search=kitchen%20garden'), [3]);
    t.same(await list('/api/v2/images/?search=internal'), []);
    t.same(await list('/api/v2/documents/?search=harbour'), [4]);
    t.same(await list('/api/v2/documents/?search=roses%20leaflet&order=-id'), [3]);
    t.same(await list('/api/v2/documents/?search=maps%20forms&search_operator=or'), [1, 7]);
    for (const v of ['xor', 'and ', ' or', 'andor']) {
      await err(t, `/api/v2/pages/?search=roses&search_operator=${encodeURIComponent(v)}`, 400, "search_operator must be 'and' or 'or'");
    }
    await err(t, '/api/v2/images/?search=roses&tags=roses', 400, 'filtering by tag with a search query is not supported');
    await err(t, '/api/v2/documents/?tags=roses&search=', 400, 'filtering by tag with a search query is not supported');
    const s2 = await startContentServer(t, ['UPDATE content.settings SET search_enabled = false']);
    for (const ep of ['pages', 'images', 'documents']) {
      const r = await getJson(s2, `/api/v2/${ep}/?search=roses`);
      t.equal(r.status, 400);
      t.strictSame(r.body, { message: 'search is disabled' });
    }
  });

  t.test('i18n off: no locale field, parameter or translation trees', async (t) => {
    const s2 = await startContentServer(t, ['UPDATE content.settings SET i18n_enabled = false']);
    t.same(await ids(s2, '/api/v2/pages/'), [2, 3, 4, 5, 18, 6, 7, 8, 9, 11, 13, 14, 15]);
    const r = await getJson(s2, '/api/v2/pages/?locale=fr&translation_of=7');
    t.strictSame(r.body, { message: 'query parameter is not an operation or a recognised field: locale, translation_of' });
    t.notOk('locale' in (await getJson(s2, '/api/v2/pages/7/')).body.meta);
    t.strictSame((await getJson(s2, '/api/v2/pages/?fields=locale')).body, { message: 'unknown fields: locale' });
  });
});
