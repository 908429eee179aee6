// Generated and hostile inputs through every request parser: each answer is a value (ok, or a
// DBRST1xx error), never a throw, and no input takes long (no catastrophic backtracking, no stack
// overflow). Seeded, so a failure reproduces.
import t from 'tap';

import type { Result } from '../../../src/errors/types.js';
import { parseFilter } from '../../../src/request/grammar/filter.js';
import { parseLogicTree } from '../../../src/request/grammar/logic-tree.js';
import { parseOrder } from '../../../src/request/grammar/order.js';
import { parseQueryParams } from '../../../src/request/grammar/query.js';
import { parseRangeHeader } from '../../../src/request/grammar/range.js';
import { parseSelect } from '../../../src/request/grammar/select.js';
import { parseAccept, parseContentType } from '../../../src/request/media-type.js';
import { parsePreferences } from '../../../src/request/preferences.js';
import { prng } from '../../helpers/prng.js';

const rand = prng(0xdb2e57);
const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(rand() * xs.length)] as T;
const int = (n: number) => Math.floor(rand() * n);

const TOKENS = [
  'a', 'id', 'name', 'rel', 'data', 'count', 'my col', 'first-name', '$x', '_', '1', '0', '-1', '42',
  '*', ',', '.', ':', '::', '->', '->>', '-', '>', '(', ')', '!', '!inner', '!left', '!hint', '...', '..',
  '"', '\\', '\\"', '""', '{', '}', '[', ']', ' ', '  ', '\t', '\n', '\r', '\u0000', '\u0001', '\u007f',
  'eq.', 'neq.', 'gt.', 'gte.', 'lt.', 'lte.', 'like.', 'ilike.', 'match.', 'imatch.', 'in.', 'is.',
  'isdistinct.', 'fts.', 'plfts.', 'phfts.', 'wfts.', 'cs.', 'cd.', 'ov.', 'sl.', 'sr.', 'nxr.', 'nxl.',
  'adj.', 'not.', 'eqq.', '(any)', '(all)', '(english)', 'null', 'NULL', 'not_null', 'true', 'unknown',
  'and(', 'or(', 'not.and(', 'not.or(', '.sum()', '.avg()', 'count()', '.desc', '.asc', '.nullsfirst',
  '.nullslast', '&', '=', '%', '%00', '%2C', '%22', '+', '#', '?', '/', ';', 'q=0.5', '😀', '数据', 'ñ',
  '\ud800', '\udc00', '\u202e', '\ufeff', 'select=', 'order=', 'limit=', 'offset=', 'or=', 'and=',
  'not.or=', 'columns=', 'on_conflict=', 'a.b.', 'x'.repeat(50),
];

function fragment(maxTokens: number): string {
  let s = '';
  const n = int(maxTokens);
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.8) s += pick(TOKENS);
    else if (r < 0.9) s += String.fromCharCode(int(128));
    else s += String.fromCodePoint(rand() < 0.5 ? int(0xd800) : 0x10000 + int(0x100000));
  }
  return s;
}

const KEYS = ['select', 'order', 'limit', 'offset', 'or', 'and', 'not.or', 'not.and', 'columns', 'on_conflict', 'id', 'rel.id', 'actors.or', 'a.b.order', 'films.limit', 'data->>x', ''];

function queryString(): string {
  const parts: string[] = [];
  const n = 1 + int(6);
  for (let i = 0; i < n; i++) {
    const key = rand() < 0.7 ? pick(KEYS) : fragment(4);
    parts.push(`${key}=${fragment(25)}`);
  }
  return rand() < 0.1 ? fragment(40) : parts.join('&');
}

// --- grammar-aware generation: valid strings, then the same strings with random edits ---------------

const NAMES = ['a', 'id', 'my col', '"q,x"', '"a\\"b"', 'first-name', '数据', '$x', '_y', 'n1'];
const jsonPath = () => Array.from({ length: int(3) }, () => pick(['->', '->>']) + pick(['k', '0', '-1', 'a-b', '"x.y"', '!@#'])).join('');
const cast = () => (rand() < 0.3 ? '::' + pick(['int', 'text', 'double precision']) : '');

function selectItems(depth: number): string {
  return Array.from({ length: 1 + int(3) }, () => {
    const r = rand();
    if (r < 0.15) return '*';
    if (r < 0.25) return (rand() < 0.5 ? pick(NAMES) + ':' : '') + 'count()' + cast();
    if (r < 0.7 || depth > 3) {
      const alias = rand() < 0.3 ? pick(NAMES) + ':' : '';
      const agg = rand() < 0.2 ? '.' + pick(['sum', 'avg', 'min', 'max', 'count']) + '()' + cast() : '';
      return alias + pick(NAMES) + jsonPath() + cast() + agg;
    }
    const head = rand() < 0.2 ? '...' : rand() < 0.3 ? pick(NAMES) + ':' : '';
    const params = (rand() < 0.3 ? '!hint' : '') + (rand() < 0.3 ? pick(['!inner', '!left']) : '');
    return `${head}${pick(NAMES)}${params}(${rand() < 0.1 ? '' : selectItems(depth + 1)})`;
  }).join(pick([',', ', ', ' , ']));
}

/** A value safe inside a logic tree too (no bare , or )). */
function opExpr(): string {
  const not = rand() < 0.2 ? 'not.' : '';
  const ops = [
    () => pick(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'isdistinct', 'sl', 'sr', 'nxr', 'nxl', 'adj']) + '.' + pick(['5', 'abc', '*x*', 'a.b', '"q,(x)"', '']),
    () => pick(['cs', 'cd', 'ov']) + '.' + pick(['{1,2}', '{}', '"[1,5)"']),
    () => 'in.(' + Array.from({ length: int(4) }, () => pick(['1', 'a b', '"x,y"', '"q\\"z"', ''])).join(',') + ')',
    () => 'is.' + pick(['null', 'NOT_NULL', 'true', 'False', 'unknown']),
    () => pick(['fts', 'plfts', 'phfts', 'wfts']) + pick(['', '(english)']) + '.' + pick(['cat', 'fat rat']),
    () => pick(['eq', 'like', 'ilike', 'gt']) + pick(['(any)', '(all)']) + '.' + pick(['{a,b}', '{"x,y",z}', '{}']),
  ];
  return not + pick(ops)();
}

function logicBody(depth: number): string {
  const children = Array.from({ length: 1 + int(3) }, () =>
    rand() < 0.3 && depth < 4
      ? (rand() < 0.3 ? 'not.' : '') + pick(['and', 'or']) + logicBody(depth + 1)
      : pick(NAMES) + jsonPath() + '.' + opExpr(),
  );
  return '(' + children.join(pick([',', ', '])) + ')';
}

function orderTerms(): string {
  return Array.from({ length: 1 + int(3) }, () =>
    (rand() < 0.2 ? `${pick(NAMES)}(${pick(NAMES)}${jsonPath()})` : pick(NAMES) + jsonPath()) +
    pick(['', '.asc', '.desc']) + pick(['', '.nullsfirst', '.nullslast']),
  ).join(',');
}

function validPairs(): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const embed = () => (rand() < 0.3 ? pick(['films.', 'a.b.', '"x.y".']) : '');
  for (let i = 0, n = 1 + int(5); i < n; i++) {
    const r = rand();
    if (r < 0.2) pairs.push(['select', selectItems(0)]);
    else if (r < 0.35) pairs.push([embed() + 'order', orderTerms()]);
    else if (r < 0.5) pairs.push([embed() + pick(['or', 'and', 'not.or', 'not.and']), logicBody(0)]);
    else if (r < 0.6) pairs.push([embed() + pick(['limit', 'offset']), String(int(1000))]);
    else if (r < 0.65) pairs.push([pick(['columns', 'on_conflict']), Array.from({ length: 1 + int(3) }, () => pick(NAMES)).join(',')]);
    else pairs.push([embed() + pick(NAMES) + jsonPath(), opExpr()]);
  }
  return pairs;
}

function mutate(text: string): string {
  let out = text;
  for (let i = 0, n = 1 + int(3); i < n; i++) {
    const at = int(out.length + 1);
    const r = rand();
    if (r < 0.33) out = out.slice(0, at) + pick(TOKENS) + out.slice(at);
    else if (r < 0.66) out = out.slice(0, at) + out.slice(at + 1 + int(3));
    else out = out.slice(0, at) + String.fromCharCode(int(128)) + out.slice(at + 1);
  }
  return out;
}

let slowest = 0;
let slowestInput = '';
function timed<T>(input: string, f: () => T): T {
  const start = performance.now();
  const out = f();
  const ms = performance.now() - start;
  if (ms > slowest) {
    slowest = ms;
    slowestInput = input;
  }
  return out;
}

function checkResult(fail: (msg: string) => void, r: Result<unknown>, input: string): boolean {
  if (r.ok) return true;
  if (typeof r.error.code === 'string' && r.error.code.startsWith('DBRST1') && r.error.status === 400 && typeof r.error.message === 'string') return true;
  fail(`bad error for ${JSON.stringify(input).slice(0, 200)}: ${JSON.stringify(r.error)}`);
  return false;
}

t.test('10,000+ generated query strings', async (t) => {
  let bad = 0;
  let oks = 0;
  for (let i = 0; i < 12000; i++) {
    const qs = queryString();
    let r: Result<unknown>;
    try {
      r = timed(qs, () => parseQueryParams(new URLSearchParams(qs), { isRpcArg: (n) => n === 'id' && i % 2 === 0 }));
    } catch (e) {
      t.fail(`threw on ${JSON.stringify(qs)}: ${String(e)}`);
      bad++;
      continue;
    }
    if (!checkResult((m) => t.fail(m), r, qs)) bad++;
    if (r.ok) oks++;
  }
  t.equal(bad, 0, 'every answer is ok or DBRST1xx');
  t.ok(oks > 100, `some generated strings parse (${oks})`);
});

t.test('generated valid query strings parse; their mutations answer ok or DBRST1xx', async (t) => {
  let bad = 0;
  for (let i = 0; i < 6000; i++) {
    const pairs = validPairs();
    const r = timed(JSON.stringify(pairs), () => parseQueryParams(pairs, {}));
    if (!r.ok) {
      bad++;
      t.fail(`valid input rejected: ${JSON.stringify(pairs)} → ${r.error.message}: ${r.error.details}`);
    }
    const mutated = pairs.map(([k, v]): [string, string] => (rand() < 0.5 ? [k, mutate(v)] : rand() < 0.2 ? [mutate(k), v] : [k, v]));
    try {
      if (!checkResult((m) => t.fail(m), timed(JSON.stringify(mutated), () => parseQueryParams(mutated, {})), JSON.stringify(mutated))) bad++;
    } catch (e) {
      bad++;
      t.fail(`threw on ${JSON.stringify(mutated)}: ${String(e)}`);
    }
  }
  t.equal(bad, 0);
});

t.test('generated values straight into each grammar', async (t) => {
  let bad = 0;
  for (let i = 0; i < 4000; i++) {
    const v = fragment(30);
    const k = fragment(5);
    const grammars: ReadonlyArray<readonly [string, () => Result<unknown>]> = [
      ['select', () => parseSelect(v)],
      ['filter', () => parseFilter(k, v)],
      ['logic', () => parseLogicTree(pick(['or', 'and', 'not.or', 'a.and']), v)],
      ['logic-wrapped', () => parseLogicTree('or', `(${v})`)],
      ['order', () => parseOrder(v)],
    ];
    for (const [name, f] of grammars) {
      try {
        if (!checkResult((m) => t.fail(m), timed(v, f), `${name}: ${v}`)) bad++;
      } catch (e) {
        t.fail(`${name} threw on ${JSON.stringify(v)}: ${String(e)}`);
        bad++;
      }
    }
  }
  t.equal(bad, 0);
});

t.test('Prefer, Accept, Content-Type and Range headers never throw', async (t) => {
  const PREFS = ['return=minimal', 'count=exact', 'tx=rollback', 'max-affected=', 'timezone=', 'handling=strict', ',', ' ', '=', 'x'];
  const MEDIA = ['application/json', 'text/csv', '*/*', '*', '/', ';', 'q=', 'q=0', 'q=1', '0.5', '"', '\\', ',', ' ', '=', 'a', '+', '.'];
  let bad = 0;
  for (let i = 0; i < 4000; i++) {
    const prefer = Array.from({ length: int(8) }, () => (rand() < 0.6 ? pick(PREFS) : fragment(3))).join('');
    const accept = Array.from({ length: int(12) }, () => (rand() < 0.7 ? pick(MEDIA) : fragment(2))).join('');
    try {
      const p = timed(prefer, () => parsePreferences([prefer, fragment(5)]));
      if (!Array.isArray(p.invalid)) bad++;
      const a = timed(accept, () => parseAccept(accept));
      if (!a.every((m) => m.q > 0 && m.q <= 1 && typeof m.type === 'string')) bad++;
      const sorted = a.every((m, j) => j === 0 || (a[j - 1]?.q ?? 0) >= m.q);
      if (!sorted) bad++;
      timed(accept, () => parseContentType(accept));
      const r = timed(accept, () => parseRangeHeader(accept));
      if (r !== null && !(Number.isSafeInteger(r.first) && r.first >= 0)) bad++;
    } catch (e) {
      t.fail(`threw on ${JSON.stringify(prefer)} / ${JSON.stringify(accept)}: ${String(e)}`);
      bad++;
    }
  }
  t.equal(bad, 0);
});

t.test('every generated call was fast', async (t) => {
  // A guard against super-linear parsing (which costs seconds to minutes), not a speed goal: the
  // bound is loose so a busy CI machine does not trip it.
  t.ok(slowest < 1500, `slowest call ${slowest.toFixed(1)} ms on ${JSON.stringify(slowestInput).slice(0, 120)}`);
});

t.test('hostile inputs: huge, deeply nested, pathological repetition', async (t) => {
  const N = 200_000;
  const hostile: ReadonlyArray<string> = [
    'a'.repeat(N),
    ' '.repeat(N) + 'x',
    'a' + ' '.repeat(N) + '!',
    '('.repeat(N),
    ')'.repeat(N),
    'a('.repeat(N / 2),
    '"'.repeat(N),
    '\\'.repeat(N),
    '"' + 'a'.repeat(N),
    ','.repeat(N),
    'a,'.repeat(N / 2),
    'a-'.repeat(N / 2),
    'data' + '->'.repeat(N / 2),
    'data' + '->a'.repeat(N / 3),
    'data->' + '-'.repeat(N),
    'data->' + '1'.repeat(N),
    '{'.repeat(N),
    '{' + 'a,'.repeat(N / 2),
    'in.(' + '"a,'.repeat(N / 3),
    'in.(' + ' '.repeat(N) + 'a' + ' '.repeat(N),
    'in.(' + ' ,'.repeat(N / 2),
    'eq(any).{' + ' '.repeat(N) + 'x' + ' '.repeat(N),
    '(' + 'and('.repeat(N / 4),
    '(' + 'a.eq."'.repeat(N / 6),
    '(' + 'a.cs.{'.repeat(N / 6),
    '(' + 'a.in.('.repeat(N / 6),
    'a.desc,'.repeat(N / 7),
    'rel(a).desc.nullsfirst,'.repeat(N / 23),
    '...'.repeat(N / 3),
    'a!'.repeat(N / 2),
    'a::'.repeat(N / 3),
    '\u0000'.repeat(N),
    '😀'.repeat(N / 2),
    '\ud800'.repeat(N),
    'x:'.repeat(N / 2),
    'not.'.repeat(N / 4),
  ];
  for (const h of hostile) {
    const label = JSON.stringify(h.slice(0, 24)) + `… (${h.length} chars)`;
    const start = performance.now();
    try {
      for (const r of [
        parseSelect(h),
        parseFilter(h, h),
        parseFilter('a', h),
        parseLogicTree('or', h),
        parseOrder(h),
        parseQueryParams([[h, h], ['select', h], ['order', h], ['or', h], ['limit', h], ['columns', h]], {}),
      ]) {
        checkResult((m) => t.fail(m), r, label);
      }
      parsePreferences([h, h]);
      parseAccept(h);
      parseContentType(h);
      parseRangeHeader(h);
    } catch (e) {
      t.fail(`threw on ${label}: ${String(e)}`);
    }
    const ms = performance.now() - start;
    t.ok(ms < 10_000, `${label} took ${ms.toFixed(0)} ms`);
  }
});
