// Issue 28, from PostgREST's QuerySpec ("formats, renames and allows manual casting on top"): a
// cast in select applies on top of the column's domain representation, not to the stored value.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('a cast in select is applied to the represented value', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity7.sql')],
    config: { 'db-schemas': 'parity7', 'db-anon-role': 'postgres' },
  });
  const shown = await s.request('/labels?select=id,clr:colour&order=id');
  t.equal(shown.status, 200);
  t.same(shown.json(), [{ id: 1, clr: '#000000' }, { id: 2, clr: '#000100' }, { id: 3, clr: '#01E240' }], 'the representation');

  const cast = await s.request('/labels?select=id,clr:colour::text&order=id');
  t.equal(cast.status, 200);
  // The text of the JSON string, quotes included, as PostgREST answers.
  t.same(cast.json(), [{ id: 1, clr: '"#000000"' }, { id: 2, clr: '"#000100"' }, { id: 3, clr: '"#01E240"' }], 'cast on top');

  const unaliased = await s.request('/labels?select=colour::text&id=eq.3');
  t.same(unaliased.json(), [{ colour: '"#01E240"' }], 'without an alias');
});
