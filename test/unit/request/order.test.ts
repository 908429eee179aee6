import t from 'tap';

import { parseOrder } from '../../../src/request/grammar/order.js';
import type { OrderTerm } from '../../../src/request/types.js';

const term = (name: string, direction: OrderTerm['direction'] = null, nulls: OrderTerm['nulls'] = null, relation: string | null = null, jsonPath: OrderTerm['field']['jsonPath'] = []): OrderTerm => ({
  relation,
  field: { name, jsonPath },
  direction,
  nulls,
});

t.test('every order form', async (t) => {
  t.strictSame(parseOrder('a,b.desc,c.asc.nullsfirst,d.nullslast,data->>x.desc,rel(col).desc'), {
    ok: true,
    value: [
      term('a'),
      term('b', 'desc'),
      term('c', 'asc', 'first'),
      term('d', null, 'last'),
      term('data', 'desc', null, null, [{ op: '->>', key: 'x' }]),
      term('col', 'desc', null, 'rel'),
    ],
  });
  t.strictSame(parseOrder('name.desc.nullsfirst'), { ok: true, value: [term('name', 'desc', 'first')] });
  t.strictSame(parseOrder('json_col->key.asc.nullslast'), { ok: true, value: [term('json_col', 'asc', 'last', null, [{ op: '->', key: 'key' }])] });
  t.strictSame(parseOrder('clients(json_col->key).desc.nullsfirst'), { ok: true, value: [term('json_col', 'desc', 'first', 'clients', [{ op: '->', key: 'key' }])] });
  t.strictSame(parseOrder('name,clients(name),id'), { ok: true, value: [term('name'), term('name', null, null, 'clients'), term('id')] });
  t.strictSame(parseOrder('data->0.desc'), { ok: true, value: [term('data', 'desc', null, null, [{ op: '->', key: 0 }])] });
  t.strictSame(parseOrder(' a , b.desc '), { ok: true, value: [term('a'), term('b', 'desc')] });
  t.strictSame(parseOrder('"my col".asc'), { ok: true, value: [term('my col', 'asc')] });
  t.strictSame(parseOrder('rel ( col ).asc'), { ok: true, value: [term('col', 'asc', null, 'rel')] });
});

t.test('errors', async (t) => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['clients(name,id)', 'unexpected "," at position 13, expecting ")"'],
    ['id.ac', 'unexpected "ac" at position 4, expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['id.descc', 'unexpected "descc" at position 4, expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['id.nulsfist', 'unexpected "nulsfist" at position 4, expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['id.nullslasttt', 'unexpected "nullslasttt" at position 4, expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['id.smth34', 'unexpected "smth34" at position 4, expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['id.asc.nlsfst', 'unexpected "nlsfst" at position 8, expecting "nullsfirst" or "nullslast"'],
    ['id.asc.smth34', 'unexpected "smth34" at position 8, expecting "nullsfirst" or "nullslast"'],
    ['id.asc.desc', 'unexpected "desc" at position 8, expecting "nullsfirst" or "nullslast"'],
    ['id.nullsfirst.desc', 'unexpected "." at position 14, expecting "," or end of input'],
    ['id.', 'unexpected end of input at position 4, expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['', 'unexpected end of input at position 1, expecting field name'],
    ['a,', 'unexpected end of input at position 3, expecting field name'],
    ['a b!', 'unexpected "!" at position 4, expecting "->", "->>", ".", "," or end of input'],
    ['a.desc x', 'unexpected "x" at position 8, expecting ".", "," or end of input'],
    ['rel(a', 'unexpected end of input at position 6, expecting ")"'],
  ];
  for (const [v, details] of cases) {
    const r = parseOrder(v);
    t.strictSame(r.ok ? null : [r.error.code, r.error.message, r.error.details], ['DBRST100', `failed to parse order (${v})`, details], v);
  }
});
