// Content API, spec §6.9 beyond Latin script: a word is a run of letters and digits of any script,
// lowercased and unaccented, whatever the database's locale (the test cluster's is C, where
// `[[:alnum:]]` and lower() know ASCII only and Cyrillic, Greek or CJK words used to be no words).
import t from 'tap';
import { startContentServer, getJson, ids } from './content-server.js';

// Two visible pages of site A get non-Latin texts (the search words are kept by the trigger).
const TEXTS = `
UPDATE content.pages SET title = 'Москва-река и Αθήνα' WHERE id = 9;
UPDATE content.pages SET seo_title = 'ЁЛКА 東京タワー Łódź', search_description = 'ΕΛΛΆΔΑ 서울' WHERE id = 11;
`;

t.test('content API: search in any script', async (t) => {
  const s = await startContentServer(t, [TEXTS]);
  const list = (q: string) => ids(s, `/api/v2/pages/?search=${encodeURIComponent(q)}`);
  t.same(await list('москва'), [9]);
  t.same(await list('МОСКВА'), [9], 'Cyrillic capitals are lowercased');
  t.same(await list('река'), [9], 'a hyphen ends a word');
  t.same(await list('москва-река'), [9], 'a query splits the same way');
  t.same(await list('αθηνα'), [9], 'Greek, accents stripped from the text');
  t.same(await list('ΑΘΉΝΑ'), [9], 'Greek capitals with an accent');
  t.same(await list('ёлка'), [11], 'ё is е unaccented, seo_title is searched');
  t.same(await list('елка'), [11]);
  t.same(await list('東京タワー'), [11], 'a run of CJK letters is one word');
  t.same(await list('東京'), [], 'no prefixes');
  t.same(await list('lodz'), [11]);
  t.same(await list('ŁÓDŹ'), [11]);
  t.same(await list('ελλαδα 서울'), [11], 'search_description is searched; and');
  t.same(await list('москва ёлка'), [], 'and: no page has both');
  t.same(await ids(s, `/api/v2/pages/?search=${encodeURIComponent('москва ёлка')}&search_operator=or`), [9, 11], 'or, tree order');
  const r = await getJson(s, `/api/v2/pages/?search=${encodeURIComponent('МОСКВА')}&fields=_,id,title`);
  t.equal(r.status, 200);
  t.strictSame(r.body, { meta: { total_count: 1 }, items: [{ id: 9, title: 'Москва-река и Αθήνα' }] });
});
