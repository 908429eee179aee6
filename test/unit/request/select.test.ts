import t from 'tap';

import { parseSelect } from '../../../src/request/grammar/select.js';
import type { JsonPathStep, SelectItem } from '../../../src/request/types.js';

interface FieldOpts {
  readonly path?: ReadonlyArray<JsonPathStep>;
  readonly alias?: string;
  readonly cast?: string;
  readonly aggregate?: 'count' | 'sum' | 'avg' | 'min' | 'max';
  readonly aggregateCast?: string;
}
const field = (name: string, o: FieldOpts = {}): SelectItem => ({
  kind: 'field',
  field: { name, jsonPath: o.path ?? [] },
  alias: o.alias ?? null,
  cast: o.cast ?? null,
  aggregate: o.aggregate ?? null,
  aggregateCast: o.aggregateCast ?? null,
});
interface EmbedOpts {
  readonly alias?: string;
  readonly hint?: string;
  readonly joinType?: 'inner' | 'left';
  readonly spread?: boolean;
}
const embed = (relation: string, select: SelectItem[], o: EmbedOpts = {}): SelectItem => ({
  kind: 'embed',
  relation,
  alias: o.alias ?? null,
  hint: o.hint ?? null,
  joinType: o.joinType ?? null,
  spread: o.spread ?? false,
  select,
});
const star: SelectItem = { kind: 'star' };

const good: ReadonlyArray<readonly [string, SelectItem[]]> = [
  ['*', [star]],
  ['', []],
  ['id', [field('id')]],
  ['id,name', [field('id'), field('name')]],
  ['alias:col', [field('col', { alias: 'alias' })]],
  ['col::text', [field('col', { cast: 'text' })]],
  ['col::double precision', [field('col', { cast: 'double precision' })]],
  ['data->a->>b', [field('data', { path: [{ op: '->', key: 'a' }, { op: '->>', key: 'b' }] })]],
  ['data->0', [field('data', { path: [{ op: '->', key: 0 }] })]],
  ['data->>-1', [field('data', { path: [{ op: '->>', key: -1 }] })]],
  ['data->1a', [field('data', { path: [{ op: '->', key: '1a' }] })]],
  ['data->"a.b"', [field('data', { path: [{ op: '->', key: 'a.b' }] })]],
  ['data->!@#$%^&*_a', [field('data', { path: [{ op: '->', key: '!@#$%^&*_a' }] })]],
  ['data->a-b->c', [field('data', { path: [{ op: '->', key: 'a-b' }, { op: '->', key: 'c' }] })]],
  ['alias:data->>x::int', [field('data', { alias: 'alias', cast: 'int', path: [{ op: '->>', key: 'x' }] })]],
  ['amount.sum()', [field('amount', { aggregate: 'sum' })]],
  ['amount.avg()::int', [field('amount', { aggregate: 'avg', aggregateCast: 'int' })]],
  ['amount.min(),amount.max(),id.count()', [field('amount', { aggregate: 'min' }), field('amount', { aggregate: 'max' }), field('id', { aggregate: 'count' })]],
  ['total:amount::numeric.sum()::text', [field('amount', { alias: 'total', cast: 'numeric', aggregate: 'sum', aggregateCast: 'text' })]],
  ['count()', [{ kind: 'count', alias: null, cast: null }]],
  ['alias:count()', [{ kind: 'count', alias: 'alias', cast: null }]],
  ['n:count()::int', [{ kind: 'count', alias: 'n', cast: 'int' }]],
  ['count', [field('count')]],
  ['rel(*)', [embed('rel', [star])]],
  ['alias:rel(a,b)', [embed('rel', [field('a'), field('b')], { alias: 'alias' })]],
  ['rel!hint(*)', [embed('rel', [star], { hint: 'hint' })]],
  ['rel!inner(*)', [embed('rel', [star], { joinType: 'inner' })]],
  ['rel!left(*)', [embed('rel', [star], { joinType: 'left' })]],
  ['rel!hint!inner(*)', [embed('rel', [star], { hint: 'hint', joinType: 'inner' })]],
  ['alias:rel!inner!hint(*)', [embed('rel', [star], { alias: 'alias', hint: 'hint', joinType: 'inner' })]],
  ['rel!"inner"(*)', [embed('rel', [star], { hint: 'inner' })]],
  ['rel!leftovers(*)', [embed('rel', [star], { hint: 'leftovers' })]],
  ['rel!inner()', [embed('rel', [], { joinType: 'inner' })]],
  ['...rel(a,b)', [embed('rel', [field('a'), field('b')], { spread: true })]],
  ['...rel!hint!inner(*)', [embed('rel', [star], { spread: true, hint: 'hint', joinType: 'inner' })]],
  ['*,client(*,nested(*))', [star, embed('client', [star, embed('nested', [star])])]],
  ['*,...client(*),other(*)', [star, embed('client', [star], { spread: true }), embed('other', [star])]],
  [' a , b ( c , d ( * ) ) ', [field('a'), embed('b', [field('c'), embed('d', [star])])]],
  ['\ta,\tb', [field('a'), field('b')]],
  ['"my col"', [field('my col')]],
  ['"a\\"b"', [field('a"b')]],
  ['"quoted:name":col', [field('col', { alias: 'quoted:name' })]],
  ['my col', [field('my col')]],
  ['first-name', [field('first-name')]],
  ['$x,_y,123', [field('$x'), field('_y'), field('123')]],
  ['ñandú,数据', [field('ñandú'), field('数据')]],
  ['alias : col', [field('col', { alias: 'alias' })]],
  ['a,rel(b->0)', [field('a'), embed('rel', [field('b', { path: [{ op: '->', key: 0 }] })])]],
];

t.test('every select form', async (t) => {
  for (const [text, want] of good) {
    const r = parseSelect(text);
    t.ok(r.ok, `parses ${JSON.stringify(text)}`);
    if (r.ok) t.strictSame(r.value, want, text);
  }
});

const bad: ReadonlyArray<readonly [string, string]> = [
  ['id,clients(name[])', 'unexpected "[" at position 16, expecting "->", "::", "(", "!", ".", ",", ")" or end of input'],
  ['data->>-78xy', 'unexpected "x" at position 11, expecting digit, "->", "::", ".", "," or end of input'],
  ['data->>--34', 'unexpected "-" at position 9, expecting digit'],
  ['name!hint', 'unexpected end of input at position 10, expecting "!" or "("'],
  ['*!hint', 'unexpected "!" at position 2, expecting ",", ")" or end of input'],
  ['name::', 'unexpected end of input at position 7, expecting type name'],
  ['a,', 'unexpected end of input at position 3, expecting field name'],
  [',a', 'unexpected "," at position 1, expecting field name'],
  ['rel(a', 'unexpected end of input at position 6, expecting "," or ")"'],
  ['count(*)', 'unexpected "(" at position 6, expecting "->", "::", ".", ",", ")" or end of input'],
  ['x.foo()', 'unexpected "f" at position 3, expecting aggregate (sum(), avg(), count(), min(), max())'],
  ['x.sum', 'unexpected "s" at position 3, expecting aggregate (sum(), avg(), count(), min(), max())'],
  ['rel!a!b(*)', 'more than one embedding hint "b" at position 7'],
  ['rel!inner!left(*)', 'more than one join type "left" at position 11'],
  ['rel->x(*)', 'unexpected "(" at position 7, expecting "->", "::", ".", ",", ")" or end of input'],
  ['alias:...rel(*)', 'unexpected "." at position 7, expecting field name'],
  ['alias:*', 'unexpected "*" at position 7, expecting field name'],
  ['"unterminated', 'unexpected end of input at position 14, expecting "\\""'],
  ['"a\u0000b"', 'NUL character in identifier "a\\u0000b" at position 1'],
  ['a.b', 'unexpected "b" at position 3, expecting aggregate (sum(), avg(), count(), min(), max())'],
  ['count()x', 'unexpected "x" at position 8, expecting "::", ",", ")" or end of input'],
  ['a:b:c', 'unexpected ":" at position 4, expecting "->", "::", "(", "!", ".", ",", ")" or end of input'],
  ['数据[', 'unexpected "[" at position 3, expecting "->", "::", "(", "!", ".", ",", ")" or end of input'],
  ['😀', 'unexpected "😀" at position 1, expecting field name'],
  ['a,😀', 'unexpected "😀" at position 3, expecting field name'],
];

t.test('what follows a complete top-level list is ignored (PostgREST pFieldForest has no end check)', async (t) => {
  t.same(parseSelect('a)'), parseSelect('a'));
  t.same(parseSelect('rel(a)b'), parseSelect('rel(a)'));
  t.same(parseSelect('a,rel(b))junk'), parseSelect('a,rel(b)'));
  t.notOk(parseSelect('x(rel(a)b)').ok, 'inside an embed the list must still close');
});

t.test('errors quote the fragment and its 1-based position', async (t) => {
  for (const [text, details] of bad) {
    const r = parseSelect(text);
    t.notOk(r.ok, `rejects ${JSON.stringify(text)}`);
    if (!r.ok) {
      t.equal(r.error.code, 'DBRST100');
      t.equal(r.error.status, 400);
      t.equal(r.error.message, `failed to parse select parameter (${text})`);
      t.equal(r.error.details, details, text);
      t.equal(r.error.hint, null);
    }
  }
});

t.test('nesting is bounded instead of overflowing the stack', async (t) => {
  const ok = 'a('.repeat(60) + '*' + ')'.repeat(60);
  t.ok(parseSelect(ok).ok);
  const deep = 'a('.repeat(100000) + '*' + ')'.repeat(100000);
  const r = parseSelect(deep);
  t.notOk(r.ok);
  if (!r.ok) t.match(r.error.details, /^too deeply nested \(more than 64 levels\)/);
});
