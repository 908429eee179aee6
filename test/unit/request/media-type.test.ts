import t from 'tap';

import { mediaTypeToString, parseAccept, parseContentType } from '../../../src/request/media-type.js';

const mr = (type: string, subtype: string, q = 1, params: Record<string, string> = {}) => ({ type, subtype, params, q });

t.test('missing or empty Accept means */*', async (t) => {
  t.strictSame(parseAccept(undefined), [mr('*', '*')]);
  t.strictSame(parseAccept(''), [mr('*', '*')]);
  t.strictSame(parseAccept('   '), [mr('*', '*')]);
});

t.test('ordered by q, then position', async (t) => {
  t.strictSame(parseAccept('application/json'), [mr('application', 'json')]);
  t.strictSame(parseAccept('text/csv;q=0.5, application/json, */*;q=0.1'), [mr('application', 'json'), mr('text', 'csv', 0.5), mr('*', '*', 0.1)]);
  t.strictSame(parseAccept('a/b, c/d, e/f;q=1'), [mr('a', 'b'), mr('c', 'd'), mr('e', 'f')], 'stable for equal weights');
  t.strictSame(parseAccept('a/b;q=0.3,c/d;q=.7,e/f;q=1.000'), [mr('e', 'f'), mr('c', 'd', 0.7), mr('a', 'b', 0.3)]);
});

t.test('q=0 refuses; parameters and case', async (t) => {
  t.strictSame(parseAccept('application/json;q=0, text/csv'), [mr('text', 'csv')]);
  t.strictSame(parseAccept('application/json;q=0'), []);
  t.strictSame(parseAccept('Application/VND.PGRST.OBJECT+JSON; NULLS=stripped'), [mr('application', 'vnd.pgrst.object+json', 1, { nulls: 'stripped' })]);
  t.strictSame(parseAccept('application/vnd.pgrst.plan+json; for="application/json"; options=analyze|verbose'),
    [mr('application', 'vnd.pgrst.plan+json', 1, { for: 'application/json', options: 'analyze|verbose' })]);
  t.strictSame(parseAccept('text/html;level=1;q=0.5'), [mr('text', 'html', 0.5, { level: '1' })]);
  t.strictSame(parseAccept('a/b;x="1,2", c/d'), [mr('a', 'b', 1, { x: '1,2' }), mr('c', 'd')], 'commas inside quotes');
  t.strictSame(parseAccept('a/b;__proto__=x;constructor=y'), [mr('a', 'b', 1, { ['__proto__']: 'x', constructor: 'y' })]);
  t.strictSame(parseAccept('text/*'), [mr('text', '*')]);
  t.strictSame(parseAccept('*; q=.2'), [mr('*', '*', 0.2)], 'old Java clients');
  t.strictSame(parseAccept('text/html;'), [mr('text', 'html')]);
});

t.test('junk entries are skipped', async (t) => {
  t.strictSame(parseAccept('garbage, application/json'), [mr('application', 'json')]);
  t.strictSame(parseAccept('*/json, text/csv'), [mr('text', 'csv')]);
  t.strictSame(parseAccept('a/b;q=2, a/c;q=x, a/d;q=-1, a/e;q=0.5.1, text/csv'), [mr('text', 'csv')]);
  t.strictSame(parseAccept('a/b;x, a/c;="v", a/d;x="unterminated, text/csv'), [], 'an unterminated quote swallows the rest');
  t.strictSame(parseAccept('a/b c, ,,, /x, x/, text/csv'), [mr('text', 'csv')]);
  t.strictSame(parseAccept('garbage'), []);
});

t.test('Content-Type', async (t) => {
  t.strictSame(parseContentType('application/json'), { type: 'application', subtype: 'json', params: {} });
  t.strictSame(parseContentType('Application/JSON; Charset=UTF-8'), { type: 'application', subtype: 'json', params: { charset: 'UTF-8' } });
  t.strictSame(parseContentType('text/csv;header="present"'), { type: 'text', subtype: 'csv', params: { header: 'present' } });
  t.equal(parseContentType(undefined), null);
  t.equal(parseContentType(''), null);
  t.equal(parseContentType('json'), null);
  t.equal(parseContentType('*/*'), null);
  t.equal(parseContentType('text/*'), null);
  t.equal(parseContentType('a/b, c/d'), null);
  t.equal(parseContentType('a/b;x'), null);
});

t.test('mediaTypeToString', async (t) => {
  t.equal(mediaTypeToString({ type: 'application', subtype: 'json', params: {} }), 'application/json');
  t.equal(mediaTypeToString({ type: 'application', subtype: 'json', params: { charset: 'utf-8' } }), 'application/json; charset=utf-8');
  t.equal(mediaTypeToString(mr('text', 'csv', 0.5, { header: 'a b', x: 'q"\\' })), 'text/csv; header="a b"; x="q\\"\\\\"');
  t.equal(mediaTypeToString({ type: 'a', subtype: 'b', params: { e: '' } }), 'a/b; e=""');
  const round = parseContentType(mediaTypeToString({ type: 'a', subtype: 'b', params: { k: 'v w', z: '1' } }));
  t.strictSame(round, { type: 'a', subtype: 'b', params: { k: 'v w', z: '1' } });
});
