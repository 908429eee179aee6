import t from 'tap';

import { parseColumns, parseQueryParams } from '../../../src/request/grammar/query.js';
import type { QueryParams } from '../../../src/request/types.js';

const parse = (qs: string, isRpcArg?: (n: string) => boolean) => parseQueryParams(new URLSearchParams(qs), isRpcArg ? { isRpcArg } : {});
const value = (qs: string, isRpcArg?: (n: string) => boolean): QueryParams => {
  const r = parse(qs, isRpcArg);
  if (!r.ok) throw new Error(`${r.error.message}: ${r.error.details}`);
  return r.value;
};
const eq = (name: string, v: string) => ({ kind: 'filter' as const, filter: { field: { name, jsonPath: [] }, negated: false, operation: { kind: 'simple' as const, op: 'eq' as const, value: v, quantifier: null } } });

t.test('no parameters', async (t) => {
  t.strictSame(value(''), { select: null, logic: [], order: [], ranges: [], columns: null, onConflict: null, rpcArgs: [] });
});

t.test('each parameter goes to its grammar', async (t) => {
  const q = value('select=a,b&id=eq.1&a.b.order=x.desc&order=y&limit=5&actors.offset=3&or=(a.eq.1)&columns=a, b&on_conflict=c&x=1', (n) => n === 'x');
  t.equal(q.select?.length, 2);
  t.strictSame(q.logic, [
    { path: [], tree: eq('id', '1') },
    { path: [], tree: { kind: 'or', negated: false, children: [eq('a', '1')] } },
  ]);
  t.strictSame(q.order.map((o) => [o.path, o.terms.map((x) => x.field.name)]), [[['a', 'b'], ['x']], [[], ['y']]]);
  t.strictSame(q.ranges, [{ path: [], offset: 0, limit: 5 }, { path: ['actors'], offset: 3, limit: null }]);
  t.strictSame(q.columns, ['a', 'b']);
  t.strictSame(q.onConflict, ['c']);
  t.strictSame(q.rpcArgs, [['x', '1']]);
});

t.test('filters: repeats kept in order, embed paths, logic keys with paths', async (t) => {
  const q = value('a=gt.1&a=lt.5&actors.name=eq.x&actors.or=(b.eq.2)&not.and=(c.eq.3)&actors.not.or=(d.eq.4)');
  t.strictSame(q.logic.map((l) => [l.path, l.tree.kind]), [[[], 'filter'], [[], 'filter'], [['actors'], 'filter'], [['actors'], 'or'], [[], 'and'], [['actors'], 'or']]);
  const negs = q.logic.map((l) => (l.tree.kind === 'filter' ? l.tree.filter.negated : l.tree.negated));
  t.strictSame(negs, [false, false, false, false, true, true]);
});

t.test('limit and offset per embed path; the last value wins', async (t) => {
  const q = value('limit=1&offset=2&limit=3&films.limit=4&films.actors.offset=5&films.offset=6');
  t.strictSame(q.ranges, [
    { path: [], offset: 2, limit: 3 },
    { path: ['films'], offset: 6, limit: 4 },
    { path: ['films', 'actors'], offset: 5, limit: null },
  ]);
});

t.test('select, columns, on_conflict: the first occurrence wins', async (t) => {
  const q = value('select=a&select=b&columns=x&columns=y&on_conflict=p&on_conflict=q');
  t.strictSame(q.select, [{ kind: 'field', field: { name: 'a', jsonPath: [] }, alias: null, cast: null, aggregate: null, aggregateCast: null }]);
  t.strictSame(q.columns, ['x']);
  t.strictSame(q.onConflict, ['p']);
  t.strictSame(value('select=').select, []);
});

t.test('reserved words are only reserved where PostgREST reserves them', async (t) => {
  // `a.select` is a filter on column `select` of embed `a`.
  const q = value('a.select=eq.1');
  t.strictSame(q.logic, [{ path: ['a'], tree: eq('select', '1') }]);
  t.equal(q.select, null);
  // RPC arguments never shadow reserved names.
  const r = value('limit=1&select=a&x=2', () => true);
  t.strictSame(r.rpcArgs, [['x', '2']]);
  t.strictSame(r.ranges, [{ path: [], offset: 0, limit: 1 }]);
});

t.test('arrays of pairs are accepted as well as URLSearchParams', async (t) => {
  const r = parseQueryParams([['id', 'eq.1'], ['select', 'id']], {});
  t.ok(r.ok);
  if (r.ok) t.strictSame(r.value.logic, [{ path: [], tree: eq('id', '1') }]);
});

t.test('errors', async (t) => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ['=eq.1', 'failed to parse tree path ()', 'unexpected end of input at position 1, expecting field name'],
    ['id=', 'failed to parse filter ()', 'unexpected end of input at position 1, expecting "not" or operator (eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, fts, plfts, phfts, wfts, cs, cd, ov, sl, sr, nxr, nxl, adj)'],
    ['id=5', 'failed to parse filter (5)', 'unexpected "5" at position 1, expecting "not" or operator (eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, fts, plfts, phfts, wfts, cs, cd, ov, sl, sr, nxr, nxl, adj)'],
    ['select=a,', 'failed to parse select parameter (a,)', 'unexpected end of input at position 3, expecting field name'],
    ['order=a.up', 'failed to parse order (a.up)', 'unexpected "up" at position 3, expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['a..order=a', 'failed to parse tree path (a..order)', 'unexpected "." at position 3, expecting field name'],
    ['limit=abc', 'failed to parse limit parameter (abc)', 'limit must be an integer'],
    ['x.offset=1.5', 'failed to parse offset parameter (1.5)', 'offset must be an integer'],
    ['or=a.eq.1', 'failed to parse logic tree (a.eq.1)', 'unexpected "a" at position 1, expecting "("'],
    ['columns=', 'failed to parse columns parameter ()', 'unexpected end of input at position 1, expecting field name'],
    ['on_conflict=a,,b', 'failed to parse on_conflict parameter (a,,b)', 'unexpected "," at position 3, expecting field name'],
    ['columns=a b)', 'failed to parse columns parameter (a b))', 'unexpected ")" at position 4, expecting "," or end of input'],
  ];
  for (const [qs, message, details] of cases) {
    const r = parse(qs);
    t.strictSame(r.ok ? null : [r.error.code, r.error.message, r.error.details], ['DBRST100', message, details], qs);
  }
});

t.test('columns lists', async (t) => {
  t.strictSame(parseColumns('columns', 'a,b'), { ok: true, value: ['a', 'b'] });
  t.strictSame(parseColumns('columns', ' a , b '), { ok: true, value: ['a', 'b'] });
  t.strictSame(parseColumns('on_conflict', '"x,y",z'), { ok: true, value: ['x,y', 'z'] });
});

t.test('a select= text seen before gives the same items, with other filters beside it; a bad one fails each time', async (t) => {
  const select = 'id,title,tracks(id,name)';
  const a = parseQueryParams([['select', select], ['artist_id', 'eq.1']]);
  const b = parseQueryParams([['artist_id', 'eq.2'], ['select', select]]);
  t.ok(a.ok && b.ok);
  if (!a.ok || !b.ok) return;
  t.same(b.value.select, a.value.select);
  t.equal(b.value.select, a.value.select, 'parsed once: the same items');
  t.same(a.value.logic.map((l) => l.tree), [eq('artist_id', '1')], 'each keeps its own filter');
  t.same(b.value.logic.map((l) => l.tree), [eq('artist_id', '2')]);
  const other = parseQueryParams([['select', 'id,tracks(name)']]);
  t.ok(other.ok && other.value.select !== a.value.select && other.value.select!.length === 2);
  for (let i = 0; i < 2; i++) {
    const bad = parseQueryParams([['select', 'id,tracks(']]);
    t.equal(bad.ok, false, `a bad select fails (time ${i + 1})`);
  }
});
