import t from 'tap';

import { parseLogicTree } from '../../../src/request/grammar/logic-tree.js';
import type { LogicTree, Operation } from '../../../src/request/types.js';

const leaf = (name: string, operation: Operation, negated = false): LogicTree => ({
  kind: 'filter',
  filter: { field: { name, jsonPath: [] }, negated, operation },
});
const eq = (value: string): Operation => ({ kind: 'simple', op: 'eq', value, quantifier: null });
const tree = (key: string, value: string) => {
  const r = parseLogicTree(key, value);
  return r.ok ? r.value : `${r.error.message} | ${r.error.details}`;
};

t.test('keys: or, and, not.or, not.and, with embed paths', async (t) => {
  t.strictSame(tree('or', '(a.eq.1)'), { path: [], tree: { kind: 'or', negated: false, children: [leaf('a', eq('1'))] } });
  t.strictSame(tree('and', '(a.eq.1)'), { path: [], tree: { kind: 'and', negated: false, children: [leaf('a', eq('1'))] } });
  t.strictSame(tree('not.or', '(a.eq.1)'), { path: [], tree: { kind: 'or', negated: true, children: [leaf('a', eq('1'))] } });
  t.strictSame(tree('not.and', '(a.eq.1)'), { path: [], tree: { kind: 'and', negated: true, children: [leaf('a', eq('1'))] } });
  t.strictSame(tree('actors.or', '(a.eq.1)'), { path: ['actors'], tree: { kind: 'or', negated: false, children: [leaf('a', eq('1'))] } });
  t.strictSame(tree('actors.films.not.and', '(a.eq.1)'), { path: ['actors', 'films'], tree: { kind: 'and', negated: true, children: [leaf('a', eq('1'))] } });
  t.equal(tree('xor', '(a.eq.1)'), 'failed to parse logic path (xor) | unexpected "xor" at position 1, expecting "and" or "or"');
  t.equal(tree('a..or', '(a.eq.1)'), 'failed to parse logic path (a..or) | unexpected "." at position 3, expecting field name');
});

t.test('children: filters, nested groups, negation', async (t) => {
  t.strictSame(tree('or', '(a.eq.1,b.gt.2)'), {
    path: [],
    tree: { kind: 'or', negated: false, children: [leaf('a', eq('1')), leaf('b', { kind: 'simple', op: 'gt', value: '2', quantifier: null })] },
  });
  t.strictSame(tree('or', '(a.eq.1,and(b.eq.2,not.or(c.eq.3,d.not.eq.4)))'), {
    path: [],
    tree: {
      kind: 'or',
      negated: false,
      children: [
        leaf('a', eq('1')),
        {
          kind: 'and',
          negated: false,
          children: [leaf('b', eq('2')), { kind: 'or', negated: true, children: [leaf('c', eq('3')), leaf('d', eq('4'), true)] }],
        },
      ],
    },
  });
  // Blanks around parentheses and commas are skipped; an unquoted value keeps its own (PostgREST).
  t.strictSame(tree('or', ' ( a.eq.1 , and ( b.eq.2 ) ) '), {
    path: [],
    tree: { kind: 'or', negated: false, children: [leaf('a', eq('1 ')), { kind: 'and', negated: false, children: [leaf('b', eq('2 '))] }] },
  });
  t.strictSame(tree('and', '(data->>x.eq.1)'), {
    path: [],
    tree: { kind: 'and', negated: false, children: [{ kind: 'filter', filter: { field: { name: 'data', jsonPath: [{ op: '->>', key: 'x' }] }, negated: false, operation: eq('1') } }] },
  });
  t.strictSame(tree('and', '(order.eq.1,not.eq.2,or.eq.3)'), {
    path: [],
    tree: { kind: 'and', negated: false, children: [leaf('order', eq('1')), leaf('not', eq('2')), leaf('or', eq('3'))] },
  }, 'columns named like keywords are filters when no ( follows');
});

t.test('values: quoting, arrays, lists', async (t) => {
  const value = (v: string) => {
    const r = parseLogicTree('or', `(a.${v})`);
    return r.ok && r.value.tree.kind === 'or' && r.value.tree.children[0]?.kind === 'filter' ? r.value.tree.children[0].filter.operation : r;
  };
  t.strictSame(value('eq."x,y"'), eq('x,y'));
  t.strictSame(value('eq."a\\"b)"'), eq('a"b)'));
  t.strictSame(value('eq."x"y'), eq('"x"y'), 'a quote followed by text is plain text');
  t.strictSame(value('cs.{1,2}'), { kind: 'simple', op: 'cs', value: '{1,2}', quantifier: null });
  t.strictSame(value('like(any).{a*,b*}'), { kind: 'simple', op: 'like', values: ['a*', 'b*'], quantifier: 'any' });
  t.strictSame(value('eq(all).{"x,y",z}'), { kind: 'simple', op: 'eq', values: ['x,y', 'z'], quantifier: 'all' });
  t.strictSame(value('in.(1,2,"a,b")'), { kind: 'in', values: ['1', '2', 'a,b'] });
  t.strictSame(value('is.NULL'), { kind: 'is', value: 'null' });
  t.strictSame(value('fts(english).fat cat'), { kind: 'fts', op: 'fts', language: 'english', value: 'fat cat' });
  t.strictSame(value('eq.'), eq(''));
  t.strictSame(value('eq.a.b'), eq('a.b'));
  t.strictSame(value('isdistinct.5'), { kind: 'simple', op: 'isdistinct', value: '5', quantifier: null });
});

t.test('errors name the fragment and position', async (t) => {
  const all = 'operator (eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, fts, plfts, phfts, wfts, cs, cd, ov, sl, sr, nxr, nxl, adj)';
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['()', 'unexpected ")" at position 2, expecting field name, negation operator (not) or logic operator (and, or)'],
    ['(id.in.1,2,id.eq.3)', 'unexpected "1" at position 8, expecting "("'],
    [')(', 'unexpected ")" at position 1, expecting "("'],
    ['a.eq.1', 'unexpected "a" at position 1, expecting "("'],
    ['(a.eq.1', 'unexpected end of input at position 8, expecting "," or ")"'],
    ['(a.eq.1,)', 'unexpected ")" at position 9, expecting field name, negation operator (not) or logic operator (and, or)'],
    ['(a.eqq.1)', `unknown operator "eqq" at position 4, expecting ${all}`],
    ['(a)', 'unexpected ")" at position 3, expecting "."'],
    ['(a.is.nul)', 'unexpected "nul" at position 7, expecting null, not_null, true, false or unknown'],
    ['(a.is.null.x)', 'unexpected "." at position 11, expecting "," or ")"'],
    ['(and(a.eq.1)', 'unexpected end of input at position 13, expecting "," or ")"'],
    ['(a.eq(any).5)', 'malformed list "5" at position 12, expecting a list in braces like {a,b}'],
  ];
  for (const [v, details] of cases) t.equal(tree('or', v), `failed to parse logic tree (${v}) | ${details}`, v);
});

t.test('nesting is bounded', async (t) => {
  t.ok(parseLogicTree('or', '(' + 'and('.repeat(60) + 'a.eq.1' + ')'.repeat(61)).ok);
  const r = parseLogicTree('or', '(' + 'and('.repeat(50000) + 'a.eq.1' + ')'.repeat(50001));
  t.notOk(r.ok);
  if (!r.ok) t.match(r.error.details, /^too deeply nested/);
});
