// Content API, spec §6.9: the search words of existing rows follow what makes them. (1) A page type's
// text fields feed its pages' words: changing them recomputes those pages. (2) Reloading the example's
// SQL (re-running its files on a database that has data, as an upgrade of the example does) with other
// word definitions recomputes every row; an unchanged reload rewrites none.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { CONTENT_SQL, startContentServer, ids } from './content-server.js';

const SCHEMA_SQL = CONTENT_SQL.find((f) => f.endsWith('10-schema.sql'))!;
// The words as an older definition made them: lowercased, accents kept (no unaccent).
const UNACCENT = "%2$s.unaccent(%3$L::regdictionary, coalesce(t, ''))";

t.test('content API: search words follow page type fields and reloads', async (t) => {
  const s = await startContentServer(t);
  const search = (q: string) => ids(s, `/api/v2/pages/?search=${encodeURIComponent(q)}&fields=_,id`);

  // (1) page 8 holds a value under a key its type does not export yet
  await s.db.query(`UPDATE content.pages SET fields = fields || '{"subtitle": "Zanzibar cloves"}' WHERE id = 8`);
  t.same(await search('zanzibar'), [], 'a value outside the type\'s text fields is not searched');
  await s.db.query(`UPDATE content.page_types SET fields = fields || '[{"name": "subtitle", "kind": "text"}]' WHERE type = 'blog.BlogPage'`);
  t.same(await search('zanzibar cloves'), [8], 'the type exports it as text: the page is found');
  await s.db.query(`UPDATE content.page_types SET fields = fields - (jsonb_array_length(fields) - 1) WHERE type = 'blog.BlogPage'`);
  t.same(await search('zanzibar'), [], 'the field removed again: not found');
  t.same(await search('seed saving'), [9], 'other pages of the type keep their words');

  // (2) a reload with a definition that keeps accents (what an older example made)
  t.same(await search('etait'), [21], 'était: unaccented words');
  const schema = readFileSync(SCHEMA_SQL, 'utf8');
  t.ok(schema.includes(UNACCENT), 'the schema file unaccents as this test expects');
  await s.db.query(schema.replace(UNACCENT, "coalesce(t, '')"));
  t.same(await search('etait'), [], 'reloaded with accents kept: the stored words changed');
  t.same(await search('était'), [21]);
  // the current files again: every row's words are recomputed with unaccent
  for (const f of CONTENT_SQL) await s.db.query(readFileSync(f, 'utf8'));
  t.same(await search('etait'), [21], 'reloaded with the current definition: unaccented again');
  t.same(await search('ÉTAIT'), [21]);
  t.same(await search('pruning roses'), [18, 7], 'other pages found as before');

  // an unchanged reload writes no page (page 1 is touched by the url_path upkeep at the file's end)
  const before = await s.db.query<{ id: number; x: string }>(`SELECT id, xmin::text AS x FROM content.pages WHERE id > 1 ORDER BY id`);
  for (const f of CONTENT_SQL) await s.db.query(readFileSync(f, 'utf8'));
  const after = await s.db.query<{ id: number; x: string }>(`SELECT id, xmin::text AS x FROM content.pages WHERE id > 1 ORDER BY id`);
  t.same(after, before, 'no row rewritten by a reload that changes nothing');
});
