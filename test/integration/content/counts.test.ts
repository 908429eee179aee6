// Content API, spec §6.1 total_count: listings filtered only by site, type and descendant_of take their
// total from per-subtree counters (content.subtree_counts, kept by statement triggers) plus the pages
// with an expiry date. After every kind of write — inserts, drafts, private subtrees, moves, type
// changes, expiry dates, deletes, a truncating regeneration — each total must equal a count of the
// visible matches made straight from the tables (§3.4 visibility: live, no private ancestor, not
// expired, in one of the site's trees).
import path from 'node:path';
import t from 'tap';
import type { TestServer } from '../../helpers/server.js';
import { CONTENT_DIR, startContentServer, getJson } from './content-server.js';

/** The visible pages of a site (by id), straight from the tables: the count a listing must report. */
const VISIBLE = `
  SELECT p.* FROM content.pages p
   WHERE p.live AND (p.expire_at IS NULL OR p.expire_at > now())
     AND NOT EXISTS (SELECT 1 FROM content.pages a WHERE a.private AND p.path LIKE a.path || '%')
     AND EXISTS (SELECT 1 FROM content.site_trees st WHERE st.site_id = $1 AND p.path LIKE st.path || '%')`;

interface Case {
  readonly query: string;
  readonly site: number;
  readonly types?: string[];
  /** descendants of this page (itself excluded) */
  readonly under?: number;
}

async function expected(s: TestServer, c: Case): Promise<number> {
  const rows = await s.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM (${VISIBLE}) v
      WHERE ($2::text[] IS NULL OR v.type = ANY ($2))
        AND ($3::integer IS NULL OR (v.id <> $3 AND v.path LIKE (SELECT path FROM content.pages WHERE id = $3) || '%'))`,
    [c.site, c.types ?? null, c.under ?? null],
  );
  return Number(rows[0]!.n);
}

t.test('content API: totals stay exact through every kind of write', async (t) => {
  const s = await startContentServer(t, [path.join(CONTENT_DIR, 'tools', 'generate.sql'), 'SELECT content.generate(1500)']);
  // A visible page of site A with a large subtree, and one of site B.
  const pick = async (site: number) =>
    (await s.db.query<{ id: number }>(
      `SELECT v.id FROM (${VISIBLE}) v WHERE v.depth = 4 ORDER BY (SELECT count(*) FROM content.pages c WHERE c.path LIKE v.path || '%') DESC, v.id LIMIT 1`,
      [site],
    ))[0]!.id;
  const a = await pick(1);
  const b = await pick(2);
  const cases: Case[] = [
    { query: '?limit=1', site: 1 },
    { query: '?type=blog.BlogPage&limit=1', site: 1, types: ['blog.BlogPage'] },
    { query: '?type=blog.BlogPage,content.StandardPage&limit=2', site: 1, types: ['blog.BlogPage', 'content.StandardPage'] },
    { query: '?type=wagtailcore.Page,blog.BlogPage&limit=1', site: 1 },
    { query: `?descendant_of=${a}&limit=1`, site: 1, under: a },
    { query: `?descendant_of=${a}&type=content.StandardPage&order=-title&limit=1`, site: 1, types: ['content.StandardPage'], under: a },
    { query: '?descendant_of=root&limit=1', site: 1, under: 2 },
    { query: '?site=journal.harbourline.test&limit=1', site: 2 },
    { query: `?site=journal.harbourline.test&descendant_of=${b}&type=blog.BlogPage&limit=1`, site: 2, types: ['blog.BlogPage'], under: b },
    { query: '?site=shop.harbourline.test:8080&offset=3&limit=2', site: 3 },
  ];
  const check = async (step: string) => {
    for (const c of cases) {
      const r = await getJson(s, `/api/v2/pages/${c.query}`);
      t.equal(r.status, 200, `${step}: ${c.query} answers`);
      t.equal(r.body.meta.total_count, await expected(s, c), `${step}: total of ${c.query}`);
    }
    const stray = await s.db.query<{ n: string }>(`SELECT count(*) AS n FROM content.subtree_counts c
        WHERE c.n <> 0 AND NOT EXISTS (SELECT 1 FROM content.pages p WHERE p.path = c.path)`);
    t.equal(Number(stray[0]!.n), 0, `${step}: no counter for a path that is gone`);
  };
  await check('generated');
  // the counters hold something for these subtrees: the totals above did not come from scans alone
  const counted = await s.db.query<{ n: string }>(`SELECT coalesce(sum(n), 0) AS n FROM content.subtree_counts WHERE path = (SELECT path FROM content.pages WHERE id = $1)`, [a]);
  t.ok(Number(counted[0]!.n) > 10, `counters for page ${a}'s subtree (${counted[0]!.n})`);

  // new pages under a: listed for good, drafts, an expired one, one that expires later
  await s.db.query(`
    INSERT INTO content.pages (id, type, parent, path, depth, title, slug, locale_id, translation_key, live, expire_at)
    SELECT 900000 + g, CASE WHEN g % 2 = 0 THEN 'blog.BlogPage' ELSE 'content.StandardPage' END, p.id,
           p.path || 'F' || lpad(to_hex(g), 3, '0'), p.depth + 1, 'New page ' || g, 'new-' || g, p.locale_id, 'tk-new-' || g,
           g % 5 <> 0, CASE WHEN g % 7 = 0 THEN timestamptz '2001-01-01' WHEN g % 11 = 0 THEN timestamptz '2090-01-01' END
      FROM content.pages p, generate_series(1, 40) g WHERE p.id = $1`, [a]);
  await check('inserted');
  // a private page: its whole subtree leaves the listings (in_private, set by a statement trigger)
  await s.db.query(`UPDATE content.pages SET private = true WHERE id = (SELECT id FROM content.pages WHERE parent = $1 AND NOT private ORDER BY id LIMIT 1)`, [a]);
  await check('private subtree');
  // a move: a subtree of site B goes under page a (every descendant's path changes in one statement)
  await s.db.query(`
    WITH m AS (SELECT x.path AS old, (SELECT path FROM content.pages WHERE id = $1) || 'E000' AS new, x.id
                 FROM content.pages x WHERE x.parent = $2 ORDER BY x.id LIMIT 1)
    UPDATE content.pages p SET path = m.new || substr(p.path, length(m.old) + 1),
                               depth = (length(m.new) + length(p.path) - length(m.old)) / 4,
                               parent = CASE WHEN p.id = m.id THEN $1 ELSE p.parent END
      FROM m WHERE p.path LIKE m.old || '%'`, [a, b]);
  await check('moved');
  // type changes, expiry dates set, cleared and in the past, drafts and republished pages
  await s.db.query(`UPDATE content.pages SET type = 'content.StandardPage' WHERE type = 'blog.BlogPage' AND id % 9 = 0`);
  await s.db.query(`UPDATE content.pages SET expire_at = CASE WHEN id % 2 = 0 THEN timestamptz '2002-02-02' ELSE timestamptz '2080-08-08' END WHERE id % 13 = 0 AND depth > 2`);
  await s.db.query(`UPDATE content.pages SET expire_at = NULL WHERE id % 29 = 0 AND depth > 2`);
  await s.db.query(`UPDATE content.pages SET live = NOT live WHERE id % 17 = 0 AND depth > 2`);
  await check('types, expiry and drafts changed');
  // deletes: the leaves under page b's subtree and the new pages
  await s.db.query(`UPDATE content.pages SET alias_of = NULL WHERE alias_of IS NOT NULL`);
  await s.db.query(`DELETE FROM content.pages p WHERE p.id >= 900000 AND NOT EXISTS (SELECT 1 FROM content.pages c WHERE c.parent = p.id)`);
  await s.db.query(`DELETE FROM content.pages p WHERE p.path LIKE (SELECT path FROM content.pages WHERE id = $1) || '_%'
                      AND NOT EXISTS (SELECT 1 FROM content.pages c WHERE c.parent = p.id)`, [b]);
  await check('deleted');
  // a regeneration truncates the pages (the counters with them) and loads a new tree
  await s.db.query('SELECT content.generate(700)');
  const small = (await getJson(s, '/api/v2/pages/?limit=1')).body.meta.total_count;
  t.equal(small, await expected(s, { query: '?limit=1', site: 1 }), 'regenerated: total of site A');
  t.ok(small < 700, `a smaller tree after the regeneration (${small})`);
  const left = await s.db.query<{ n: string }>(`SELECT count(*) AS n FROM content.subtree_counts c
      WHERE c.n <> 0 AND NOT EXISTS (SELECT 1 FROM content.pages p WHERE p.path = c.path)`);
  t.equal(Number(left[0]!.n), 0, 'no counter left for a path that is gone');
});
