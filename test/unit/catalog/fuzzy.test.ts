// The fuzzy match behind DBRST200/202/205 hints gives PostgREST's answers: the cases of its
// Error.hs doctests and ErrorSpec's 75% table-name threshold.
import t from 'tap';

import { fuzzyGet, fuzzyGetOne } from '../../../src/catalog/fuzzy.js';

t.test('function names (noRpcHint, min 0.75)', async (t) => {
  const procs = ['test', 'another'];
  t.equal(fuzzyGetOne('testt', procs, 0.75), 'test');
  t.equal(fuzzyGetOne('noclosealternative', procs, 0.75), null);
});

t.test('parameter lists (noRpcHint, min 0.33)', async (t) => {
  const lists = ['(name, param, val)', '(attr, id)'];
  t.equal(fuzzyGetOne('(nam, pqaram, vall)', lists), '(name, param, val)');
  t.equal(fuzzyGetOne('(param, val)', lists), '(name, param, val)');
  t.equal(fuzzyGetOne('(attrs, id)', lists), '(attr, id)');
  t.equal(fuzzyGetOne('(id)', lists), '(attr, id)');
  t.equal(fuzzyGetOne('(noclosealternative)', lists), null);
});

t.test('relationship parents and children (noRelBetweenHint)', async (t) => {
  t.equal(fuzzyGetOne('film', ['films']), 'films');
  t.equal(fuzzyGetOne('role', ['directors', 'roles', 'actors']), 'roles');
  t.same(fuzzyGet('actors', ['directors', 'roles', 'actors']), [{ score: 1, value: 'actors' }], 'a child that is there scores 1');
  t.equal(fuzzyGetOne('noclosealternative', ['directors', 'roles', 'actors']), null);
});

t.test('table names (ErrorSpec: at least 75% similar)', async (t) => {
  const tables = ['projects', 'clients', 'items'];
  t.equal(fuzzyGetOne('projectx', tables, 0.75), 'projects');
  t.equal(fuzzyGetOne('projecxx', tables, 0.75), 'projects');
  t.equal(fuzzyGetOne('projxxxx', tables, 0.75), null);
  t.equal(fuzzyGetOne('PROJECTS', tables, 0.75), 'projects', 'case-insensitive exact match');
});

t.test('a candidate sharing no n-gram is not suggested, however close by edit distance', async (t) => {
  // Levenshtein similarity 1/3 (above 0.33), but not one bigram or trigram of -abc- is in -xbz-.
  t.equal(fuzzyGetOne('abc', ['xbz']), null);
});
