// http/read-template.ts: which filter values leave the shape key, and when two plans make a template.
import t from 'tap';
import { valuelessSearch } from '../../../src/http/read-template.js';
import { fill, templateOf } from '../../../src/http/statement-template.js';

t.test('the values of verbatim filters leave the key; everything else stays', async (t) => {
  t.equal(valuelessSearch('id=eq.17'), 'id=eq.');
  t.equal(valuelessSearch('select=id,name&id=gte.3&id=lt.9&order=id&limit=5'), 'select=id,name&id=gte.&id=lt.&order=id&limit=5');
  t.equal(valuelessSearch('id=not.eq.4'), 'id=not.eq.');
  t.equal(valuelessSearch('doc=fts(english).cat'), 'doc=fts(english).', 'the text search configuration stays');
  t.equal(valuelessSearch('tags=cs.{a,b}&films.year=gt.1990'), 'tags=cs.&films.year=gt.', 'array operators and embedded filters');
  t.equal(valuelessSearch('data->>a=eq.x'), 'data->>a=eq.', 'a JSON path stays');
  t.equal(valuelessSearch(''), null);
  t.equal(valuelessSearch('select=id&order=id'), null, 'nothing to leave out');
  for (const kept of ['id=in.(1,2)', 'flag=is.null', 'name=like.a*', 'name=ilike.a*', 'id=eq(any).{1,2}', 'or=(id.eq.1,id.eq.2)', 'films.or=(a.eq.1)', 'limit=5', 'films.limit=5', 'select=eq.1', 'sel%65ct=eq.1', 'a+b=eq.1', 'id=eq%2E1']) {
    t.equal(valuelessSearch(kept), null, kept);
  }
});

t.test('a template is made only when the parameters differ exactly where the values went', async (t) => {
  const a = { text: 'SELECT $1, $2, $3', values: ['x', '17', 5] };
  const b = { text: 'SELECT $1, $2, $3', values: ['x', 'S0', 5] };
  const used = new Set<number>();
  const tpl = templateOf(a, b, ['17'], ['S0'], 'n', used);
  t.ok(tpl);
  t.same([...used], [0]);
  t.same(fill(tpl!, ['90210']), { text: 'SELECT $1, $2, $3', values: ['x', '90210', 5], name: 'n' });
  t.same(a.values, ['x', '17', 5], 'the first statement is left as it was');

  t.equal(templateOf(a, { ...b, text: 'SELECT $1, $2' }, ['17'], ['S0'], 'n', new Set()), null, 'another text');
  t.equal(templateOf({ text: 'q', values: ['17%'] }, { text: 'q', values: ['S0%'] }, ['17'], ['S0'], 'n', new Set()), null, 'a transformed value');
  t.equal(templateOf({ text: 'q', values: ['17', 'x'] }, { text: 'q', values: ['S0', 'y'] }, ['17'], ['S0'], 'n', new Set()), null, 'another parameter differs too');
  t.ok(templateOf({ text: 'q', values: [['a'], '1'] }, { text: 'q', values: [['a'], 'S0'] }, ['1'], ['S0'], 'n', new Set()), 'equal arrays built anew');
  const twice = new Set<number>();
  const two = templateOf({ text: 'q', values: ['1', '1', '2'] }, { text: 'q', values: ['S0', 'S1', 'S2'] }, ['1', '1', '2'], ['S0', 'S1', 'S2'], 'n', twice);
  t.same(fill(two!, ['7', '8', '9']).values, ['7', '8', '9'], 'equal values of two filters keep their own places');
  t.equal(twice.size, 3);
});
