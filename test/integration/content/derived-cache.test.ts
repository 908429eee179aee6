// Content API, spec §3.5 html_url and §3.4/§5 visibility per site: the html_url expression, each site's
// tree roots and visibility condition, the site trees html_url reads and every resource's fields are
// kept in content.url_cache, site_cache, tree_cache and field_cache by statement triggers (20-api.sql).
// After every write they are computed from — a site's hostname, port, root page and default flag, a locale's code, a new
// translation tree between other sites' trees, i18n off and on, a site deleted — each site's listing
// must give the ids of the pages visible in its trees with the html_urls computed straight from the
// tables (the rule of §3.5 spelled out here), a detail its own and its parent's html_url the same way
// (meta.parent: content.page_html_url), and the URLs must show the change. The fields (content.field_cache)
// follow i18n (meta.locale) and a page type's new field (shown, and a filter).
import t, { type Test } from 'tap';
import type { TestServer } from '../../helpers/server.js';
import { startContentServer, getJson } from './content-server.js';

/** html_url (§3.5) of page alias p straight from the tables: the site whose tree holds the page (the
 *  longest tree path, then the default site, then the lowest id), a locale prefix when the page's
 *  locale is not the site root's, then the slugs below the tree root. */
const HTML_URL = `(SELECT CASE s.port WHEN 80 THEN 'http://' || s.hostname WHEN 443 THEN 'https://' || s.hostname
                                    ELSE 'http://' || s.hostname || ':' || s.port END
      || CASE WHEN p.locale_id = r.locale_id THEN '' ELSE '/' || (SELECT language_code FROM content.locales WHERE id = p.locale_id) END
      || CASE WHEN p.depth <= t.depth THEN '/'
              ELSE '/' || (SELECT string_agg(a.slug, '/' ORDER BY a.depth) FROM content.pages a
                            WHERE p.path LIKE a.path || '%' AND a.depth > t.depth) || '/' END
    FROM content.site_trees t JOIN content.sites s ON s.id = t.site_id JOIN content.pages r ON r.id = s.root_page
   WHERE p.path LIKE t.path || '%'
   ORDER BY length(t.path) DESC, s.is_default_site DESC, s.id LIMIT 1)`;

/** The visible pages of a site straight from the tables, in path order, with their html_url. */
async function expected(s: TestServer, site: number): Promise<{ id: number; url: string }[]> {
  return (await s.db.query<{ id: number; url: string }>(
    `SELECT p.id, ${HTML_URL} AS url FROM content.pages p
      WHERE p.live AND (p.expire_at IS NULL OR p.expire_at > now())
        AND NOT EXISTS (SELECT 1 FROM content.pages a WHERE a.private AND p.path LIKE a.path || '%')
        AND EXISTS (SELECT 1 FROM content.site_trees st WHERE st.site_id = $1 AND p.path LIKE st.path || '%')
      ORDER BY p.path COLLATE "C"`, [site])).map((r) => ({ id: r.id, url: r.url }));
}

async function hostOf(s: TestServer, site: number): Promise<string> {
  const r = (await s.db.query<{ hostname: string; port: number }>('SELECT hostname, port FROM content.sites WHERE id = $1', [site]))[0]!;
  return r.port === 80 ? r.hostname : `${r.hostname}:${r.port}`;
}

/** Every site's listing (all pages, in pages of 20) and one page's detail against the tables. */
async function check(t: Test, s: TestServer, label: string): Promise<Map<number, string>> {
  const urls = new Map<number, string>();
  const sites = (await s.db.query<{ id: number }>('SELECT id FROM content.sites ORDER BY id')).map((r) => r.id);
  for (const site of sites) {
    const want = await expected(s, site);
    const host = await hostOf(s, site);
    const got: { id: number; url: string }[] = [];
    for (let off = 0; off < want.length + 20; off += 20) {
      const r = await getJson(s, `/api/v2/pages/?offset=${off}&limit=20`, { host });
      if (r.status !== 200) { t.fail(`${label}: site ${site} listing ${r.status} ${JSON.stringify(r.body)}`); return urls; }
      got.push(...r.body.items.map((i: { id: number; meta: { html_url: string } }) => ({ id: i.id, url: i.meta.html_url })));
      if (r.body.items.length < 20) break;
    }
    t.same(got, want, `${label}: site ${site} (${host}) lists its visible pages with their html_url`);
    for (const w of want) if (!urls.has(w.id)) urls.set(w.id, w.url);
    // a detail: its own html_url and its parent's (content.page_small)
    const deep = want.find((w) => w.url.split('/').length > 5) ?? want[want.length - 1];
    if (deep !== undefined) {
      const d = await getJson(s, `/api/v2/pages/${deep.id}/`, { host });
      t.equal(d.status, 200, `${label}: site ${site} detail ${deep.id}`);
      t.equal(d.body?.meta?.html_url, deep.url, `${label}: site ${site} detail ${deep.id} html_url`);
      // its parent's html_url (meta.parent, content.page_small → content.page_html_url)
      const parent = d.body?.meta?.parent as { id: number; meta: { html_url: string } } | null;
      const pUrl = (await s.db.query<{ url: string }>(`SELECT ${HTML_URL} AS url FROM content.pages p WHERE p.id = (SELECT parent FROM content.pages WHERE id = $1)`, [deep.id]))[0]?.url;
      t.ok(parent !== null && parent !== undefined, `${label}: site ${site} detail ${deep.id} shows its parent`);
      t.equal(parent?.meta?.html_url, pUrl, `${label}: site ${site} detail ${deep.id} parent's html_url`);
    }
  }
  return urls;
}

t.test('content API: html_url, site visibility and the fields follow every write to sites, locales, settings, page types and pages', async (t) => {
  const s = await startContentServer(t);
  const before = await check(t, s, 'seed');
  t.ok([...before.values()].some((u) => u.startsWith('http://www.lumenfield.test/fr/')), 'a French page has a /fr/ prefix');

  await s.db.query("UPDATE content.sites SET hostname = 'garden.example.test' WHERE id = 1");
  let urls = await check(t, s, 'hostname changed');
  t.ok([...urls.values()].some((u) => u.startsWith('http://garden.example.test/')), 'the new hostname is in html_url');
  t.notOk([...urls.values()].some((u) => u.includes('www.lumenfield.test')), 'the old hostname is gone');

  await s.db.query('UPDATE content.sites SET port = 8443 WHERE id = 1');
  urls = await check(t, s, 'port changed');
  t.ok([...urls.values()].some((u) => u.startsWith('http://garden.example.test:8443/')), 'the new port is in html_url');

  await s.db.query("UPDATE content.locales SET language_code = 'fr-ca' WHERE language_code = 'fr'");
  urls = await check(t, s, 'locale code changed');
  t.ok([...urls.values()].some((u) => u.includes(':8443/fr-ca/')), 'the new locale code is in html_url');

  // site 2's root moves to a page of its tree: the tree, its URLs and its visible pages change
  const newRoot = (await s.db.query<{ id: number }>(
    `SELECT c.id FROM content.pages c JOIN content.sites s ON s.id = 2 JOIN content.pages r ON r.id = s.root_page
      WHERE c.parent = r.id AND c.live ORDER BY c.path LIMIT 1`))[0]!.id;
  await s.db.query('UPDATE content.sites SET root_page = $1 WHERE id = 2', [newRoot]);
  urls = await check(t, s, 'root page changed');
  t.equal(urls.get(newRoot), 'http://journal.harbourline.test/', 'the new root page is its site\'s home');

  // a new depth-2 translation of site 1's root: a tree of site 1, in the range between other sites' trees
  await s.db.query(`INSERT INTO content.locales (id, language_code) VALUES (9, 'nl')`);
  await s.db.query(
    `INSERT INTO content.pages (id, type, parent, path, depth, title, slug, locale_id, translation_key, live, first_published_at)
     SELECT 900, r.type, r.parent, (SELECT left(max(path), 4) || lpad(((right(max(path), 4))::integer + 1)::text, 4, '0') FROM content.pages WHERE depth = 2),
            2, 'Thuis', 'thuis', 9, r.translation_key, true, now()
       FROM content.pages r JOIN content.sites s ON s.root_page = r.id WHERE s.id = 1`);
  await s.db.query(
    `INSERT INTO content.pages (id, type, parent, path, depth, title, slug, locale_id, translation_key, live, first_published_at)
     SELECT 901, 'content.StandardPage', 900, p.path || '0001', 3, 'Over ons', 'over-ons', 9, 'tk-nl-about', true, now()
       FROM content.pages p WHERE p.id = 900`);
  urls = await check(t, s, 'translation tree added');
  t.equal(urls.get(901), 'http://garden.example.test:8443/nl/over-ons/', 'a page of the new tree has its locale prefix');

  const localeShown = async (): Promise<boolean> => {
    const r = await getJson(s, '/api/v2/pages/?limit=1&fields=*', { host: 'garden.example.test:8443' });
    return r.status === 200 && 'locale' in r.body.items[0].meta;
  };
  t.ok(await localeShown(), 'with i18n a page shows its locale');
  await s.db.query('UPDATE content.settings SET i18n_enabled = false');
  urls = await check(t, s, 'i18n off');
  t.notOk(urls.has(901), 'without i18n the translation trees are not listed');
  t.notOk(await localeShown(), 'without i18n no page shows a locale (content.field_cache)');
  t.equal((await getJson(s, '/api/v2/pages/?locale=en', { host: 'garden.example.test:8443' })).status, 400, 'without i18n locale= is not a filter');
  await s.db.query('UPDATE content.settings SET i18n_enabled = true');
  await check(t, s, 'i18n on again');
  t.ok(await localeShown(), 'with i18n again a page shows its locale');

  // a page type's fields change: its detail, its filters and fields=* follow (content.field_cache)
  const blog = (await s.db.query<{ id: number }>(
    `SELECT id FROM content.pages WHERE type = 'blog.BlogPage' AND live AND NOT in_private AND path LIKE '00010001%' ORDER BY id LIMIT 1`))[0]!.id;
  const host1 = 'garden.example.test:8443';
  t.notOk('subtitle' in (await getJson(s, `/api/v2/pages/${blog}/`, { host: host1 })).body, 'no subtitle field yet');
  t.equal((await getJson(s, '/api/v2/pages/?type=blog.BlogPage&subtitle=x', { host: host1 })).status, 400, 'subtitle= is not a filter yet');
  await s.db.query(`UPDATE content.page_types SET fields = fields || '[{"name": "subtitle", "kind": "text"}]' WHERE type = 'blog.BlogPage'`);
  await s.db.query(`UPDATE content.pages SET fields = fields || '{"subtitle": "A new field"}' WHERE id = $1`, [blog]);
  const withSub = await getJson(s, `/api/v2/pages/${blog}/`, { host: host1 });
  t.equal(withSub.body?.subtitle, 'A new field', 'the detail shows the new field');
  const filtered = await getJson(s, '/api/v2/pages/?type=blog.BlogPage&subtitle=A+new+field', { host: host1 });
  t.equal(filtered.status, 200, 'subtitle= is a filter');
  t.same(filtered.body?.items?.map((i: { id: number }) => i.id), [blog], 'and finds the page');

  // the default site changes, then a site is deleted
  await s.db.query('UPDATE content.sites SET is_default_site = false WHERE id = 1');
  await s.db.query('UPDATE content.sites SET is_default_site = true WHERE id = 2');
  await check(t, s, 'default site changed');
  await s.db.query('DELETE FROM content.sites WHERE id = 1');
  const after = await check(t, s, 'site deleted');
  t.notOk([...after.values()].some((u) => u.includes('garden.example.test')), 'the deleted site is in no html_url');
  const gone = await getJson(s, '/api/v2/pages/900/', { host: 'garden.example.test:8443' });
  t.equal(gone.status, 404, 'a page of the deleted site only is not found');
});
