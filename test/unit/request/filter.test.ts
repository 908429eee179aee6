import t from 'tap';

import { parseBraceList, parseFilter, parseTreePath, quickOperation, readOpExpr, readRestValue } from '../../../src/request/grammar/filter.js';
import { runParser } from '../../../src/request/grammar/scanner.js';
import type { Operation } from '../../../src/request/types.js';

const op = (value: string): Operation | string => {
  const r = parseFilter('col', value);
  return r.ok ? r.value.filter.operation : `${r.error.message} | ${r.error.details}`;
};
const simple = (o: string, value: string): Operation => ({ kind: 'simple', op: o as never, value, quantifier: null });

t.test('every simple operator keeps its value verbatim', async (t) => {
  for (const o of ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj', 'isdistinct']) {
    t.strictSame(op(`${o}.5`), simple(o, '5'), o);
    t.strictSame(op(`${o}.`), simple(o, ''), `${o} with an empty value`);
    t.strictSame(op(`${o}.a.b,c)"d"(`), simple(o, 'a.b,c)"d"('), `${o} takes the rest verbatim`);
  }
  t.strictSame(op('like.*a*'), simple('like', '*a*'), 'the planner, not the parser, turns * into %');
  t.strictSame(op('cs.{1,2}'), simple('cs', '{1,2}'));
  t.strictSame(op('ov.[1,5)'), simple('ov', '[1,5)'));
  t.strictSame(op('eq."quoted"'), simple('eq', '"quoted"'), 'quotes are kept outside logic trees');
  t.strictSame(op('eq. spaced '), simple('eq', ' spaced '));
});

t.test('not. negates', async (t) => {
  const r = parseFilter('a', 'not.eq.5');
  t.strictSame(r, { ok: true, value: { path: [], filter: { field: { name: 'a', jsonPath: [] }, negated: true, operation: simple('eq', '5') } } });
  const r2 = parseFilter('a', 'not.in.(1)');
  t.ok(r2.ok && r2.value.filter.negated);
  t.equal(op('not.not.eq.1'), 'failed to parse filter (not.not.eq.1) | unknown operator "not" at position 5, expecting operator (eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, fts, plfts, phfts, wfts, cs, cd, ov, sl, sr, nxr, nxl, adj)');
});

t.test('(any) and (all) modifiers', async (t) => {
  for (const o of ['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch']) {
    t.strictSame(op(`${o}(any).{a*,b*}`), { kind: 'simple', op: o, values: ['a*', 'b*'], quantifier: 'any' }, o);
    t.strictSame(op(`${o}(all).{1}`), { kind: 'simple', op: o, values: ['1'], quantifier: 'all' }, o);
  }
  t.strictSame(op('eq(any).{}'), { kind: 'simple', op: 'eq', values: [], quantifier: 'any' });
  t.strictSame(op('eq(any).{ a , "b,c" ,"d\\"e"}'), { kind: 'simple', op: 'eq', values: ['a', 'b,c', 'd"e'], quantifier: 'any' });
  t.equal(op('eq(any).5'), 'failed to parse filter (eq(any).5) | malformed list "5" at position 9, expecting a list in braces like {a,b}');
  t.equal(op('eq(any).{{1}}'), 'failed to parse filter (eq(any).{{1}}) | malformed list "{{1}}" at position 9, expecting a list in braces like {a,b}');
  t.equal(op('eq(some).{1}'), 'failed to parse filter (eq(some).{1}) | unexpected "s" at position 4, expecting "any" or "all"');
  t.equal(op('eq().x'), 'failed to parse filter (eq().x) | unexpected ")" at position 4, expecting "any" or "all"');
  t.equal(op('neq(any).{1}'), 'failed to parse filter (neq(any).{1}) | unexpected "(" at position 4, expecting "."');
  t.equal(op('cs(all).{1}'), 'failed to parse filter (cs(all).{1}) | unexpected "(" at position 3, expecting "."');
});

t.test('in lists and their quoting', async (t) => {
  const inOp = (values: string[]): Operation => ({ kind: 'in', values });
  t.strictSame(op('in.(1,2,3)'), inOp(['1', '2', '3']));
  t.strictSame(op('in.(1,2,"a,b",  "quoted \\"x\\"")'), inOp(['1', '2', 'a,b', 'quoted "x"']));
  t.strictSame(op('in.("a)b","c\\\\d")'), inOp(['a)b', 'c\\d']));
  t.strictSame(op('in.( a , b )'), inOp(['a', 'b']), 'blanks around unquoted elements are dropped');
  t.strictSame(op('in.(a b)'), inOp(['a b']), 'inner blanks are kept');
  t.strictSame(op('in.(" a ")'), inOp([' a ']), 'quoted blanks are kept');
  t.strictSame(op('in.()'), inOp([]), 'the empty list');
  t.strictSame(op('in.( )'), inOp([]));
  t.strictSame(op('in.("")'), inOp(['']), 'one empty string');
  t.strictSame(op('in.(,)'), inOp(['', '']));
  t.strictSame(op('in.("a"b,c)'), inOp(['"a"b', 'c']), 'a quote followed by text is plain text (PostgREST)');
  t.strictSame(op('in.("abc)'), inOp(['"abc']), 'an unterminated quote is plain text');
  t.strictSame(op('in.(ñ,数据,😀)'), inOp(['ñ', '数据', '😀']));
  t.strictSame(op(' in.(1)'.trimStart()), inOp(['1']));
  t.strictSame(op('in.(1) '), inOp(['1']), 'trailing blanks');
  t.equal(op('in.1,2'), 'failed to parse filter (in.1,2) | unexpected "1" at position 4, expecting "("');
  t.equal(op('in.(1,2'), 'failed to parse filter (in.(1,2) | unexpected end of input at position 8, expecting "," or ")"');
  t.equal(op('in.(1))'), 'failed to parse filter (in.(1))) | unexpected ")" at position 7, expecting end of input');
  t.equal(op('in(any).(1)'), 'failed to parse filter (in(any).(1)) | unexpected "(" at position 3, expecting "."');
});

t.test('is values, case-insensitively', async (t) => {
  for (const v of ['null', 'not_null', 'true', 'false', 'unknown'] as const) {
    t.strictSame(op(`is.${v}`), { kind: 'is', value: v });
    t.strictSame(op(`is.${v.toUpperCase()}`), { kind: 'is', value: v });
  }
  t.strictSame(op('is.NuLl'), { kind: 'is', value: 'null' });
  t.strictSame(op('not.is.null'), { kind: 'is', value: 'null' });
  t.equal(op('is.nullx'), 'failed to parse filter (is.nullx) | unexpected "nullx" at position 4, expecting null, not_null, true, false or unknown');
  t.equal(op('is.'), 'failed to parse filter (is.) | unexpected end of input at position 4, expecting null, not_null, true, false or unknown');
  t.equal(op('is.1'), 'failed to parse filter (is.1) | unexpected "1" at position 4, expecting null, not_null, true, false or unknown');
  t.equal(op('is.null.x'), 'failed to parse filter (is.null.x) | unexpected "." at position 8, expecting end of input');
});

t.test('full-text search operators with and without a language', async (t) => {
  for (const o of ['fts', 'plfts', 'phfts', 'wfts']) {
    t.strictSame(op(`${o}.cat`), { kind: 'fts', op: o, language: null, value: 'cat' });
    t.strictSame(op(`${o}(english).fat & cat`), { kind: 'fts', op: o, language: 'english', value: 'fat & cat' });
    t.strictSame(op(`not.${o}(simple).x`), { kind: 'fts', op: o, language: 'simple', value: 'x' });
  }
  t.equal(op('fts().x'), 'failed to parse filter (fts().x) | unexpected ")" at position 5, expecting text search configuration');
  t.equal(op('fts(english.x'), 'failed to parse filter (fts(english.x) | unexpected "." at position 12, expecting ")"');
  t.equal(op('fts(any).x'.replace('any', 'a-b')), 'failed to parse filter (fts(a-b).x) | unexpected "-" at position 6, expecting ")"');
});

t.test('unknown operators quote the text', async (t) => {
  const all = 'operator (eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, fts, plfts, phfts, wfts, cs, cd, ov, sl, sr, nxr, nxl, adj)';
  t.equal(op('eqq.5'), `failed to parse filter (eqq.5) | unknown operator "eqq" at position 1, expecting ${all}`);
  t.equal(op('noop.0'), `failed to parse filter (noop.0) | unknown operator "noop" at position 1, expecting ${all}`);
  t.equal(op('val'), `failed to parse filter (val) | unknown operator "val" at position 1, expecting ${all}`);
  t.equal(op('5'), `failed to parse filter (5) | unexpected "5" at position 1, expecting "not" or ${all}`);
  t.equal(op(''), `failed to parse filter () | unexpected end of input at position 1, expecting "not" or ${all}`);
  t.equal(op('not.'), `failed to parse filter (not.) | unexpected end of input at position 5, expecting ${all}`);
  t.equal(op('EQ.5'), `failed to parse filter (EQ.5) | unexpected "E" at position 1, expecting "not" or ${all}`);
  t.equal(op('eq'), 'failed to parse filter (eq) | unexpected end of input at position 3, expecting "."');
  t.equal(op('eq,5'), 'failed to parse filter (eq,5) | unexpected "," at position 3, expecting "."');
  const r = parseFilter('a', 'eqq.5');
  t.ok(!r.ok && r.error.code === 'DBRST100' && r.error.status === 400);
});

t.test('keys: embed paths and JSON paths', async (t) => {
  t.strictSame(parseTreePath('col'), { ok: true, value: { path: [], field: { name: 'col', jsonPath: [] } } });
  t.strictSame(parseTreePath('rel.col'), { ok: true, value: { path: ['rel'], field: { name: 'col', jsonPath: [] } } });
  t.strictSame(parseTreePath('a.b.col'), { ok: true, value: { path: ['a', 'b'], field: { name: 'col', jsonPath: [] } } });
  t.strictSame(parseTreePath('data->>a'), { ok: true, value: { path: [], field: { name: 'data', jsonPath: [{ op: '->>', key: 'a' }] } } });
  t.strictSame(parseTreePath('rel.data->x->>0'), { ok: true, value: { path: ['rel'], field: { name: 'data', jsonPath: [{ op: '->', key: 'x' }, { op: '->>', key: 0 }] } } });
  t.strictSame(parseTreePath('"a.b".c'), { ok: true, value: { path: ['a.b'], field: { name: 'c', jsonPath: [] } } });
  t.strictSame(parseTreePath('my col'), { ok: true, value: { path: [], field: { name: 'my col', jsonPath: [] } } });
  t.strictSame(parseTreePath('data->"a.b"'), { ok: true, value: { path: [], field: { name: 'data', jsonPath: [{ op: '->', key: 'a.b' }] } } });
  const bad = (key: string, details: string) => {
    const r = parseFilter(key, 'eq.1');
    t.strictSame(r.ok ? null : [r.error.message, r.error.details], [`failed to parse tree path (${key})`, details], key);
  };
  bad('', 'unexpected end of input at position 1, expecting field name');
  bad('a.', 'unexpected end of input at position 3, expecting field name');
  bad('.a', 'unexpected "." at position 1, expecting field name');
  bad('a..b', 'unexpected "." at position 3, expecting field name');
  bad('data->a.b', 'unexpected "." at position 8, expecting end of input');
  bad('a(b)', 'unexpected "(" at position 2, expecting end of input');
  bad('data->', 'unexpected end of input at position 7, expecting JSON key or array index');
  const r = parseFilter('rel.data->>x', 'like.*a*');
  t.strictSame(r, { ok: true, value: { path: ['rel'], filter: { field: { name: 'data', jsonPath: [{ op: '->>', key: 'x' }] }, negated: false, operation: simple('like', '*a*') } } });
});

t.test('brace lists follow Postgres array-literal quoting', async (t) => {
  t.strictSame(parseBraceList('{}'), []);
  t.strictSame(parseBraceList('{ }'), []);
  t.strictSame(parseBraceList('{a}'), ['a']);
  t.strictSame(parseBraceList('{a,b}'), ['a', 'b']);
  t.strictSame(parseBraceList('{"a,b",c}'), ['a,b', 'c']);
  t.strictSame(parseBraceList('{"a\\"b"}'), ['a"b']);
  t.strictSame(parseBraceList('{a\\,b}'), ['a,b']);
  t.strictSame(parseBraceList('{,}'), ['', '']);
  t.equal(parseBraceList('a,b'), null);
  t.equal(parseBraceList('{a'), null);
  t.equal(parseBraceList('{"a}'), null);
  t.equal(parseBraceList('{"a"b}'), null);
  t.equal(parseBraceList('{{a}}'), null);
  t.equal(parseBraceList('{'), null);
});

t.test('the quick path for eq/neq/gt/gte/lt/lte gives what the scanner gives, and declines everything else', async (t) => {
  // The operator grammar's own reading of a whole value (parseFilter's, without the quick path).
  const scanned = (value: string) =>
    runParser(value, 'x', (s) => {
      const e = readOpExpr(s, readRestValue);
      s.skipWs();
      s.expectEnd();
      return e;
    });
  const pieces = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'not', 'in', 'is', 'like', 'fts', 'cs', 'eqq', 'e', 'q', 'Eq', 'GT', '.', '..', '(any)', '(all)', '(', ')', ' ', '5', 'a.b', 'é', '{1,2}', 'null', ''];
  let quick = 0;
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16;
  const values = new Set<string>(['eq.5', 'neq.', 'gte.a.b', 'lt. x ', 'not.eq.5', 'eq(any).{1}', 'eq', 'eq.', 'in.(1)', 'is.null', 'eqq.1', '.eq.1', 'gt.é']);
  for (let i = 0; i < 20000; i++) {
    // Half of them start as a quick value would, so both sides of the rule are well visited.
    let v = next() % 2 === 0 ? `${pieces[next() % 6]}.` : '';
    const n = 1 + (next() % 4);
    for (let k = 0; k < n; k++) v += pieces[next() % pieces.length];
    values.add(v);
  }
  for (const value of values) {
    const q = quickOperation(value);
    if (q === null) continue;
    quick++;
    const full = scanned(value);
    if (!full.ok || full.value.negated || JSON.stringify(full.value.operation) !== JSON.stringify(q)) {
      t.fail(`quick path differs for ${JSON.stringify(value)}: ${JSON.stringify(q)} vs ${JSON.stringify(full)}`);
      return;
    }
  }
  t.ok(quick > 2000, `${quick} of ${values.size} values took the quick path, each as the scanner reads it (same keys in the same order)`);
  for (const value of ['not.eq.5', 'eq(any).{1}', 'in.(1)', 'is.null', 'eqq.1', 'eq', 'Eq.1', 'like.a*']) t.equal(quickOperation(value), null, `${value}: the scanner's`);
  t.same(op('eq.5'), simple('eq', '5'));
  t.same(parseFilter('a.b->c', 'gte.1').ok && parseFilter('a.b->c', 'gte.1'), parseFilter('a.b->c', 'gte.1'), 'a key seen before gives the same path again');
});
