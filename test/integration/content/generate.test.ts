// Content API generator (examples/content/tools/generate.sql): a small N fills every table with a deep
// tree over several sites, locales and types, and the API serves it (tree filters, search, type, find).
import path from 'node:path';
import t from 'tap';
import { CONTENT_DIR, startContentServer, getJson } from './content-server.js';

t.test('content API generator', async (t) => {
  const s = await startContentServer(t, [path.join(CONTENT_DIR, 'tools', 'generate.sql'), 'SELECT content.generate(3000)']);
  const stats = (await s.db.query<{ pages: string; depth: number; sites: string; locales: string; types: string; images: string; documents: string; private: string; drafts: string }>(
    `SELECT (SELECT count(*) FROM content.pages) AS pages, (SELECT max(depth) FROM content.pages) AS depth,
            (SELECT count(*) FROM content.sites) AS sites, (SELECT count(DISTINCT locale_id) FROM content.pages) AS locales,
            (SELECT count(DISTINCT type) FROM content.pages) AS types, (SELECT count(*) FROM content.images) AS images,
            (SELECT count(*) FROM content.documents) AS documents, (SELECT count(*) FROM content.pages WHERE in_private) AS private,
            (SELECT count(*) FROM content.pages WHERE NOT live) AS drafts`))[0]!;
  t.equal(Number(stats.pages), 3000);
  t.ok(stats.depth >= 8, `a deep tree (depth ${stats.depth})`);
  t.equal(Number(stats.sites), 4);
  t.equal(Number(stats.locales), 3);
  t.equal(Number(stats.types), 5);
  t.equal(Number(stats.images), 150);
  t.equal(Number(stats.documents), 60);
  t.ok(Number(stats.private) > 0 && Number(stats.drafts) > 0, 'some private subtrees and drafts');

  const all = await getJson(s, '/api/v2/pages/?fields=_,id');
  t.equal(all.status, 200);
  t.ok(all.body.meta.total_count > 500, `site A has many pages (${all.body.meta.total_count})`);
  const b = await getJson(s, '/api/v2/pages/?site=journal.harbourline.test&limit=1');
  t.ok(b.body.meta.total_count > 100);
  const fr = await getJson(s, '/api/v2/pages/?locale=fr&limit=1');
  t.ok(fr.body.meta.total_count > 50, 'a French tree in site A');
  const desc = await getJson(s, '/api/v2/pages/?descendant_of=root&order=-title&limit=20');
  t.equal(desc.status, 200);
  t.equal(desc.body.items.length, 20);
  const search = await getJson(s, '/api/v2/pages/?search=roses%20weather&limit=20');
  t.equal(search.status, 200);
  t.ok(search.body.meta.total_count > 0, 'two-word search finds pages');
  const typed = await getJson(s, '/api/v2/pages/?type=blog.BlogPage&fields=*&limit=20');
  t.equal(typed.body.items.length, 20);
  const id = typed.body.items[5].id;
  const detail = await getJson(s, `/api/v2/pages/${id}/`);
  t.equal(detail.status, 200);
  const found = await s.request(`/api/v2/pages/find/?html_path=${encodeURIComponent(new URL(detail.body.meta.html_url).pathname)}`);
  t.equal(found.status, 302, 'html_url round-trips through find');
  t.equal(found.headers['location'], `http://api.lumenfield.test/api/v2/pages/${id}/`);
  t.equal((await getJson(s, '/api/v2/images/?limit=20')).body.items.length, 20);
  t.equal((await getJson(s, '/api/v2/documents/?search=report&limit=1')).status, 200);
});
