// Content API, spec §6.9 search with §6.1 total_count: a one-word search of a whole site takes its total
// from content.search_counts (per word, level-1/2 subtree and expiry, kept by statement triggers) and
// its page from ORDER BY path … LIMIT. After every kind of write — inserts, edited titles, drafts,
// private subtrees, moves, expiry dates, a page type's text fields, deletes, a truncating regeneration —
// each search must give the total and the page of ids a query straight from the tables gives (the
// visible pages whose words match, §3.4 visibility, in path order), for the counted shape and for the
// shapes that still count their matches (several words, a type, a locale, a subtree).
import path from 'node:path';
import t from 'tap';
import type { TestServer } from '../../helpers/server.js';
import { CONTENT_DIR, startContentServer, getJson } from './content-server.js';

/** The visible pages of a site, straight from the tables (as counts.test.ts). */
const VISIBLE = `
  SELECT p.* FROM content.pages p
   WHERE p.live AND (p.expire_at IS NULL OR p.expire_at > now())
     AND NOT EXISTS (SELECT 1 FROM content.pages a WHERE a.private AND p.path LIKE a.path || '%')
     AND EXISTS (SELECT 1 FROM content.site_trees st WHERE st.site_id = $1 AND p.path LIKE st.path || '%')`;

interface Case {
  readonly query: string;
  readonly site: number;
  /** the search as a tsquery over the page's words */
  readonly tsquery: string;
  readonly types?: string[];
  readonly locale?: string;
  /** descendants of this page (itself excluded) */
  readonly under?: number;
  readonly limit: number;
  readonly offset?: number;
}

/** The total and the page of ids the listing must answer, computed from the tables. */
async function expected(s: TestServer, c: Case): Promise<{ total: number; ids: number[] }> {
  const rows = await s.db.query<{ id: number; total: string }>(
    `SELECT v.id, count(*) OVER () AS total FROM (${VISIBLE}) v
      WHERE content.page_search_words(v.title, v.seo_title, v.search_description, v.fields, v.type) @@ $2::tsquery
        AND ($3::text[] IS NULL OR v.type = ANY ($3))
        AND ($4::text IS NULL OR v.locale_id = (SELECT id FROM content.locales WHERE language_code = $4))
        AND ($5::integer IS NULL OR (v.id <> $5 AND v.path LIKE (SELECT path FROM content.pages WHERE id = $5) || '%'))
      ORDER BY v.path COLLATE "C"`,
    [c.site, c.tsquery, c.types ?? null, c.locale ?? null, c.under ?? null],
  );
  const off = c.offset ?? 0;
  return { total: rows.length === 0 ? 0 : Number(rows[0]!.total), ids: rows.slice(off, off + c.limit).map((r) => r.id) };
}

t.test('content API: search totals and pages stay exact through every kind of write', async (t) => {
  const s = await startContentServer(t, [path.join(CONTENT_DIR, 'tools', 'generate.sql'), 'SELECT content.generate(1500)']);
  // the commonest word of site A's visible pages, a word in a few of them, and a second common word
  const words = (await s.db.query<{ w: string; n: string }>(
    `SELECT w, count(*) AS n FROM (${VISIBLE}) v, unnest(tsvector_to_array(v.search_words)) w
      WHERE w ~ '^[a-z]+$' GROUP BY w ORDER BY count(*) DESC, w`, [1])).map((r) => ({ w: r.w, n: Number(r.n) }));
  const common = words[0]!.w;
  const second = words[1]!.w;
  const rare = words.find((x) => x.n >= 2 && x.n <= 8)!.w;
  t.ok(words[0]!.n > 100, `a common word (${common}: ${words[0]!.n} pages)`);
  const pageA = (await s.db.query<{ id: number }>(
    `SELECT v.id FROM (${VISIBLE}) v WHERE v.depth = 3 ORDER BY (SELECT count(*) FROM content.pages c WHERE c.path LIKE v.path || '%') DESC, v.id LIMIT 1`, [1]))[0]!.id;
  const q = (w: string) => `'${w}'`;
  const cases: Case[] = [
    // the counted shape: one word, whole sites
    { query: `?search=${common}&limit=20`, site: 1, tsquery: q(common), limit: 20 },
    { query: `?search=${common.toUpperCase()}%20${common}&search_operator=or&offset=7&limit=5`, site: 1, tsquery: q(common), limit: 5, offset: 7 },
    { query: `?search=${common}&type=wagtailcore.Page&limit=1`, site: 1, tsquery: q(common), limit: 1 },
    { query: `?search=${common}&site=journal.harbourline.test&limit=3`, site: 2, tsquery: q(common), limit: 3 },
    { query: `?search=${rare}&limit=20`, site: 1, tsquery: q(rare), limit: 20 },
    { query: `?search=${rare}&limit=1`, site: 1, tsquery: q(rare), limit: 1 },
    // counted by scanning the matches
    { query: `?search=${common}%20${second}&limit=4`, site: 1, tsquery: `${q(common)} & ${q(second)}`, limit: 4 },
    { query: `?search=${common}%20${rare}&search_operator=or&limit=4`, site: 1, tsquery: `${q(common)} | ${q(rare)}`, limit: 4 },
    { query: `?search=${common}&type=blog.BlogPage&limit=2`, site: 1, tsquery: q(common), types: ['blog.BlogPage'], limit: 2 },
    { query: `?search=${common}&locale=fr&limit=2`, site: 1, tsquery: q(common), locale: 'fr', limit: 2 },
    { query: `?search=${common}&descendant_of=${pageA}&limit=2`, site: 1, tsquery: q(common), under: pageA, limit: 2 },
  ];
  const check = async (step: string) => {
    for (const c of cases) {
      const r = await getJson(s, `/api/v2/pages/${c.query}`);
      t.equal(r.status, 200, `${step}: ${c.query} answers`);
      const want = await expected(s, c);
      t.equal(r.body.meta.total_count, want.total, `${step}: total of ${c.query}`);
      t.same(r.body.items.map((i: { id: number }) => i.id), want.ids, `${step}: page of ${c.query}`);
    }
  };
  await check('generated');

  // the total of the counted shape comes from the counters: skew one and it shows
  const root = (await s.db.query<{ path: string }>('SELECT path FROM content.pages WHERE id = 2'))[0]!.path;
  await s.db.query(`UPDATE content.search_counts SET n = n + 1000 WHERE word = $1 AND path = $2 AND expire_at = 'infinity'`, [common, root]);
  const skewed = (await getJson(s, `/api/v2/pages/?search=${common}&limit=20`)).body.meta.total_count;
  t.equal(skewed, (await expected(s, cases[0]!)).total + 1000, 'the one-word total is read from content.search_counts');
  await s.db.query(`UPDATE content.search_counts SET n = n - 1000 WHERE word = $1 AND path = $2 AND expire_at = 'infinity'`, [common, root]);

  // new pages under pageA, with the common word or not: live, drafts, expired, expiring later
  await s.db.query(`
    INSERT INTO content.pages (id, type, parent, path, depth, title, slug, locale_id, translation_key, live, expire_at)
    SELECT 900000 + g, CASE WHEN g % 2 = 0 THEN 'blog.BlogPage' ELSE 'content.StandardPage' END, p.id,
           p.path || 'F' || lpad(to_hex(g), 3, '0'), p.depth + 1,
           CASE WHEN g % 3 = 0 THEN 'Zzyzx ' || g ELSE initcap($2) || ' page ' || g END, 'new-' || g, p.locale_id, 'tk-new-' || g,
           g % 5 <> 0, CASE WHEN g % 7 = 0 THEN timestamptz '2001-01-01' WHEN g % 11 = 0 THEN timestamptz '2090-01-01' END
      FROM content.pages p, generate_series(1, 40) g WHERE p.id = $1`, [pageA, common]);
  await check('inserted');
  // edited texts: the common word taken out of some titles, put into others
  await s.db.query(`UPDATE content.pages SET title = 'Qwerty', seo_title = '', search_description = '' WHERE id % 10 = 3 AND depth > 2`);
  await s.db.query(`UPDATE content.pages SET title = title || ' ' || $1 WHERE id % 10 = 4 AND depth > 2`, [common]);
  await check('edited');
  // unpublished and republished pages, a private subtree
  await s.db.query(`UPDATE content.pages SET live = NOT live WHERE id % 17 = 0 AND depth > 2`);
  await s.db.query(`UPDATE content.pages SET private = true WHERE id = (SELECT id FROM content.pages WHERE parent = $1 AND NOT private ORDER BY id LIMIT 1)`, [pageA]);
  await check('unpublished and private');
  // expiry dates set in the past and the future, and cleared
  await s.db.query(`UPDATE content.pages SET expire_at = CASE WHEN id % 2 = 0 THEN timestamptz '2002-02-02' ELSE timestamptz '2080-08-08' END WHERE id % 13 = 0 AND depth > 2`);
  await s.db.query(`UPDATE content.pages SET expire_at = NULL WHERE id % 29 = 0 AND depth > 2`);
  await check('expiry changed');
  // a move: a subtree of site B goes under pageA (site A)
  await s.db.query(`
    WITH m AS (SELECT x.path AS old, (SELECT path FROM content.pages WHERE id = $1) || 'E000' AS new, x.id
                 FROM content.pages x WHERE x.parent = 5 ORDER BY x.id LIMIT 1)
    UPDATE content.pages p SET path = m.new || substr(p.path, length(m.old) + 1),
                               depth = (length(m.new) + length(p.path) - length(m.old)) / 4,
                               parent = CASE WHEN p.id = m.id THEN $1 ELSE p.parent END
      FROM m WHERE p.path LIKE m.old || '%'`, [pageA]);
  await check('moved');
  // a page type's text fields change: its pages' words are recomputed by a trigger
  await s.db.query(`UPDATE content.page_types SET fields = '[]' WHERE type = (SELECT type FROM content.page_types WHERE fields::text LIKE '%"text"%' ORDER BY type LIMIT 1)`);
  await check('page type fields changed');
  // deletes
  await s.db.query(`UPDATE content.pages SET alias_of = NULL WHERE alias_of IS NOT NULL`);
  await s.db.query(`DELETE FROM content.pages p WHERE (p.id >= 900000 OR p.id % 4 = 1) AND p.depth > 2
                      AND NOT EXISTS (SELECT 1 FROM content.pages c WHERE c.parent = p.id)`);
  await check('deleted');
  // a regeneration truncates the pages (the counters with them) and loads a new tree
  await s.db.query('SELECT content.generate(700)');
  await check('regenerated');
  const stray = await s.db.query<{ n: string }>(`SELECT count(*) AS n FROM content.search_counts c
      WHERE c.n <> 0 AND NOT EXISTS (SELECT 1 FROM content.pages p WHERE p.path = c.path)`);
  t.equal(Number(stray[0]!.n), 0, 'no counter left for a path that is gone');
});
